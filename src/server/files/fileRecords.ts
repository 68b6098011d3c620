// The `files` table side of My Stuff: which files a user may see (their own and the public
// ones, never another user's), recording a stored object (the row only after the object is
// complete, and the object removed again if the row cannot be written), removal, and
// reclaiming objects no row names (what a killed process or a failed delete leaves).
import { randomUUID } from 'node:crypto';
import { and, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { files } from '../db/schema.ts';
import { tooLarge, type DomainError } from '../errors/domain.ts';
import { sanitizeDisplayName, type FileEntry } from '../../shared/schemas/files.ts';
import type { FileStorage } from './storageTypes.ts';
import type { StoredSpreadsheet } from './uploads.ts';

export type FileRow = typeof files.$inferSelect;

export function fileDownloadPath(id: string): string {
  return `/files/${encodeURIComponent(id)}/download`;
}

export function toFileEntry(row: FileRow): FileEntry {
  return {
    id: row.id,
    // Rows stored before names were sanitised on upload are cleaned on the way out too.
    original_filename: sanitizeDisplayName(row.originalFilename),
    file_size: row.fileSize,
    upload_date: row.uploadDate.toISOString(),
    url: fileDownloadPath(row.id),
    uploaded_by_user_id: row.uploadedByUserId,
  };
}

/**
 * The one "visible file" rule: a user sees their own files and the public ones (no owner),
 * never another user's. The file routes, the assistant's tools and the admin CLI all ask
 * through the functions below.
 */
const visibleTo = (userId: string) => or(eq(files.uploadedByUserId, userId), isNull(files.uploadedByUserId));

/** The user's own files and the public ones, newest first (at most `limit` when given). */
export async function listVisibleFiles(
  db: Database,
  userId: string,
  options: { limit?: number } = {},
): Promise<FileRow[]> {
  const query = db.select().from(files).where(visibleTo(userId)).orderBy(desc(files.uploadDate), desc(files.id));
  return options.limit === undefined ? query : query.limit(options.limit);
}

/** A file the user may read (own or public), or null: another user's file is simply not there. */
export async function findVisibleFile(db: Database, id: string, userId: string): Promise<FileRow | null> {
  const [row] = await db
    .select()
    .from(files)
    .where(and(eq(files.id, id), visibleTo(userId)));
  return row ?? null;
}

/** The newest file the user may read whose id or original name is `idOrName`, or null. */
export async function findVisibleFileByIdOrName(
  db: Database,
  userId: string,
  idOrName: string,
): Promise<FileRow | null> {
  const [row] = await db
    .select()
    .from(files)
    .where(and(visibleTo(userId), or(eq(files.id, idOrName), eq(files.originalFilename, idOrName))))
    .orderBy(desc(files.uploadDate))
    .limit(1);
  return row ?? null;
}

/** The public files (no owner), newest first: the operator's list-public-files. */
export async function listPublicFiles(db: Database): Promise<FileRow[]> {
  return db.select().from(files).where(isNull(files.uploadedByUserId)).orderBy(desc(files.uploadDate));
}

export async function findFile(db: Database, id: string): Promise<FileRow | null> {
  const [row] = await db.select().from(files).where(eq(files.id, id));
  return row ?? null;
}

/** What one user may keep in My Stuff (FILES_MAX_PER_USER, FILES_MAX_TOTAL_MB); public files do not count. */
export interface FileQuota {
  maxFiles: number;
  maxBytes: number;
}

export interface QuotaUsage {
  files: number;
  bytes: number;
}

type Queryable = Pick<Database, 'select'>;

/** How many files and bytes a user's own files take. */
export async function quotaUsage(db: Queryable, userId: string): Promise<QuotaUsage> {
  const [usage] = await db
    .select({ files: sql<number>`count(*)::int`, bytes: sql<number>`coalesce(sum(${files.fileSize}), 0)::float8` })
    .from(files)
    .where(eq(files.uploadedByUserId, userId));
  return { files: Number(usage?.files ?? 0), bytes: Number(usage?.bytes ?? 0) };
}

const megabytes = (bytes: number) => `${+(bytes / 1024 / 1024).toFixed(2)}`;

/**
 * The refusal for adding a file of `addingBytes` on top of `usage`, or null when it fits.
 * `addingBytes` 0 asks whether anything at all could still be added (the check before a byte
 * of the upload is read).
 */
export function quotaRefusal(usage: QuotaUsage, quota: FileQuota, addingBytes: number): DomainError | null {
  if (usage.files + 1 > quota.maxFiles) {
    return tooLarge(
      `You have ${usage.files} files, the most you can keep is ${quota.maxFiles}. Delete some files to upload more.`,
    );
  }
  if (usage.bytes + Math.max(addingBytes, 1) > quota.maxBytes) return bytesQuotaError(usage.bytes, quota.maxBytes);
  return null;
}

export function bytesQuotaError(usedBytes: number, maxBytes: number): DomainError {
  return tooLarge(
    `Your files use ${megabytes(usedBytes)} of ${megabytes(maxBytes)} MB. Delete some files to upload more.`,
  );
}

/**
 * Lock class of the per-user quota lock (the other key is hashtext(user id)). Two-key advisory
 * locks never collide with the one-key leader lock of the alert engine.
 */
const QUOTA_LOCK_CLASS = 0x57_46_51_00;

/**
 * Inserts the row for a completely stored object; `ownerId` null publishes it. With a quota
 * (a user's upload), the row is written only if it fits: the check and the insert run in one
 * transaction holding a per-user advisory lock, so concurrent uploads of one user, on any
 * number of instances sharing the database, are counted one after another and can never
 * together pass the quota. A refused or failed row removes the stored object again.
 */
export async function recordStoredFile(
  db: Database,
  storage: FileStorage,
  stored: StoredSpreadsheet,
  ownerId: string | null,
  quota?: FileQuota,
): Promise<FileRow> {
  const values = {
    id: randomUUID(),
    originalFilename: stored.originalFilename,
    storageKey: stored.storageKey,
    contentType: stored.contentType,
    fileSize: stored.size,
    uploadedByUserId: ownerId,
  };
  try {
    if (!quota || ownerId === null) {
      const [row] = await db.insert(files).values(values).returning();
      return row;
    }
    return await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${sql.raw(String(QUOTA_LOCK_CLASS))}, hashtext(${ownerId}))`);
      const refusal = quotaRefusal(await quotaUsage(tx, ownerId), quota, stored.size);
      if (refusal) throw refusal;
      const [row] = await tx.insert(files).values(values).returning();
      return row;
    });
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
 * after its row was gone. Then aborts the incomplete uploads started before then (on S3, a
 * multipart upload whose abort failed when its body was refused, or whose writer was killed).
 * Answers how many objects were removed and uploads aborted.
 */
export async function reclaimOrphanObjects(
  db: Database,
  storage: FileStorage,
  olderThanMs = ORPHAN_MIN_AGE_MS,
): Promise<{ objects: number; uploads: number }> {
  const cutoff = Date.now() - olderThanMs;
  let removed = 0;
  let batch: string[] = [];
  const settle = async () => {
    if (batch.length === 0) return;
    const named = new Set(
      (await db.select({ key: files.storageKey }).from(files).where(inArray(files.storageKey, batch))).map(
        (row) => row.key,
      ),
    );
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
  const uploads = await storage.abortStaleUploads(new Date(cutoff));
  return { objects: removed, uploads };
}

/** Runs reclaimOrphanObjects a minute after start and then hourly; answers the stop function. */
export function scheduleOrphanReclaim(
  db: Database,
  storage: FileStorage,
  log: { info(fields: object, message: string): void; warn(fields: object, message: string): void },
): () => void {
  const run = () =>
    reclaimOrphanObjects(db, storage).then(
      ({ objects, uploads }) => {
        if (objects > 0) log.info({ removed: objects }, 'removed stored objects that no file row names');
        if (uploads > 0) log.info({ aborted: uploads }, 'aborted incomplete uploads older than an hour');
      },
      (error: unknown) =>
        log.warn(
          { err: error },
          'could not reclaim unreferenced stored objects or incomplete uploads; trying again in an hour',
        ),
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
