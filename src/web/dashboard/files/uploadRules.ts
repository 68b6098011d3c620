// The browser's checks before an upload is sent (docs/SPEC.md section 5): a signed-in user first,
// then one of the three accepted MIME types, then the server's size limit when known.
import { formatFileSize } from '../../../shared/format.ts';
import { FILE_TEXTS, isAcceptedUploadMimeType } from '../../../shared/schemas/files.ts';

/** The message that stops this upload, or null when it may be sent. */
export function uploadRefusal(
  file: { type: string; size: number },
  signedIn: boolean,
  maxBytes: number | undefined,
): string | null {
  if (!signedIn) return FILE_TEXTS.notSignedIn;
  if (!isAcceptedUploadMimeType(file.type)) return FILE_TEXTS.wrongType;
  if (maxBytes !== undefined && file.size > maxBytes)
    return `The file is larger than the ${formatFileSize(maxBytes)} upload limit.`;
  return null;
}
