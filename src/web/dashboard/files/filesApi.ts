// My Stuff's calls from the browser: the file list, upload (XMLHttpRequest, for its upload
// progress events), delete, preview, a file's versions, a file as a browser File for the chat, and the linked
// Google spreadsheet. Every JSON answer is parsed with the schema the server serialised it
// with (src/shared/schemas/files.ts). Failures carry the server's error text, or docs/SPEC.md's fallback.
import { ApiError, apiFetch, apiSend, parseBody } from '../../api/http.ts';
import {
  deleteFileResultSchema,
  FILE_TEXTS,
  fileListSchema,
  filePreviewSchema,
  fileVersionListSchema,
  linkedSheetSchema,
  sheetMetadataSchema,
  uploadResultSchema,
  type FileEntry,
  type FileListing,
  type FilePreview,
  type FileVersionList,
  type LinkedSheet,
  type UploadResult,
} from '../../../shared/schemas/files.ts';

export function fetchFiles(): Promise<FileListing> {
  return apiFetch('/files', fileListSchema);
}

export async function deleteFile(id: string): Promise<void> {
  await apiSend('DELETE', `/files/${encodeURIComponent(id)}`, deleteFileResultSchema);
}

/** Every stored version of a file, newest (the current one) first. */
export function fetchVersions(id: string): Promise<FileVersionList> {
  return apiFetch(`/files/${encodeURIComponent(id)}/versions`, fileVersionListSchema);
}

/** Deletes one earlier version of a file (the current one goes only with the file). */
export async function deleteVersion(id: string, version: number): Promise<void> {
  await apiSend('DELETE', `/files/${encodeURIComponent(id)}/versions/${version}`, deleteFileResultSchema);
}

export function fetchPreview(id: string): Promise<FilePreview> {
  return apiFetch(`/files/${encodeURIComponent(id)}/preview`, filePreviewSchema);
}

/**
 * POST /upload as docs/SPEC.md's multipart form (user_id, user_email, file). `onProgress` gets the
 * share of bytes sent, 0 to 1. Rejects with the server's error text, or 'Upload failed.'.
 */
export function uploadFile(
  file: File,
  user: { id: string; email: string },
  onProgress: (share: number) => void,
): Promise<UploadResult> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    // The fields first, so the server checks them before reading the file.
    form.append('user_id', user.id);
    form.append('user_email', user.email);
    form.append('file', file);
    const request = new XMLHttpRequest();
    request.open('POST', '/upload');
    request.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    };
    request.onload = () => {
      let body: unknown;
      try {
        body = JSON.parse(request.responseText);
      } catch {
        body = undefined;
      }
      if (request.status >= 200 && request.status < 300) {
        try {
          return resolve(parseBody(uploadResultSchema, request.status, body));
        } catch (error) {
          return reject(error instanceof Error ? error : new Error(FILE_TEXTS.uploadFailed));
        }
      }
      const message = (body as { error?: unknown } | undefined)?.error;
      reject(new ApiError(request.status, typeof message === 'string' && message ? message : FILE_TEXTS.uploadFailed));
    };
    request.onerror = () => reject(new Error(FILE_TEXTS.uploadFailed));
    request.onabort = () => reject(new Error(FILE_TEXTS.uploadFailed));
    request.send(form);
  });
}

/**
 * The stored file as a browser File (same name and type), for the chat's attachment. The
 * download is the file's bytes, not JSON, so it is fetched as a blob, not through apiFetch.
 */
export async function fileForChat(entry: FileEntry): Promise<File> {
  const response = await fetch(entry.url, { credentials: 'same-origin' });
  if (!response.ok) throw new ApiError(response.status, `The file could not be loaded (${response.status}).`);
  const blob = await response.blob();
  return new File([blob], entry.original_filename, { type: blob.type });
}

export function fetchLinkedSheet(): Promise<LinkedSheet> {
  return apiFetch('/api/sheets/linked', linkedSheetSchema);
}

export function unlinkSheet(): Promise<LinkedSheet> {
  return apiSend('DELETE', '/api/sheets/linked', linkedSheetSchema);
}

/** Sheet names of a Google spreadsheet; the server also saves it as the linked sheet. */
export async function fetchSheetNames(sheetUrl: string): Promise<string[]> {
  try {
    const metadata = await apiSend('POST', '/sheets/metadata', sheetMetadataSchema, { sheet_url: sheetUrl });
    return metadata.sheet_names;
  } catch (error) {
    if (error instanceof ApiError && !error.message.startsWith('API error:')) throw error;
    throw new Error(FILE_TEXTS.sheetMetadataFailed, { cause: error });
  }
}
