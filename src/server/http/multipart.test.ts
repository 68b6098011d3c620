import { describe, expect, it } from 'vitest';
import { DomainError, tooLarge } from '../errors/domain.ts';
import { HttpError } from './errors.ts';
import { multipartFailure, type MultipartTexts } from './multipart.ts';

const texts: MultipartTexts = {
  fileTooLarge: () => tooLarge('file too large'),
  tooManyFiles: 'one file',
  tooManyFields: 'too many fields',
  malformed: 'malformed',
};
const fastifyError = (code: string, statusCode: number) => Object.assign(new Error(code), { code, statusCode });

describe('multipartFailure', () => {
  it('passes our own errors through', () => {
    const domain = new DomainError('forbidden', 'not yours');
    const http = new HttpError(400, 'field too long');
    expect(multipartFailure(domain, texts)).toBe(domain);
    expect(multipartFailure(http, texts)).toBe(http);
  });

  it("names the multipart limits in the caller's words", () => {
    expect(multipartFailure(fastifyError('FST_REQ_FILE_TOO_LARGE', 413), texts)).toMatchObject({
      kind: 'too-large',
      message: 'file too large',
    });
    expect(multipartFailure(fastifyError('FST_FILES_LIMIT', 413), texts)).toMatchObject({
      kind: 'invalid',
      message: 'one file',
    });
    expect(multipartFailure(fastifyError('FST_PARTS_LIMIT', 413), texts)).toMatchObject({
      kind: 'invalid',
      message: 'too many fields',
    });
    // Without a text of its own, Fastify's answer stands.
    const parts = fastifyError('FST_PARTS_LIMIT', 413);
    expect(multipartFailure(parts, { ...texts, tooManyFields: undefined })).toBe(parts);
    const proto = fastifyError('FST_PROTO_VIOLATION', 400);
    expect(multipartFailure(proto, texts)).toBe(proto);
  });

  it('reads busboy failures as a malformed form, and other failures as the caller says', () => {
    const otherFailure = () => new DomainError('unavailable', 'storage down');
    for (const message of ['Multipart: Boundary not found', 'Unexpected end of form', 'Malformed part header'])
      expect(multipartFailure(new Error(message), { ...texts, otherFailure })).toMatchObject({ message: 'malformed' });
    expect(multipartFailure(new Error('EIO'), { ...texts, otherFailure })).toMatchObject({ message: 'storage down' });
    expect(multipartFailure(new Error('EIO'), texts)).toMatchObject({ kind: 'invalid', message: 'malformed' });
  });
});
