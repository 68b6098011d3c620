// The `files` table side of My Stuff: which files a user may see (their own and the public
// ones, never another user's), recording a stored object (the row only after the object is
// complete, and the object removed again if the row cannot be written), removal, and
// reclaiming objects no row names (what a killed process or a failed delete leaves).
import { randomUUID } from 'node:crypto';
import { and, desc, eq, inArray, isNull, or } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { files } from '../db/schema.ts';
import type { FileEntry } from '../../shared/schemas/files.ts';
import type { FileStorage } from './storage.ts';
import type { StoredSpreadsheet } from './uploads.ts';

export type FileRow = typeof files.$inferSelect;

export function fileDownloadPath(id: string): string {
  return `/files/${encodeURIComponent(id)}/download`;
}

export function toFileEntry(row: FileRow): FileEntry {
  return {
    id: row.id,
    original_filename: row.originalFilename,
    file_size: row.fileSize,
    upload_date: row.uploadDate.toISOString(),
    url: fileDownloadPath(row.id),
    uploaded_by_user_id: row.uploadedByUserId,
  };
}

const visibleTo = (userId: string) => or(eq(files.uploadedByUserId, userId), isNull(files.uploadedByUserId));

/** The user's own files and the public ones, newest first. */
export async function listVisibleFiles(db: Database, userId: string): Promise<FileRow[]> {
  return db.select().from(files).where(visibleTo(userId)).orderBy(desc(files.uploadDate), desc(files.id));
}

/** A file the user may read (own or public), or null: another user's file is simply not there. */
export async function findVisibleFile(db: Database, id: string, userId: string): Promise<FileRow | null> {
  const [row] = await db.select().from(files).where(and(eq(files.id, id), visibleTo(userId)));
  return row ?? null;
}

export async function findFile(db: Database, id: string): Promise<FileRow | null> {
  const [row] = await db.select().from(files).where(eq(files.id, id));
  return row ?? null;
}

/** Inserts the row for a completely stored object; `ownerId` null publishes it. */
export async function recordStoredFile(db: Database, storage: FileStorage, stored: StoredSpreadsheet, ownerId: string | null): Promise<FileRow> {
  try {
    const [row] = await db
      .insert(files)
      .values({
        id: randomUUID(),
        originalFilename: stored.originalFilename,
        storageKey: stored.storageKey,
        contentType: stored.contentType,
        fileSize: stored.size,
        uploadedByUserId: ownerId,
      })
      .returning();
    return row;
  } catch (error) {
    // Without its row the object is unreachable: remove it rather than leak storage.
    await storage.delete(stored.storageKey).catch(() => undefined);
    throw error;
  }
}

/**
 * Deletes the row, then the object. A crash between the two leaves an unreachable object,
 * never a listed file whose bytes are gone.
 */
export async function removeFile(db: Database, storage: FileStorage, row: FileRow): Promise<void> {
  await db.delete(files).where(eq(files.id, row.id));
  await storage.delete(row.storageKey);
}

/** An object this old with no row is left over, never an upload about to get its row. */
export const ORPHAN_MIN_AGE_MS = 60 * 60 * 1000;
const ORPHAN_BATCH = 500;

/**
 * Removes the stored objects no row names that are older than `olderThanMs`: a process killed
 * between an object completing and its row being written, or an object whose delete failed
 * after its row was gone. Answers how many were removed.
 */
export async function reclaimOrphanObjects(db: Database, storage: FileStorage, olderThanMs = ORPHAN_MIN_AGE_MS): Promise<number> {
  const cutoff = Date.now() - olderThanMs;
  let removed = 0;
  let batch: string[] = [];
  const settle = async () => {
    if (batch.length === 0) return;
    const named = new Set((await db.select({ key: files.storageKey }).from(files).where(inArray(files.storageKey, batch))).map((row) => row.key));
    for (const key of batch.filter((candidate) => !named.has(candidate))) {
      await storage.delete(key);
      removed += 1;
    }
    batch = [];
  };
  for await (const object of storage.list()) {
    if (object.modifiedAt.getTime() >= cutoff) continue;
    batch.push(object.key);
    if (batch.length >= ORPHAN_BATCH) await settle();
  }
  await settle();
  return removed;
}

/** Runs reclaimOrphanObjects a minute after start and then hourly; answers the stop function. */
export function scheduleOrphanReclaim(db: Database, storage: FileStorage, log: { info(fields: object, message: string): void; warn(fields: object, message: string): void }): () => void {
  const run = () =>
    reclaimOrphanObjects(db, storage).then(
      (removed) => {
        if (removed > 0) log.info({ removed }, 'removed stored objects that no file row names');
      },
      (error: unknown) => log.warn({ err: error }, 'could not reclaim unreferenced stored objects; trying again in an hour'),
    );
  const first = setTimeout(() => void run(), 60_000);
  const hourly = setInterval(() => void run(), ORPHAN_MIN_AGE_MS);
  first.unref();
  hourly.unref();
  return () => {
    clearTimeout(first);
    clearInterval(hourly);
  };
}
