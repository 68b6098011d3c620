// My Stuff's calls from the browser: the file list, upload (XMLHttpRequest, for its upload
// progress events), delete, preview, a file as a browser File for the chat, and the linked
// Google spreadsheet. Failures carry the server's error text, or SPEC.md's fallback.
import { ApiError, requestJson } from '../../api/http.ts';
import {
  FILE_TEXTS,
  type FileEntry,
  type FileListing,
  type FilePreview,
  type LinkedSheet,
  type SheetMetadata,
  type UploadResult,
} from '../../../shared/schemas/files.ts';

export const FILES_QUERY_KEY = ['files'] as const;
export const LINKED_SHEET_QUERY_KEY = ['linked-sheet'] as const;

export function fetchFiles(): Promise<FileListing> {
  return requestJson<FileListing>('/files');
}

export async function deleteFile(id: string): Promise<void> {
  await requestJson<{ success: true }>(`/files/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

export function fetchPreview(id: string): Promise<FilePreview> {
  return requestJson<FilePreview>(`/files/${encodeURIComponent(id)}/preview`);
}

/**
 * POST /upload as SPEC.md's multipart form (user_id, user_email, file). `onProgress` gets the
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
      if (request.status >= 200 && request.status < 300) return resolve(body as UploadResult);
      const message = (body as { error?: unknown } | undefined)?.error;
      reject(new ApiError(request.status, typeof message === 'string' && message ? message : FILE_TEXTS.uploadFailed));
    };
    request.onerror = () => reject(new Error(FILE_TEXTS.uploadFailed));
    request.onabort = () => reject(new Error(FILE_TEXTS.uploadFailed));
    request.send(form);
  });
}

/** The stored file as a browser File (same name and type), for the chat's attachment. */
export async function fileForChat(entry: FileEntry): Promise<File> {
  const response = await fetch(entry.url, { credentials: 'same-origin' });
  if (!response.ok) throw new ApiError(response.status, `The file could not be loaded (${response.status}).`);
  const blob = await response.blob();
  return new File([blob], entry.original_filename, { type: blob.type });
}

export function fetchLinkedSheet(): Promise<LinkedSheet> {
  return requestJson<LinkedSheet>('/api/sheets/linked');
}

export function unlinkSheet(): Promise<LinkedSheet> {
  return requestJson<LinkedSheet>('/api/sheets/linked', { method: 'DELETE' });
}

/** Sheet names of a Google spreadsheet; the server also saves it as the linked sheet. */
export async function fetchSheetNames(sheetUrl: string): Promise<string[]> {
  try {
    const metadata = await requestJson<SheetMetadata>('/sheets/metadata', {
      method: 'POST',
      body: JSON.stringify({ sheet_url: sheetUrl }),
    });
    return metadata.sheet_names;
  } catch (error) {
    if (error instanceof ApiError && !error.message.startsWith('API error:')) throw error;
    throw new Error(FILE_TEXTS.sheetMetadataFailed, { cause: error });
  }
}
