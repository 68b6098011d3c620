// My Stuff's contract (docs/SPEC.md sections 3, 5, 7 and 8), shared by the server and the browser:
// the accepted spreadsheet types, the file and sheet-metadata shapes, the Google Sheets link
// rule, and the texts docs/SPEC.md quotes for the file manager.
import { z } from 'zod';
import { textPathId } from './pathIds.ts';

export type SpreadsheetKind = 'csv' | 'xlsx' | 'xls';

/** The MIME type we store and serve for each kind. */
export const SPREADSHEET_MIME_TYPES: Record<SpreadsheetKind, string> = {
  csv: 'text/csv',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/**
 * docs/SPEC.md section 5: an upload's MIME type must be one of these three, whatever its
 * extension (Windows browsers send the legacy Excel type for .csv files).
 */
const ACCEPTED_UPLOAD_MIME_TYPES: readonly string[] = Object.values(SPREADSHEET_MIME_TYPES);

/** The file picker's filter. */
export const UPLOAD_ACCEPT =
  '.csv,.xls,.xlsx,text/csv,application/vnd.ms-excel,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A MIME type without parameters, lower-cased: `text/csv; charset=utf-8` -> `text/csv`. */
function bareMimeType(value: string): string {
  return value.split(';')[0]!.trim().toLowerCase();
}

export function isAcceptedUploadMimeType(value: string): boolean {
  return ACCEPTED_UPLOAD_MIME_TYPES.includes(bareMimeType(value));
}

/**
 * Characters that never belong in a name shown to a trader: controls (C0, DEL, C1), format
 * characters (the bidi embeddings, overrides and isolates U+202A-U+202E and U+2066-U+2069,
 * the marks U+200E, U+200F and U+061C, zero-width characters, the BOM), line and paragraph
 * separators and lone surrogates. A bidi override can make "invoice\u202Eslx.exe" read as
 * "invoiceexe.xls"; a zero-width character can hide inside an extension.
 */
const INVISIBLE_OR_CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/**
 * The one sanitiser for names that are stored and shown (upload and publish-file names, and
 * any name the server lists): NFC, without control, format or separator characters, trimmed.
 * The extension check runs on its result, so what is shown is what was checked.
 */
export function sanitizeDisplayName(name: string): string {
  return name.normalize('NFC').replace(INVISIBLE_OR_CONTROL, '').trim();
}

/** The texts docs/SPEC.md quotes for My Stuff, written once. */
export const FILE_TEXTS = {
  yourFiles: 'Your Files',
  publicFiles: 'Public Files',
  sheetFiles: 'Wisesheet Files',
  noOwnFiles: 'No files uploaded yet',
  noPublicFiles: 'No public files available',
  noSheetFiles: 'No Wisesheet files loaded yet',
  loadingFiles: 'Loading files...',
  loadingSheetFiles: 'Loading Wisesheet files...',
  uploadSuccessful: 'Upload successful!',
  wrongType: 'Please select a CSV or Excel file.',
  notSignedIn: 'Please log in to upload files.',
  uploadFailed: 'Upload failed.',
  fetchFailed: 'Failed to fetch files',
  deleteFailed: 'Failed to delete file',
  sheetMetadataFailed: 'Error fetching sheet metadata',
} as const;

/** docs/SPEC.md section 3: a file as listed; `uploaded_by_user_id` null means a public file. */
const fileEntrySchema = z.object({
  id: z.string(),
  original_filename: z.string(),
  file_size: z.number().int().nonnegative(),
  /** UTC ISO-8601. */
  upload_date: z.string(),
  /** The authenticated download route of this file. */
  url: z.string(),
  uploaded_by_user_id: z.string().nullable(),
  /** The number of the version listed (uploading a file again with the same name adds one). */
  version: z.number().int().positive(),
  /** How many versions of the file are stored: the listed one and the earlier ones kept. */
  versions: z.number().int().positive(),
});
export type FileEntry = z.infer<typeof fileEntrySchema>;

/** One stored version of a file, as GET /files/{id}/versions lists it. */
const fileVersionEntrySchema = z.object({
  version: z.number().int().positive(),
  file_size: z.number().int().nonnegative(),
  /** When this version was uploaded, UTC ISO-8601. */
  upload_date: z.string(),
  /** The authenticated download route of this version. */
  url: z.string(),
  /** True for the version the file is now (the one GET /files lists). */
  current: z.boolean(),
});
export type FileVersionEntry = z.infer<typeof fileVersionEntrySchema>;

/** GET /files/{id}/versions: every stored version, newest (the current one) first. */
export const fileVersionListSchema = z.object({
  file_id: z.string(),
  original_filename: z.string(),
  versions: z.array(fileVersionEntrySchema),
});
export type FileVersionList = z.infer<typeof fileVersionListSchema>;

export const fileListSchema = z.object({
  files: z.array(fileEntrySchema),
  /** UPLOAD_MAX_MB in bytes, so the browser can refuse a too-large file before sending it. */
  max_upload_bytes: z.number().int().positive(),
});
export type FileListing = z.infer<typeof fileListSchema>;

export const uploadResultSchema = z.object({ success: z.literal(true), file: fileEntrySchema });
export type UploadResult = z.infer<typeof uploadResultSchema>;

/** DELETE /files/{id} (every version) and DELETE /files/{id}/versions/{version} (an earlier one). */
export const deleteFileResultSchema = z.object({ success: z.literal(true) });

/** The first rows of each table of a file (one for CSV, one a non-empty worksheet for xlsx). */
export const filePreviewSchema = z.object({
  tables: z.array(
    z.object({
      sheet: z.string().nullable(),
      columns: z.array(z.string()),
      rows: z.array(z.array(z.string())),
      totalRows: z.number().int().nonnegative(),
      truncated: z.boolean(),
    }),
  ),
});
export type FilePreview = z.infer<typeof filePreviewSchema>;

export const fileIdParams = z.object({ id: textPathId });

/** A version in a path: a positive whole number. */
export const fileVersionParams = fileIdParams.extend({
  version: z.coerce
    .number({ error: 'The version must be a whole number, 1 or more.' })
    .int('The version must be a whole number, 1 or more.')
    .positive('The version must be a whole number, 1 or more.')
    .max(2_147_483_647, 'The version must be a whole number, 1 or more.'),
});

/** A Google spreadsheet link: the editor's id, or the id of a sheet published to the web. */
export type GoogleSheetRef = { kind: 'spreadsheet'; id: string } | { kind: 'published'; id: string };

export const SHEET_URL_RULE = 'Paste a Google Sheets link (https://docs.google.com/spreadsheets/d/...).';

/**
 * The spreadsheet a link names, or null when it is not an https docs.google.com spreadsheet
 * link. Only the id is taken from the link: the server builds every URL it fetches itself.
 */
export function parseGoogleSheetUrl(value: string): GoogleSheetRef | null {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return null;
  }
  if (
    url.protocol !== 'https:' ||
    url.hostname !== 'docs.google.com' ||
    url.port !== '' ||
    url.username !== '' ||
    url.password !== ''
  )
    return null;
  const published = /^\/spreadsheets(?:\/u\/\d+)?\/d\/e\/([A-Za-z0-9_-]{20,200})(?:\/|$)/.exec(url.pathname);
  if (published) return { kind: 'published', id: published[1]! };
  const editor = /^\/spreadsheets(?:\/u\/\d+)?\/d\/([A-Za-z0-9_-]{20,200})(?:\/|$)/.exec(url.pathname);
  return editor ? { kind: 'spreadsheet', id: editor[1]! } : null;
}

export const sheetMetadataBody = z.object({
  sheet_url: z
    .string()
    .trim()
    .max(2000, 'sheet_url is too long')
    .refine((value) => parseGoogleSheetUrl(value) !== null, SHEET_URL_RULE),
});

export const sheetMetadataSchema = z.object({ sheet_names: z.array(z.string()) });

export const linkedSheetSchema = z.object({ sheet_url: z.string().nullable() });
export type LinkedSheet = z.infer<typeof linkedSheetSchema>;
