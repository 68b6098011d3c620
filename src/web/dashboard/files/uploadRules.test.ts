import { describe, expect, it } from 'vitest';
import { uploadRefusal } from './uploadRules.ts';

const csv = { type: 'text/csv', size: 120 };

describe('uploadRefusal', () => {
  it('asks for a sign-in before anything else', () => {
    expect(uploadRefusal({ type: 'text/plain', size: 1 }, false, 10)).toBe('Please log in to upload files.');
  });

  it("accepts docs/SPEC.md's three MIME types only, parameters and case aside", () => {
    expect(uploadRefusal(csv, true, undefined)).toBeNull();
    expect(uploadRefusal({ type: 'application/vnd.ms-excel', size: 1 }, true, undefined)).toBeNull();
    expect(
      uploadRefusal(
        { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', size: 1 },
        true,
        undefined,
      ),
    ).toBeNull();
    expect(uploadRefusal({ type: 'Text/CSV; charset=utf-8', size: 1 }, true, undefined)).toBeNull();
    for (const type of ['text/plain', '', 'application/octet-stream', 'application/pdf', 'text/csv-schema']) {
      expect(uploadRefusal({ type, size: 1 }, true, undefined)).toBe('Please select a CSV or Excel file.');
    }
  });

  it("refuses a file over the server's limit before sending it", () => {
    expect(uploadRefusal({ type: 'text/csv', size: 25 * 1024 * 1024 }, true, 25 * 1024 * 1024)).toBeNull();
    expect(uploadRefusal({ type: 'text/csv', size: 25 * 1024 * 1024 + 1 }, true, 25 * 1024 * 1024)).toBe(
      'The file is larger than the 25 MB upload limit.',
    );
  });
});
