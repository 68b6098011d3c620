// One list of My Stuff files ('Your Files' or 'Public Files'): name, size (docs/SPEC.md's
// Bytes/KB/MB/GB with 2 decimals) and date, with Preview, Download, 'Analyze with AI' (when
// the chat is there to take the file) and Delete (asked twice, inline) on the trader's own files
// only: public files are published by an operator and cannot be deleted from here. A file
// uploaded again under its name shows its versions toggle (FileVersions.tsx). A failed
// action shows its error (with the server's reason) under the row it concerns.
import { useId, useState, type ReactNode } from 'react';
import { formatFileSize } from '../../../shared/format.ts';
import { FILE_TEXTS, type FileEntry } from '../../../shared/schemas/files.ts';
import { shortDate } from '../../ui/dates.ts';
import { ConfirmDeleteButtons, FileVersionList, VersionsToggle } from './FileVersions.tsx';

export interface FileActions {
  onPreview: (file: FileEntry) => void;
  onDelete: (file: FileEntry) => void;
  /** Absent while the chat cannot take an attachment. */
  onAnalyze?: (file: FileEntry) => void;
  /** The file whose deletion or attachment is under way. */
  busyId: string | null;
  /** The last failed action's error, shown under its file's row. */
  rowError: { id: string; text: string } | null;
}

const iconButton = 'rounded p-1 text-gray-400 hover:bg-gray-800 hover:text-white disabled:opacity-40';

function Icon({ children }: { children: ReactNode }) {
  return (
    <svg
      aria-hidden
      viewBox="0 0 24 24"
      className="h-4 w-4"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      {children}
    </svg>
  );
}

function FileRow({ file, actions, canDelete }: { file: FileEntry; actions: FileActions; canDelete: boolean }) {
  const [confirming, setConfirming] = useState(false);
  const [versionsOpen, setVersionsOpen] = useState(false);
  const versionsId = useId();
  const busy = actions.busyId === file.id;
  const error = actions.rowError?.id === file.id ? actions.rowError.text : null;
  return (
    <li className="rounded border border-gray-800 bg-gray-800/40 px-2 py-1.5" data-testid="file-row">
      <div className="flex items-center gap-2">
        <div className="min-w-0 flex-1">
          <p className="truncate text-sm text-white" title={file.original_filename}>
            {file.original_filename}
          </p>
          <p className="flex flex-wrap items-center gap-x-1 text-xs text-gray-400">
            <span data-testid="file-size">{formatFileSize(file.file_size)}</span>
            <span aria-hidden>·</span>
            <time dateTime={file.upload_date}>{shortDate(file.upload_date)}</time>
            <VersionsToggle
              file={file}
              open={versionsOpen}
              listId={versionsId}
              onToggle={() => setVersionsOpen((open) => !open)}
            />
          </p>
        </div>
        {!confirming && (
          <div className="flex shrink-0 items-center">
            <button
              type="button"
              className={iconButton}
              aria-label={`Preview ${file.original_filename}`}
              title="Preview"
              onClick={() => actions.onPreview(file)}
            >
              <Icon>
                <path d="M2 12s3.5-7 10-7 10 7 10 7-3.5 7-10 7S2 12 2 12z" />
                <circle cx="12" cy="12" r="3" />
              </Icon>
            </button>
            <a
              className={iconButton}
              href={file.url}
              download={file.original_filename}
              aria-label={`Download ${file.original_filename}`}
              title="Download"
            >
              <Icon>
                <path d="M12 3v12m0 0-4-4m4 4 4-4M4 19h16" />
              </Icon>
            </a>
            {actions.onAnalyze && (
              <button
                type="button"
                className={iconButton}
                aria-label={`Analyze ${file.original_filename} with AI`}
                title="Analyze with AI"
                disabled={busy}
                onClick={() => actions.onAnalyze?.(file)}
              >
                <Icon>
                  <path d="M12 3l1.9 4.6L18.5 9.5l-4.6 1.9L12 16l-1.9-4.6L5.5 9.5l4.6-1.9z" />
                  <path d="M19 15l.8 2.2L22 18l-2.2.8L19 21l-.8-2.2L16 18l2.2-.8z" />
                </Icon>
              </button>
            )}
            {canDelete && (
              <button
                type="button"
                className={`${iconButton} hover:text-red-400`}
                aria-label={`Delete ${file.original_filename}`}
                title="Delete"
                disabled={busy}
                onClick={() => setConfirming(true)}
              >
                <Icon>
                  <path d="M4 7h16M10 11v6M14 11v6M6 7l1 13h10l1-13M9 7V4h6v3" />
                </Icon>
              </button>
            )}
          </div>
        )}
      </div>
      {versionsOpen && file.versions > 1 && <FileVersionList file={file} listId={versionsId} canDelete={canDelete} />}
      {error && (
        <p role="alert" className="mt-1 text-xs text-red-400">
          {error}
        </p>
      )}
      {confirming && (
        <div className="mt-1 flex items-center gap-2 text-xs">
          <span className="flex-1 text-gray-300">
            {file.versions > 1 ? `Delete this file and all ${file.versions} versions?` : 'Delete this file?'}
          </span>
          <ConfirmDeleteButtons onDelete={() => actions.onDelete(file)} onCancel={() => setConfirming(false)} />
        </div>
      )}
    </li>
  );
}

/** The list, or docs/SPEC.md's loading, failure or empty text in its place. */
export function FileRows({
  files,
  state,
  emptyText,
  actions,
  canDelete,
}: {
  files: FileEntry[];
  state: 'loading' | 'failed' | 'ready';
  emptyText: string;
  actions: FileActions;
  /** True for the trader's own files. */
  canDelete: boolean;
}) {
  if (state === 'loading') return <p className="text-sm text-gray-400">{FILE_TEXTS.loadingFiles}</p>;
  if (state === 'failed') return <p className="text-sm text-red-400">{FILE_TEXTS.fetchFailed}</p>;
  if (files.length === 0) return <p className="text-sm text-gray-400">{emptyText}</p>;
  return (
    <ul className="space-y-1.5">
      {files.map((file) => (
        <FileRow key={file.id} file={file} actions={actions} canDelete={canDelete} />
      ))}
    </ul>
  );
}
