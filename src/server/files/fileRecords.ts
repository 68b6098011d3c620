// The `files` and `file_versions` tables of My Stuff: which files a user may see (their own
// and the public ones, never another user's), recording a stored object (the row only after
// the object is complete, and the object removed again if the row cannot be written), file
// versions (a user's upload with the name of a file they own becomes its new version, the
// earlier ones kept), removal, and reclaiming objects no row names (what a killed process or a
// failed delete leaves).
import { randomUUID } from 'node:crypto';
import { and, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { files, fileVersions } from '../db/schema.ts';
import { onlyRow, rowsOf } from '../db/rows.ts';
import { tooLarge, type DomainError } from '../errors/domain.ts';
import { sanitizeDisplayName, type FileEntry, type FileVersionEntry } from '../../shared/schemas/files.ts';
import type { FileStorage } from './storageTypes.ts';
import type { StoredSpreadsheet } from './uploads.ts';

export type FileRow = typeof files.$inferSelect;

function fileDownloadPath(id: string): string {
  return `/files/${encodeURIComponent(id)}/download`;
}

function fileVersionDownloadPath(id: string, version: number): string {
  return `/files/${encodeURIComponent(id)}/versions/${version}/download`;
}

/** The listed file; `versions` is how many versions of it are stored (fileVersionCounts). */
export function toFileEntry(row: FileRow, versions = 1): FileEntry {
  return {
    id: row.id,
    // Rows stored before names were sanitised on upload are cleaned on the way out too.
    original_filename: sanitizeDisplayName(row.originalFilename),
    file_size: row.fileSize,
    upload_date: row.uploadDate.toISOString(),
    url: fileDownloadPath(row.id),
    uploaded_by_user_id: row.uploadedByUserId,
    version: row.version,
    versions,
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

/** What a user's own files take: every stored version counts, the earlier ones as well. */
export interface QuotaUsage {
  /** Stored versions of the user's files: one a file, plus its earlier versions. */
  files: number;
  bytes: number;
  /** How many of `files` are earlier versions. */
  earlierVersions: number;
}

type Queryable = Pick<Database, 'execute'>;

interface UsageRow {
  files: number;
  bytes: number;
  earlier_files: number;
  earlier_bytes: number;
}

/** One statement: the user's files and their earlier versions, counted and summed. */
const usageOf = (userId: string) => sql`
  select count(*)::int as files, coalesce(sum(f.file_size), 0)::float8 as bytes,
    coalesce(sum(v.count), 0)::int as earlier_files, coalesce(sum(v.bytes), 0)::float8 as earlier_bytes
  from ${files} f
  left join lateral (
    select count(*) as count, sum(file_size) as bytes from ${fileVersions} where file_id = f.id
  ) v on true
  where f.uploaded_by_user_id = ${userId}`;

function toUsage(row: UsageRow): QuotaUsage {
  const earlierVersions = Number(row.earlier_files);
  return {
    files: Number(row.files) + earlierVersions,
    bytes: Number(row.bytes) + Number(row.earlier_bytes),
    earlierVersions,
  };
}

/** How many stored versions and bytes a user's own files take, earlier versions included. */
export async function quotaUsage(db: Queryable, userId: string): Promise<QuotaUsage> {
  return toUsage(onlyRow(rowsOf<UsageRow>(await db.execute(usageOf(userId)))));
}

const megabytes = (bytes: number) => `${+(bytes / 1024 / 1024).toFixed(2)}`;

/**
 * The refusal for adding a file of `addingBytes` on top of `usage`, or null when it fits.
 * `addingBytes` 0 asks whether anything at all could still be added (the check before a byte
 * of the upload is read).
 */
export function quotaRefusal(usage: QuotaUsage, quota: FileQuota, addingBytes: number): DomainError | null {
  if (usage.files + 1 > quota.maxFiles) {
    if (usage.earlierVersions === 0)
      return tooLarge(
        `You have ${usage.files} files, the most you can keep is ${quota.maxFiles}. Delete some files to upload more.`,
      );
    return tooLarge(
      `You have ${usage.files} files, ${usage.earlierVersions} of them earlier versions, the most you can keep is ${quota.maxFiles}. ${DELETE_TO_MAKE_ROOM}`,
    );
  }
  if (usage.bytes + Math.max(addingBytes, 1) > quota.maxBytes) return bytesQuotaError(usage, quota.maxBytes);
  return null;
}

const DELETE_TO_MAKE_ROOM = 'Delete some files or earlier versions to upload more.';

export function bytesQuotaError(usage: QuotaUsage, maxBytes: number): DomainError {
  const used = `${megabytes(usage.bytes)} of ${megabytes(maxBytes)} MB`;
  if (usage.earlierVersions === 0) return tooLarge(`Your files use ${used}. Delete some files to upload more.`);
  return tooLarge(`Your files use ${used}, earlier versions included. ${DELETE_TO_MAKE_ROOM}`);
}

/** A recorded file's row and how many versions of it are stored (fileVersionCounts). */
export type RecordedFile = FileRow & { versions: number };

/** The newest file of a name (all null without one), as recordStoredFile reads it. */
type ExistingRow =
  | {
      id: string;
      storage_key: string;
      content_type: string;
      file_size: number;
      upload_date: string;
      version: number;
      earlier: number;
    }
  | {
      id: null;
      storage_key: null;
      content_type: null;
      file_size: null;
      upload_date: null;
      version: null;
      earlier: number;
    };

/**
 * Lock class of the per-user quota lock (the other key is hashtext(user id)). Two-key advisory
 * locks of another class never collide: the shards' locks (live/shards.ts) use their own class.
 */
const QUOTA_LOCK_CLASS = 0x57_46_51_00;

/**
 * Records a completely stored object; `ownerId` null publishes it (public files have no
 * versions: the operator's publish-file always adds a file). For a user, an object whose name
 * is that of a file they own becomes that file's new version: the file keeps its id, and its
 * previous object moves to `file_versions` with its own size, type and date. With a quota (a
 * user's upload), the object is recorded only if it fits, counting every stored version. The
 * check and the write run in one transaction holding a per-user advisory lock, so concurrent
 * uploads of one user, on any number of instances sharing the database, are counted and
 * numbered one after another and can never together pass the quota. A refused or failed
 * record removes the stored object again.
 */
export async function recordStoredFile(
  db: Database,
  storage: FileStorage,
  stored: StoredSpreadsheet,
  ownerId: string | null,
  quota?: FileQuota,
): Promise<RecordedFile> {
  const values = {
    id: randomUUID(),
    originalFilename: stored.originalFilename,
    storageKey: stored.storageKey,
    contentType: stored.contentType,
    fileSize: stored.size,
    uploadedByUserId: ownerId,
  };
  try {
    if (ownerId === null) {
      return { ...onlyRow(await db.insert(files).values(values).returning()), versions: 1 };
    }
    return await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${sql.raw(String(QUOTA_LOCK_CLASS))}, hashtext(${ownerId}))`);
      // Under the lock, in one statement: what the user's files take, and the newest file of the
      // name (names stored before versions existed may repeat) with its count of earlier versions.
      const found = onlyRow(
        rowsOf<UsageRow & ExistingRow>(
          await tx.execute(sql`
            with usage as (${usageOf(ownerId)})
            select usage.*, e.id, e.storage_key, e.content_type, e.file_size::float8 as file_size,
              e.upload_date, e.version,
              (select count(*)::int from ${fileVersions} where file_id = e.id) as earlier
            from usage
            left join lateral (
              select * from ${files}
              where uploaded_by_user_id = ${ownerId} and original_filename = ${stored.originalFilename}
              order by upload_date desc, id desc
              limit 1
            ) e on true`),
        ),
      );
      if (quota) {
        const refusal = quotaRefusal(toUsage(found), quota, stored.size);
        if (refusal) throw refusal;
      }
      if (found.id === null) {
        return { ...onlyRow(await tx.insert(files).values(values).returning()), versions: 1 };
      }
      await tx.insert(fileVersions).values({
        fileId: found.id,
        version: found.version,
        storageKey: found.storage_key,
        contentType: found.content_type,
        fileSize: Number(found.file_size),
        // As the driver answers a timestamp (text), read as drizzle reads the column.
        uploadDate: new Date(found.upload_date),
      });
      const row = onlyRow(
        await tx
          .update(files)
          .set({
            storageKey: stored.storageKey,
            contentType: stored.contentType,
            fileSize: stored.size,
            // The database's clock, like a first upload's default, whichever instance writes it.
            uploadDate: sql`now()`,
            version: found.version + 1,
          })
          .where(eq(files.id, found.id))
          .returning(),
      );
      // Its earlier versions, the one just moved there, and the new current one.
      return { ...row, versions: Number(found.earlier) + 2 };
    });
  } catch (error) {
    // Without its row the object is unreachable: remove it rather than leak storage.
    await storage.delete(stored.storageKey).catch(() => undefined);
    throw error;
  }
}

/**
 * Deletes the file's row (its earlier versions' rows go with it), then every version's object.
 * A crash between the two leaves unreachable objects (reclaimed later), never a listed file
 * whose bytes are gone.
 */
export async function removeFile(db: Database, storage: FileStorage, row: FileRow): Promise<void> {
  const earlier = await db
    .select({ key: fileVersions.storageKey })
    .from(fileVersions)
    .where(eq(fileVersions.fileId, row.id));
  await db.delete(files).where(eq(files.id, row.id));
  for (const key of [row.storageKey, ...earlier.map((version) => version.key)]) await storage.delete(key);
}

/** One stored version of a file: the current one (the `files` row) or an earlier one. */
export interface FileVersion {
  version: number;
  storageKey: string;
  contentType: string;
  fileSize: number;
  uploadDate: Date;
  current: boolean;
}

const currentVersion = (row: FileRow): FileVersion => ({
  version: row.version,
  storageKey: row.storageKey,
  contentType: row.contentType,
  fileSize: row.fileSize,
  uploadDate: row.uploadDate,
  current: true,
});

/** Every stored version of the file, newest (the current one) first. */
export async function listFileVersions(db: Database, row: FileRow): Promise<FileVersion[]> {
  const earlier = await db
    .select()
    .from(fileVersions)
    .where(eq(fileVersions.fileId, row.id))
    .orderBy(desc(fileVersions.version));
  return [currentVersion(row), ...earlier.map((version) => ({ ...version, current: false }))];
}

/** Version `version` of the file (the current one or an earlier one), or null. */
export async function findFileVersion(db: Database, row: FileRow, version: number): Promise<FileVersion | null> {
  if (version === row.version) return currentVersion(row);
  const [earlier] = await db
    .select()
    .from(fileVersions)
    .where(and(eq(fileVersions.fileId, row.id), eq(fileVersions.version, version)));
  return earlier ? { ...earlier, current: false } : null;
}

/** How many versions of each of these files are stored (1 for a file never uploaded again). */
export async function fileVersionCounts(db: Database, ids: string[]): Promise<Map<string, number>> {
  const counts = new Map(ids.map((id) => [id, 1]));
  if (ids.length === 0) return counts;
  const earlier = await db
    .select({ fileId: fileVersions.fileId, count: sql<number>`count(*)::int` })
    .from(fileVersions)
    .where(inArray(fileVersions.fileId, ids))
    .groupBy(fileVersions.fileId);
  for (const { fileId, count } of earlier) counts.set(fileId, 1 + Number(count));
  return counts;
}

/**
 * Deletes one earlier version of the file: its row, then its object. The current version is
 * the file itself and goes only with the file (removeFile). Answers false when the file has
 * no such earlier version.
 */
export async function removeEarlierVersion(
  db: Database,
  storage: FileStorage,
  row: FileRow,
  version: number,
): Promise<boolean> {
  const [removed] = await db
    .delete(fileVersions)
    .where(and(eq(fileVersions.fileId, row.id), eq(fileVersions.version, version)))
    .returning({ key: fileVersions.storageKey });
  if (!removed) return false;
  await storage.delete(removed.key);
  return true;
}

/** The file version as listed by GET /files/{id}/versions. */
export function toFileVersionEntry(row: FileRow, version: FileVersion): FileVersionEntry {
  return {
    version: version.version,
    file_size: version.fileSize,
    upload_date: version.uploadDate.toISOString(),
    url: fileVersionDownloadPath(row.id, version.version),
    current: version.current,
  };
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
      [
        ...(await db.select({ key: files.storageKey }).from(files).where(inArray(files.storageKey, batch))),
        ...(await db
          .select({ key: fileVersions.storageKey })
          .from(fileVersions)
          .where(inArray(fileVersions.storageKey, batch))),
      ].map((row) => row.key),
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
