// The operator commands behind `npm run admin` (scripts/admin.ts is the command line): each
// runs on the configured database (the same DATA_DIR / DATABASE_URL as `npm start`) and answers
// what the command line prints and its exit status. With the embedded PGlite database, stop the
// server first: PGlite allows one process at a time (openDatabase locks the directory and
// refuses). The tests call `adminCommand` in the test's process; scripts/admin.test.ts also runs
// the command line itself.
//
//   create-user --email E --password P --username U [--verified]
//   grant --email E --plan monthly|3day|livetest
//   revoke --email E
//   publish-file PATH [--name N]      a public My Stuff file, validated like an upload
//   unpublish-file --id ID
//   list-public-files
//   mail-queue [--state pending|sending|sent|failed] [--limit N]   the outgoing SMTP mail queue
//   mail-retry --id ID                a pending or failed message is tried again now
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { format, parseArgs } from 'node:util';
import { basename, join } from 'node:path';
import {
  createAuth,
  createSessionChanges,
  createUser,
  resolveAuthSecret,
  userByEmail,
} from '../src/server/auth/service.ts';
import { grantPlan, revokeAccess, seedPlans } from '../src/server/billing/service.ts';
import { ConfigError, loadConfig, type Config } from '../src/server/config.ts';
import { openDatabase, type DatabaseHandle } from '../src/server/db/client.ts';
import { DomainError, isDomainError } from '../src/server/errors/domain.ts';
import {
  createFileStorage,
  findFile,
  listPublicFiles,
  recordStoredFile,
  removeFile,
  safeOriginalFilename,
  spreadsheetKindOf,
  SPREADSHEET_MIME_TYPES,
  storeSpreadsheet,
} from '../src/server/files/service.ts';
import { formatFileSize } from '../src/shared/format.ts';
import {
  createMailer,
  mailRetryPolicy,
  openMailQueue,
  type DeliveryState,
  type Mailer,
} from '../src/server/mail/service.ts';

const USAGE = `Usage: npm run admin -- <command> [options]

  create-user --email E --password P --username U [--verified]
  grant --email E --plan monthly|3day|livetest
  revoke --email E
  publish-file PATH [--name N]
  unpublish-file --id ID
  list-public-files
  mail-queue [--state pending|sending|sent|failed|cancelled] [--limit N]
  mail-retry --id ID`;

class UsageError extends Error {}

/** Where a command's warnings go: its standard error. */
type Log = (fields: object, message: string) => void;

function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value.trim();
}

const FILE_COMMANDS = ['publish-file', 'unpublish-file', 'list-public-files'];
const MAIL_COMMANDS = ['mail-queue', 'mail-retry'];
const DELIVERY_STATES: DeliveryState[] = ['pending', 'sending', 'sent', 'failed', 'cancelled'];

/** The SMTP mail queue (pg-boss jobs): what waits, what was sent, what failed and why. */
interface MailArguments {
  id?: string;
  state?: DeliveryState;
  limit: number;
}

/** Checked before the database is opened, so a typo answers at once. */
function mailArguments(command: string, values: Record<string, unknown>): MailArguments {
  if (command === 'mail-retry') return { id: required(values, 'id'), limit: 1 };
  const state = typeof values.state === 'string' ? values.state : undefined;
  if (state !== undefined && !DELIVERY_STATES.includes(state as DeliveryState))
    throw new UsageError(`--state must be one of ${DELIVERY_STATES.join(', ')}`);
  const limit = typeof values.limit === 'string' ? Number(values.limit) : 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw new UsageError('--limit must be a whole number from 1 to 10000');
  return { state: state as DeliveryState | undefined, limit };
}

async function mailCommand(
  args: MailArguments,
  config: Config,
  database: DatabaseHandle,
  stderr: Log,
): Promise<string> {
  const quiet = { info: () => undefined, warn: stderr };
  const queue = await openMailQueue(database, mailRetryPolicy(config), quiet, { supervise: false });
  try {
    const { id, state, limit } = args;
    if (id !== undefined) {
      if (!(await queue.retryNow(id))) throw new UsageError(`No pending or failed e-mail with id ${id}`);
      return `E-mail ${id} will be sent again by the server now (retry window renewed: ${config.MAIL_RETRY_HOURS} h).`;
    }
    const entries = await queue.list({ state, limit });
    const note = config.SMTP_URL
      ? ''
      : '\n(SMTP_URL is not set: new mail goes to the embedded outbox, not this queue.)';
    if (entries.length === 0) return `No e-mail in the queue${state ? ` with state ${state}` : ''}.${note}`;
    const lines = entries.map((entry) => {
      const when =
        entry.state === 'pending'
          ? `next ${entry.nextAttemptAt?.toISOString()}`
          : entry.finishedAt
            ? `${entry.state} ${entry.finishedAt.toISOString()}`
            : '';
      const error = entry.lastError ? `\n    last error: ${entry.lastError.slice(0, 300)}` : '';
      return `${entry.id}  ${entry.state.padEnd(9)}  attempts ${String(entry.attempts).padStart(3)}  queued ${entry.createdAt.toISOString()}  ${when}\n    to ${entry.to}: ${entry.subject}${error}`;
    });
    return lines.join('\n') + note;
  } finally {
    await queue.close();
  }
}

