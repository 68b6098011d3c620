// The file manager 'My Stuff' (docs/SPEC.md): three columns, 'Your Files' with the upload button,
// 'Public Files', and the linked spreadsheet's sheets. Upload checks the sign-in and the MIME
// type first (docs/SPEC.md's texts), shows a progress bar, then 'Upload successful!' and the list
// refreshes. Beyond docs/SPEC.md: a preview of a file's first rows and 'Analyze with AI', which
// hands the file to the chat's input bar. Fits the 400px file-list height (columns scroll);
// on a phone the columns stack.
import { Panel } from '../../ui/Panel.tsx';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useRef, useState } from 'react';
import { FILE_TEXTS, UPLOAD_ACCEPT, type FileEntry } from '../../../shared/schemas/files.ts';
import { ApiError } from '../../api/http.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { useAuth } from '../../auth/AuthProvider.tsx';
import { useAttachToChat } from '../chat/index.ts';
import { useShowDashboardTab } from '../layout/index.ts';
import { FilePreviewDialog } from './FilePreviewDialog.tsx';
import { FileRows, type FileActions } from './FileRows.tsx';
import { deleteFile, fetchFiles, fileForChat, uploadFile } from './filesApi.ts';
import { LinkedSheetColumn } from './LinkedSheetColumn.tsx';
import { uploadRefusal } from './uploadRules.ts';

type Status = { tone: 'success' | 'error'; text: string } | null;

const COLUMN = 'flex min-h-0 min-w-0 flex-col rounded-md border border-gray-800 bg-gray-950/40 p-2';
/** Same height in every column, so the three titles line up. */
const HEADER = 'flex h-7 items-center justify-between gap-2';
const LIST = 'mt-2 max-h-72 min-h-0 flex-1 overflow-y-auto pr-1 md:max-h-none';

function StatusLine({ status }: { status: Status }) {
  if (!status) return null;
  return status.tone === 'success' ? (
    <p role="status" className="mt-1 text-xs text-green-400">
      {status.text}
    </p>
  ) : (
    <p role="alert" className="mt-1 text-xs text-red-400">
      {status.text}
    </p>
  );
}

