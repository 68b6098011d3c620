// The operator commands against a real embedded database: create a verified user, grant a plan,
// revoke it, and clear errors for bad input. The commands run in this process (adminCommand);
// one test runs the command line itself (`npm run admin`'s scripts/admin.ts) for its output and
// exit status.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/server/db/client.ts';
import { subscriptions, user } from '../src/server/db/schema.ts';
import { loadConfig } from '../src/server/config.ts';
import { createMailer } from '../src/server/mail/mailer.ts';
import { freePort } from '../src/server/testing/ports.ts';
import { waitFor } from '../src/server/testing/waitFor.ts';
import { adminCommand } from './adminCommands.ts';
import { adminTestEnv } from './adminTestEnv.ts';

const root = join(import.meta.dirname, '..');
const dataDir = mkdtempSync(join(tmpdir(), 'watos-admin-'));

function admin(...args: string[]) {
  return adminWith({}, ...args);
}

function adminWith(env: Record<string, string>, ...args: string[]) {
  return adminCommand(args, adminTestEnv(dataDir, env));
}

/** `npm run admin -- ...args` as its own process. */
function commandLine(...args: string[]) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], {
    cwd: root,
    env: adminTestEnv(dataDir),
    encoding: 'utf8',
  });
  return { status: run.status, out: run.stdout.trim(), err: run.stderr.trim() };
}

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('npm run admin', () => {
  it('creates a verified user, grants and revokes a plan', { timeout: 120_000 }, async () => {
    const created = await admin(
      'create-user',
      '--email',
      'Ops@Example.com',
      '--password',
      'secret-pass',
      '--username',
      'ops',
      '--verified',
    );
    expect(created.err).toBe('');
    expect(created.out).toMatch(/^Created user ops@example\.com \(.+\), e-mail verified\.$/);

    const granted = await admin('grant', '--email', 'ops@example.com', '--plan', '3day');
    expect(granted.out).toMatch(/^Granted 3day to ops@example\.com until \d{4}-/);

    const revoked = await admin('revoke', '--email', 'ops@example.com');
    expect(revoked.out).toBe('Revoked 1 subscription(s) of ops@example.com.');
  });

  it('explains bad input with the usage text and exit code 2', { timeout: 60_000 }, async () => {
    const unknown = await admin('grant', '--email', 'nobody@example.com', '--plan', 'monthly');
    expect(unknown.status).toBe(2);
    expect(unknown.err).toContain('No user with e-mail nobody@example.com');
    const badPlan = await admin('grant', '--email', 'ops@example.com', '--plan', 'forever');
    expect(badPlan.status).toBe(2);
    expect(badPlan.err).toContain('--plan must be one of monthly, 3day, livetest');
    const noCommand = await admin();
    expect(noCommand.status).toBe(2);
    expect(noCommand.err).toContain('Usage: npm run admin');
  });

  it('as a command line, prints the answer, and the usage with exit code 2 for bad input', { timeout: 60_000 }, () => {
    const granted = commandLine('grant', '--email', 'ops@example.com', '--plan', '3day');
    expect(granted).toMatchObject({ status: 0, err: '' });
    expect(granted.out).toMatch(/^Granted 3day to ops@example\.com until \d{4}-/);
    const unknown = commandLine('grant', '--email', 'nobody@example.com', '--plan', 'monthly');
    expect(unknown).toMatchObject({ status: 2, out: '' });
    expect(unknown.err).toContain('No user with e-mail nobody@example.com');
    expect(unknown.err).toContain('Usage: npm run admin');
    const revoked = commandLine('revoke', '--email', 'ops@example.com');
    expect(revoked.out).toBe('Revoked 1 subscription(s) of ops@example.com.');
  });

  it('left the database in the state the commands described', { timeout: 60_000 }, async () => {
    const database = await openDatabase({ pgliteDir: join(dataDir, 'db') });
    try {
      const [ops] = await database.db.select().from(user).where(eq(user.email, 'ops@example.com'));
      expect(ops!.emailVerified).toBe(true);
      const rows = await database.db.select().from(subscriptions).where(eq(subscriptions.userId, ops!.id));
      // Granted and revoked twice: in this process, then by the command line.
      expect(rows.map((row) => [row.priceId, row.status, row.provider])).toEqual([
        ['three-day', 'canceled', 'admin'],
        ['three-day', 'canceled', 'admin'],
      ]);
    } finally {
      await database.close();
    }
  });
});

describe('npm run admin: the outgoing mail queue', () => {
  it(
    'lists queued mail with its attempts and last error; mail-retry makes it due now',
    { timeout: 300_000 },
    async () => {
      // Nothing listens on this port: SMTP is down.
      const env = { SMTP_URL: `smtp://127.0.0.1:${await freePort()}`, MAIL_RETRY_BASE_SECONDS: '600' };
      const created = await adminWith(
        env,
        'create-user',
        '--email',
        'queued@example.com',
        '--password',
        'secret-pass',
        '--username',
        'queued',
      );
      expect(created.status).toBe(0);
      expect(created.out).toMatch(/^Created user queued@example\.com/);
      const queued = await adminWith(env, 'mail-queue');
      expect(queued.out).toMatch(/^[0-9a-f-]{36} {2}pending +attempts +0 +queued \d{4}-/);
      expect(queued.out).toContain('to queued@example.com: Confirm your e-mail address');

      // The server's worker makes one attempt while SMTP is down (the CLI itself only queues).
      const database = await openDatabase({ pgliteDir: join(dataDir, 'db') });
      try {
        const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env });
        const mailer = await createMailer(
          config,
          database,
          { info: () => undefined, warn: () => undefined },
          { deliver: true },
        );
        try {
          await waitFor(async () => (await mailer.queue!.list())[0]?.lastError, 'a failed attempt', 20_000);
        } finally {
          await mailer.close();
        }
      } finally {
        await database.close();
      }

      const listed = await adminWith(env, 'mail-queue', '--state', 'pending');
      expect(listed.status).toBe(0);
      expect(listed.out).toMatch(/pending +attempts +1 /);
      expect(listed.out).toContain('last error: ESOCKET: connect ECONNREFUSED');
      const [, id, next] = /^([0-9a-f-]{36}) .* next (\S+)/.exec(listed.out) ?? [];
      // The next attempt waits the base delay (600 s)...
      expect(Date.parse(next!) - Date.now()).toBeGreaterThan(300_000);

      const retried = await adminWith(env, 'mail-retry', '--id', id!);
      expect(retried.out).toBe(`E-mail ${id} will be sent again by the server now (retry window renewed: 24 h).`);
      // ...until mail-retry makes it due now.
      const [, nextNow] = / next (\S+)/.exec((await adminWith(env, 'mail-queue')).out) ?? [];
      expect(Date.parse(nextNow!)).toBeLessThanOrEqual(Date.now());

      // The message is now pending, not failed or sent: --state filters.
      expect((await adminWith(env, 'mail-queue', '--state', 'failed')).out).toBe(
        'No e-mail in the queue with state failed.',
      );
      const unknown = await adminWith(env, 'mail-retry', '--id', '00000000-0000-0000-0000-000000000000');
      expect(unknown.status).toBe(2);
      expect(unknown.err).toContain('No pending or failed e-mail with id 00000000-0000-0000-0000-000000000000');
      const badState = await adminWith(env, 'mail-queue', '--state', 'lost');
      expect(badState.status).toBe(2);
      expect(badState.err).toContain('--state must be one of pending, sending, sent, failed, cancelled');
    },
  );
});
