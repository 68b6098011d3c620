// @vitest-environment jsdom
// My Stuff's rows: Delete only on the trader's own files (a public file's Delete could only
// fail), a failed action's error under the row it concerns, and a file's versions (a toggle on
// a file with more than one, opening the list of versions with their dates, sizes and links).
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FileEntry, FileVersionList } from '../../../shared/schemas/files.ts';
import { requestedUrl } from '../../api/testFetch.ts';
import { withClient } from '../../ui/testProviders.tsx';
import { FileRows, type FileActions } from './FileRows.tsx';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const file = (id: string, name: string, versions = 1): FileEntry => ({
  id,
  original_filename: name,
  file_size: 2048,
  upload_date: '2026-01-02T10:00:00.000Z',
  url: `/files/${id}/download`,
  uploaded_by_user_id: null,
  version: versions,
  versions,
});

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

const VERSIONS: FileVersionList = {
  file_id: 'a',
  original_filename: 'journal.csv',
  versions: [3, 2, 1].map((version) => ({
    version,
    file_size: 1000 * version,
    upload_date: `2026-01-0${version}T10:00:00.000Z`,
    url: `/files/a/versions/${version}/download`,
    current: version === 3,
  })),
};

/** A fetch answering GET and DELETE of a's versions; answers the calls made. */
function stubVersions(deleteAnswer = () => json(200, { success: true })) {
  const calls: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const url = requestedUrl(input);
      const call = `${init.method ?? 'GET'} ${url.pathname}`;
      calls.push(call);
      if (call === 'GET /files/a/versions') return json(200, VERSIONS);
      if (call === 'DELETE /files/a/versions/1') return deleteAnswer();
      return json(404, { error: 'not stubbed' });
    }),
  );
  return calls;
}

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
    expect(rows[0]!.querySelector('[role="alert"]')).toBeNull();
    expect(rows[1]!.querySelector('[role="alert"]')?.textContent).toBe('Failed to delete file: not yours');
  });
});

describe('FileRows versions', () => {
  it('shows no versions toggle for a file uploaded once', () => {
    stubVersions();
    render(
      withClient(
        <FileRows files={[file('b', 'once.csv')]} state="ready" emptyText="none" actions={actions()} canDelete />,
      ),
    );
    expect(screen.queryByRole('button', { name: /versions/ })).toBeNull();
  });

  it('opens the list of versions with their sizes, dates and a Download link each', async () => {
    const calls = stubVersions();
    render(
      withClient(
        <FileRows files={[file('a', 'journal.csv', 3)]} state="ready" emptyText="none" actions={actions()} canDelete />,
      ),
    );
    const toggle = screen.getByRole('button', { name: 'v3 · 3 versions of journal.csv' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    // Nothing is fetched until the list is opened.
    expect(calls).toEqual([]);
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const list = await screen.findByRole('list', { name: 'Versions of journal.csv' });
    expect(toggle.getAttribute('aria-controls')).toBe(list.parentElement?.id);
    const items = within(list).getAllByRole('listitem');
    expect(items.map((item) => item.textContent?.slice(0, 2))).toEqual(['v3', 'v2', 'v1']);
    expect(within(items[0]!).getByText('current')).toBeTruthy();
    expect(within(items[2]!).getByText('1000 Bytes')).toBeTruthy();
    expect(items[2]!.querySelector('time')?.getAttribute('dateTime')).toBe('2026-01-01T10:00:00.000Z');
    const download = within(list).getByRole('link', { name: 'Download version 1 of journal.csv' });
    expect(download.getAttribute('href')).toBe('/files/a/versions/1/download');
    expect(download.getAttribute('download')).toBe('journal.csv');
    // An earlier version can be deleted (asked twice); the current one only with the file.
    expect(within(list).queryByRole('button', { name: 'Delete version 3 of journal.csv' })).toBeNull();
    fireEvent.click(within(list).getByRole('button', { name: 'Delete version 1 of journal.csv' }));
    expect(calls).toEqual(['GET /files/a/versions']);
    fireEvent.click(within(list).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(calls).toContain('DELETE /files/a/versions/1'));

    fireEvent.click(toggle);
    expect(screen.queryByRole('list', { name: 'Versions of journal.csv' })).toBeNull();
  });

  it("offers no version Delete on a public file, and shows the server's reason when a delete fails", async () => {
    stubVersions(() => json(409, { error: 'This is the current version of the file. Delete the file to remove it.' }));
    const { rerender } = render(
      withClient(
        <FileRows
          files={[file('a', 'journal.csv', 3)]}
          state="ready"
          emptyText="none"
          actions={actions()}
          canDelete={false}
        />,
      ),
    );
    fireEvent.click(screen.getByRole('button', { name: /v3 · 3 versions/ }));
    const list = await screen.findByRole('list', { name: 'Versions of journal.csv' });
    expect(within(list).queryByRole('button', { name: /Delete/ })).toBeNull();
    expect(within(list).getAllByRole('link')).toHaveLength(3);

    rerender(
      withClient(
        <FileRows files={[file('a', 'journal.csv', 3)]} state="ready" emptyText="none" actions={actions()} canDelete />,
      ),
    );
    fireEvent.click(within(list).getByRole('button', { name: 'Delete version 1 of journal.csv' }));
    fireEvent.click(within(list).getByRole('button', { name: 'Delete' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'The version could not be deleted: This is the current version of the file. Delete the file to remove it.',
    );
  });

  it('asks before deleting a file with versions that all of them go', () => {
    render(
      withClient(
        <FileRows files={[file('a', 'journal.csv', 3)]} state="ready" emptyText="none" actions={actions()} canDelete />,
      ),
    );
    fireEvent.click(screen.getByRole('button', { name: 'Delete journal.csv' }));
    expect(screen.getByText('Delete this file and all 3 versions?')).toBeTruthy();
  });
});
