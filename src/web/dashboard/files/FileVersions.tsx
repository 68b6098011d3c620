// A file's versions in My Stuff (docs/SPEC.md tour step 8's "version control"): uploading a file
// with the name of one the trader owns makes it the file's new version and keeps the earlier
// ones. A file with more than one version shows a "v3 · 3 versions" toggle under its name that
// opens the list (GET /files/{id}/versions): each version's number, size and upload date, a
// Download link, and on the trader's own files Delete for an earlier version (asked twice).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { formatFileSize } from '../../../shared/format.ts';
import type { FileEntry, FileVersionEntry } from '../../../shared/schemas/files.ts';
import { ApiError } from '../../api/http.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { deleteVersion, fetchVersions } from './filesApi.ts';

/** "v3 · 3 versions": the toggle's text. */
function versionsLabel(file: Pick<FileEntry, 'version' | 'versions'>): string {
  return `v${file.version} · ${file.versions} versions`;
}

function uploadedAt(iso: string): string {
  return new Date(iso).toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
}

/** The toggle shown beside a file's size and date; nothing for a file with one version. */
export function VersionsToggle({
  file,
  open,
  listId,
  onToggle,
}: {
  file: FileEntry;
  open: boolean;
  listId: string;
  onToggle: () => void;
}) {
  if (file.versions < 2) return null;
  return (
    <button
      type="button"
      aria-expanded={open}
      aria-controls={open ? listId : undefined}
      className="rounded px-1 text-xs font-medium text-indigo-300 underline-offset-2 hover:text-indigo-200 hover:underline"
      onClick={onToggle}
    >
      {versionsLabel(file)} <span className="sr-only">of {file.original_filename}</span>
    </button>
  );
}

function VersionRow({
  file,
  entry,
  canDelete,
  deleting,
  onDelete,
}: {
  file: FileEntry;
  entry: FileVersionEntry;
  canDelete: boolean;
  deleting: boolean;
  onDelete: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const name = `version ${entry.version} of ${file.original_filename}`;
  return (
    <li className="py-1 text-xs" data-testid="file-version">
      <div className="flex min-h-6 items-center gap-2">
        <span className="font-semibold text-gray-200">v{entry.version}</span>
        {entry.current && <span className="rounded bg-gray-700 px-1 text-[11px] text-gray-200">current</span>}
        <span className="ml-auto flex items-center gap-2">
          {confirming ? (
            <>
              <span className="text-gray-300">Delete v{entry.version}?</span>
              <ConfirmDeleteButtons onDelete={onDelete} onCancel={() => setConfirming(false)} />
            </>
          ) : (
            <>
              <a
                className="rounded px-1 text-indigo-300 underline-offset-2 hover:text-indigo-200 hover:underline"
                href={entry.url}
                download={file.original_filename}
                aria-label={`Download ${name}`}
              >
                Download
              </a>
              {canDelete && !entry.current && (
                <button
                  type="button"
                  className="rounded px-1 text-gray-300 hover:text-red-400 disabled:opacity-40"
                  aria-label={`Delete ${name}`}
                  disabled={deleting}
                  onClick={() => setConfirming(true)}
                >
                  Delete
                </button>
              )}
            </>
          )}
        </span>
      </div>
      <p className="text-gray-300">
        {formatFileSize(entry.file_size)}
        <span aria-hidden> · </span>
        <time dateTime={entry.upload_date}>{uploadedAt(entry.upload_date)}</time>
      </p>
    </li>
  );
}

/** The open list of a file's versions, newest first. */
export function FileVersionList({ file, listId, canDelete }: { file: FileEntry; listId: string; canDelete: boolean }) {
  const queryClient = useQueryClient();
  const key = queryKeys.files.versions(file.id, file.version);
  const versions = useQuery({ queryKey: key, queryFn: () => fetchVersions(file.id), retry: false });
  const [error, setError] = useState<string | null>(null);
  const remove = useMutation({
    mutationFn: (version: number) => deleteVersion(file.id, version),
    onMutate: () => setError(null),
    onError: (failure) =>
      setError(
        failure instanceof ApiError && failure.message && !failure.message.startsWith('API error:')
          ? `The version could not be deleted: ${failure.message}`
          : 'The version could not be deleted.',
      ),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: key }),
        queryClient.invalidateQueries({ queryKey: queryKeys.files.list }),
      ]),
  });

  return (
    <div id={listId} className="mt-1 border-t border-gray-700 pt-1">
      {versions.isPending && <p className="text-xs text-gray-300">Loading versions...</p>}
      {versions.isError && (
        <p role="alert" className="text-xs text-red-400">
          {versions.error.message || 'The versions could not be loaded.'}
        </p>
      )}
      {versions.data && (
        <ul aria-label={`Versions of ${file.original_filename}`} className="divide-y divide-gray-800">
          {versions.data.versions.map((entry) => (
            <VersionRow
              key={entry.version}
              file={file}
              entry={entry}
              canDelete={canDelete}
              deleting={remove.isPending}
              onDelete={() => remove.mutate(entry.version)}
            />
          ))}
        </ul>
      )}
      {error && (
        <p role="alert" className="mt-1 text-xs text-red-400">
          {error}
        </p>
      )}
    </div>
  );
}

/** The inline "Delete / Cancel" pair of a confirmation (a file, or one of its versions). */
export function ConfirmDeleteButtons({ onDelete, onCancel }: { onDelete: () => void; onCancel: () => void }) {
  return (
    <>
      <button
        type="button"
        className="rounded bg-red-600 px-2 py-0.5 font-semibold text-white hover:bg-red-500"
        onClick={() => {
          onCancel();
          onDelete();
        }}
      >
        Delete
      </button>
      <button
        type="button"
        className="rounded border border-gray-600 px-2 py-0.5 text-gray-300 hover:text-white"
        onClick={onCancel}
      >
        Cancel
      </button>
    </>
  );
}
