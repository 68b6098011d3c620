// @vitest-environment jsdom
// My Stuff's rows: Delete only on the trader's own files (a public file's Delete could only
// fail), and a failed action's error under the row it concerns.
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { FileEntry } from '../../../shared/schemas/files.ts';
import { FileRows, type FileActions } from './FileRows.tsx';

afterEach(cleanup);

const file = (id: string, name: string): FileEntry => ({
  id,
  original_filename: name,
  file_size: 2048,
  upload_date: '2026-01-02T10:00:00.000Z',
  url: `/files/${id}/download`,
  uploaded_by_user_id: null,
});

const actions = (rowError: FileActions['rowError'] = null): FileActions => ({
  onPreview: () => undefined,
  onDelete: () => undefined,
  busyId: null,
  rowError,
});

describe('FileRows', () => {
  it('offers Delete on own files only', () => {
    const { rerender } = render(
      <FileRows files={[file('a', 'mine.csv')]} state="ready" emptyText="none" actions={actions()} canDelete />,
    );
    expect(screen.getByRole('button', { name: 'Delete mine.csv' })).toBeTruthy();
    rerender(
      <FileRows
        files={[file('b', 'public.csv')]}
        state="ready"
        emptyText="none"
        actions={actions()}
        canDelete={false}
      />,
    );
    expect(screen.queryByRole('button', { name: 'Delete public.csv' })).toBeNull();
    expect(screen.getByRole('link', { name: 'Download public.csv' })).toBeTruthy();
  });

  it("shows an action's error under its own row", () => {
    render(
      <FileRows
        files={[file('a', 'one.csv'), file('b', 'two.csv')]}
        state="ready"
        emptyText="none"
        actions={actions({ id: 'b', text: 'Failed to delete file: not yours' })}
        canDelete
      />,
    );
    const rows = screen.getAllByTestId('file-row');
    expect(rows[0].querySelector('[role="alert"]')).toBeNull();
    expect(rows[1].querySelector('[role="alert"]')?.textContent).toBe('Failed to delete file: not yours');
  });
});