/** My Stuff's public files (uploaded_by_user_id null): stored and validated exactly like uploads. */
async function fileCommand(
  command: string,
  values: Record<string, unknown>,
  positionals: string[],
  config: Config,
  database: DatabaseHandle,
): Promise<string> {
  if (command === 'list-public-files') {
    const rows = await listPublicFiles(database.db);
    if (rows.length === 0) return 'No public files.';
    return rows
      .map(
        (row) =>
          `${row.id}  ${formatFileSize(row.fileSize).padStart(10)}  ${row.uploadDate.toISOString()}  ${row.originalFilename}`,
      )
      .join('\n');
  }
  const storage = createFileStorage(config);
  try {
    if (command === 'unpublish-file') {
      const id = required(values, 'id');
      const row = await findFile(database.db, id);
      if (!row || row.uploadedByUserId !== null) throw new UsageError(`No public file with id ${id}`);
      await removeFile(database.db, storage, row);
      return `Removed public file ${row.originalFilename} (${row.id}).`;
    }
    const [path, ...extra] = positionals;
    if (!path || extra.length > 0) throw new UsageError('publish-file needs exactly one PATH');
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) throw new UsageError(`No file at ${path}`);
    const name = typeof values.name === 'string' && values.name.trim() ? values.name.trim() : basename(path);
    // The kind of the name as it will be stored (bidi and invisible characters removed).
    const kind = spreadsheetKindOf(safeOriginalFilename(name));
    // A file on disk has no declared type: the one its extension names, the content still checked.
    const mimeType = kind ? SPREADSHEET_MIME_TYPES[kind] : 'application/octet-stream';
    try {
      const stored = await storeSpreadsheet(
        storage,
        { source: createReadStream(path), filename: name, mimeType },
        { maxBytes: config.UPLOAD_MAX_MB * 1024 * 1024 },
      );
      const row = await recordStoredFile(database.db, storage, stored, null);
      return `Published ${row.originalFilename} (${formatFileSize(row.fileSize)}) as public file ${row.id}.`;
    } catch (error) {
      if (error instanceof DomainError) throw new UsageError(`${path}: ${error.message}`);
      throw error;
    }
  } finally {
    await storage.close();
  }
}

async function run(argv: string[], env: Record<string, string | undefined>, stderr: Log): Promise<string> {
  const [command, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      username: { type: 'string' },
      verified: { type: 'boolean', default: false },
      plan: { type: 'string' },
      name: { type: 'string' },
      id: { type: 'string' },
      state: { type: 'string' },
      limit: { type: 'string' },
    },
    strict: true,
    allowPositionals: true,
  });
  if (!command || !['create-user', 'grant', 'revoke', ...FILE_COMMANDS, ...MAIL_COMMANDS].includes(command))
    throw new UsageError(`Unknown command "${command ?? ''}"`);
  if (positionals.length > 0 && command !== 'publish-file')
    throw new UsageError(`Unexpected argument "${positionals[0]}"`);

  const mailArgs = MAIL_COMMANDS.includes(command) ? mailArguments(command, values) : null;

  const config = loadConfig(env);
  const database = await openDatabase({ databaseUrl: config.DATABASE_URL, pgliteDir: join(config.dataDir, 'db') });
  try {
    await database.migrate();
    await seedPlans(database.db, config);
    if (FILE_COMMANDS.includes(command)) return await fileCommand(command, values, positionals, config, database);
    if (mailArgs) return await mailCommand(mailArgs, config, database, stderr);
    const email = required(values, 'email');

    if (command === 'create-user') {
      const password = required(values, 'password');
      const username = required(values, 'username');
      const log = { debug: stderr, info: stderr, warn: stderr, error: stderr };
      // A user created already verified needs no verification e-mail. With SMTP the e-mail is
      // queued here and delivered by the server (this command does not wait for SMTP).
      const mailer: Mailer = values.verified
        ? { kind: 'outbox', send: async () => undefined, close: async () => undefined }
        : await createMailer(config, database, { info: () => undefined, warn: stderr }, { deliver: false });
      const auth = createAuth({
        config,
        db: database.db,
        mailer,
        secret: resolveAuthSecret(config),
        log,
        sessionChanges: createSessionChanges(),
      });
      const created = await createUser(auth, database.db, {
        email,
        password,
        username,
        verified: values.verified,
      }).finally(() => mailer.close());
      return `Created user ${created.email} (${created.id})${values.verified ? ', e-mail verified' : ''}.`;
    }

    const account = await userByEmail(database.db, email);
    if (command === 'grant') {
      const alias = required(values, 'plan');
      const currentPeriodEnd = await grantPlan(database.db, account.id, alias);
      return `Granted ${alias} to ${account.email} until ${currentPeriodEnd.toISOString()}.`;
    }

    const revoked = await revokeAccess(database.db, account.id);
    return `Revoked ${revoked} subscription(s) of ${account.email}.`;
  } finally {
    await database.close();
  }
}

/** What a command printed and its exit status: 0 done, 2 the operator's input refused, 1 a failure. */
export interface AdminResult {
  status: 0 | 1 | 2;
  out: string;
  err: string;
}

/** Runs one operator command (`argv` as typed after `npm run admin --`) with the environment `env`. */
export async function adminCommand(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): Promise<AdminResult> {
  const errors: string[] = [];
  // As console.error(message, fields) would print it (an error in the fields keeps its stack).
  const stderr: Log = (fields, message) => errors.push(format(message, fields));
  try {
    return { status: 0, out: await run(argv, env, stderr), err: errors.join('\n') };
  } catch (error) {
    const refused =
      error instanceof UsageError ||
      // A refusal of a service (no such user, a plan that is not sold): the operator's input.
      isDomainError(error) ||
      error instanceof ConfigError ||
      (error instanceof Error && error.name === 'TypeError' && /parseArgs|option/i.test(error.message));
    const message = error instanceof Error ? error.message : String(error);
    errors.push(refused ? `${message}\n\n${USAGE}` : message);
    return { status: refused ? 2 : 1, out: '', err: errors.join('\n') };
  }
}