export function MyStuff() {
  const { user } = useAuth();
  const attachToChat = useAttachToChat();
  const showTab = useShowDashboardTab();
  const queryClient = useQueryClient();
  const listing = useQuery({ queryKey: queryKeys.files.list, queryFn: fetchFiles, enabled: Boolean(user) });
  const input = useRef<HTMLInputElement>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [uploadStatus, setUploadStatus] = useState<Status>(null);
  const [panelStatus, setPanelStatus] = useState<Status>(null);
  const [previewing, setPreviewing] = useState<FileEntry | null>(null);
  const [busyId, setBusyId] = useState<string | null>(null);
  const [rowError, setRowError] = useState<FileActions['rowError']>(null);
  /** A new action replaces the messages of earlier ones (no stale success or error stays). */
  const clearMessages = () => {
    setPanelStatus(null);
    setRowError(null);
    setUploadStatus(null);
  };
  const closePreview = useCallback(() => setPreviewing(null), []);

  /**
   * Reads the list again after a change. A first read still in flight (the panel just mounted)
   * would answer the invalidation with its own, older answer: TanStack Query joins an in-flight
   * fetch of a query that has no data yet instead of starting another. So it is cancelled first.
   */
  async function refreshList() {
    await queryClient.cancelQueries({ queryKey: queryKeys.files.list });
    await queryClient.invalidateQueries({ queryKey: queryKeys.files.list });
  }

  const remove = useMutation({
    mutationFn: (file: FileEntry) => deleteFile(file.id),
    onMutate: (file) => {
      setBusyId(file.id);
      clearMessages();
    },
    // docs/SPEC.md's 'Failed to delete file', with the server's reason when it gave one.
    onError: (error, file) =>
      setRowError({
        id: file.id,
        text:
          error instanceof ApiError && error.message && !error.message.startsWith('API error:')
            ? `${FILE_TEXTS.deleteFailed}: ${error.message}`
            : FILE_TEXTS.deleteFailed,
      }),
    onSettled: () => {
      setBusyId(null);
      return refreshList();
    },
  });

  async function upload(file: File) {
    const refusal = uploadRefusal(file, Boolean(user), listing.data?.max_upload_bytes);
    clearMessages();
    if (refusal) setUploadStatus({ tone: 'error', text: refusal });
    if (refusal || !user) return;
    setProgress(0);
    try {
      await uploadFile(file, user, setProgress);
      setUploadStatus({ tone: 'success', text: FILE_TEXTS.uploadSuccessful });
      await refreshList();
    } catch (error) {
      setUploadStatus({
        tone: 'error',
        text: error instanceof Error && error.message ? error.message : FILE_TEXTS.uploadFailed,
      });
    } finally {
      setProgress(null);
    }
  }

  async function analyze(file: FileEntry) {
    if (!attachToChat) return;
    setBusyId(file.id);
    clearMessages();
    try {
      attachToChat(await fileForChat(file));
      setPanelStatus({ tone: 'success', text: `${file.original_filename} is attached to the chat.` });
      // On a phone the chat is on the AI tab.
      showTab('ai');
      requestAnimationFrame(() =>
        document.querySelector('[data-tour="chat"]')?.scrollIntoView({ behavior: 'smooth', block: 'center' }),
      );
    } catch {
      setPanelStatus({ tone: 'error', text: 'The file could not be attached to the chat.' });
    } finally {
      setBusyId(null);
    }
  }

  const actions: FileActions = {
    onPreview: (file) => {
      clearMessages();
      setPreviewing(file);
    },
    onDelete: (file) => remove.mutate(file),
    onAnalyze: attachToChat ? (file) => void analyze(file) : undefined,
    busyId,
    rowError,
  };
  // docs/SPEC.md: on a failed fetch the lists are emptied and the error shows in their place.
  const state = listing.isError ? 'failed' : listing.isPending ? 'loading' : 'ready';
  const files = listing.isError ? [] : (listing.data?.files ?? []);
  const own = files.filter((file) => user && file.uploaded_by_user_id === user.id);
  const shared = files.filter((file) => file.uploaded_by_user_id === null);
  const uploading = progress !== null;

  return (
    <Panel
      headingId="my-stuff-heading"
      title="My Stuff"
      className="flex flex-col md:h-[400px]"
      headerClassName="flex items-baseline justify-between gap-2"
      header={<StatusLine status={panelStatus} />}
      data-tour="files"
    >
      <div className="mt-2 grid min-h-0 flex-1 grid-cols-1 gap-3 md:grid-cols-3">
        <section className={COLUMN} aria-label={FILE_TEXTS.yourFiles}>
          <div className={HEADER}>
            <h3 className="text-sm font-semibold text-gray-200">{FILE_TEXTS.yourFiles}</h3>
            <button
              type="button"
              disabled={uploading}
              onClick={() => input.current?.click()}
              className="flex items-center gap-1 rounded bg-indigo-600 px-2 py-1 text-xs font-semibold text-white hover:bg-indigo-500 disabled:opacity-60"
            >
              <svg
                aria-hidden
                viewBox="0 0 24 24"
                className="h-3.5 w-3.5"
                fill="none"
                stroke="currentColor"
                strokeWidth="2.5"
                strokeLinecap="round"
              >
                <path d="M12 16V4m0 0-4 4m4-4 4 4M4 20h16" />
              </svg>
              {uploading ? 'Uploading...' : 'Upload'}
            </button>
            <input
              ref={input}
              type="file"
              accept={UPLOAD_ACCEPT}
              aria-label="Choose a CSV or Excel file to upload"
              className="hidden"
              onChange={(event) => {
                const file = event.target.files?.[0];
                // Cleared so choosing the same file again uploads it again.
                event.target.value = '';
                if (file) void upload(file);
              }}
            />
          </div>
          {uploading && (
            <div
              className="mt-2"
              role="progressbar"
              aria-label="Upload progress"
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={Math.round(progress * 100)}
            >
              <div className="h-1.5 overflow-hidden rounded bg-gray-800">
                <div
                  className="h-full bg-indigo-500 transition-[width]"
                  style={{ width: `${Math.round(progress * 100)}%` }}
                />
              </div>
              <p className="mt-0.5 text-[11px] text-gray-400">{Math.round(progress * 100)}%</p>
            </div>
          )}
          <StatusLine status={uploadStatus} />
          <div className={LIST}>
            <FileRows files={own} state={state} emptyText={FILE_TEXTS.noOwnFiles} actions={actions} canDelete />
          </div>
        </section>
        <section className={COLUMN} aria-label={FILE_TEXTS.publicFiles}>
          <div className={HEADER}>
            <h3 className="text-sm font-semibold text-gray-200">{FILE_TEXTS.publicFiles}</h3>
          </div>
          <div className={LIST}>
            <FileRows
              files={shared}
              state={state}
              emptyText={FILE_TEXTS.noPublicFiles}
              actions={actions}
              canDelete={false}
            />
          </div>
        </section>
        <LinkedSheetColumn columnClass={COLUMN} headerClass={HEADER} listClass={LIST} />
      </div>
      {previewing && <FilePreviewDialog file={previewing} onClose={closePreview} />}
    </Panel>
  );
}
