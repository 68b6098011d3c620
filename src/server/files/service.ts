// My Stuff's public surface: what the rest of the server (the composition root, the
// assistant's tools, the admin CLI, the test fakes) may use of the files feature, and the
// `linked_sheets` table. The `files` and `file_versions` tables are read and written only in
// fileRecords.ts (which holds the one "visible file" rule and file versions), `linked_sheets`
// only here; none is touched by Drizzle anywhere else. Failures are DomainErrors with the
// trader's text.
import { eq } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { linkedSheets } from '../db/schema.ts';

export {
  findFile,
  findVisibleFileByIdOrName,
  listPublicFiles,
  listVisibleFiles,
  recordStoredFile,
  removeFile,
  scheduleOrphanReclaim,
} from './fileRecords.ts';
export { createSheetNameReader, type GoogleSheetsLocation } from './sheets.ts';
export {
  analyseFile,
  maxPain,
  parseNumber,
  profileColumn,
  type ChainAnalysis,
  type ColumnProfile,
  type FileAnalysis,
  type TableAnalysis,
} from './fileAnalysis.ts';
export { createFileStorage } from './storage.ts';
export { StoredObjectMissingError, type FileStorage } from './storageTypes.ts';
export {
  readAndAnalyse,
  readTables,
  spreadsheetKindOf,
  SPREADSHEET_MIME_TYPES,
  TableReadError,
} from './tableReader.ts';
export { safeOriginalFilename, storeSpreadsheet } from './uploads.ts';
export { UnsafeArchiveError } from './zipGuard.ts';

/** The Google spreadsheet link the user saved, or null. */
export async function loadLinkedSheet(db: Database, userId: string): Promise<string | null> {
  const [row] = await db.select().from(linkedSheets).where(eq(linkedSheets.userId, userId));
  return row?.sheetUrl ?? null;
}

/** Saves (or replaces) the user's linked Google spreadsheet. */
export async function saveLinkedSheet(db: Database, userId: string, sheetUrl: string): Promise<void> {
  await db
    .insert(linkedSheets)
    .values({ userId, sheetUrl })
    .onConflictDoUpdate({ target: linkedSheets.userId, set: { sheetUrl, updatedAt: new Date() } });
}

/** Forgets the user's linked spreadsheet (nothing saved is fine). */
export async function unlinkSheet(db: Database, userId: string): Promise<void> {
  await db.delete(linkedSheets).where(eq(linkedSheets.userId, userId));
}
