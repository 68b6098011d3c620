// The operator CLI against a real embedded database: create a verified user, grant a plan,
// revoke it, and clear errors for bad input.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/server/db/client.ts';
import { subscriptions, user } from '../src/server/db/schema.ts';

const root = join(import.meta.dirname, '..');
const dataDir = mkdtempSync(join(tmpdir(), 'watos-admin-'));

function admin(...args: string[]) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
    encoding: 'utf8',
  });
  return { status: run.status, out: run.stdout.trim(), err: run.stderr.trim() };
}

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('npm run admin', () => {
  it('creates a verified user, grants and revokes a plan', { timeout: 120_000 }, () => {
    const created = admin('create-user', '--email', 'Ops@Example.com', '--password', 'secret-pass', '--username', 'ops', '--verified');
    expect(created.err).toBe('');
    expect(created.out).toMatch(/^Created user ops@example\.com \(.+\), e-mail verified\.$/);

    const granted = admin('grant', '--email', 'ops@example.com', '--plan', '3day');
    expect(granted.out).toMatch(/^Granted 3day to ops@example\.com until \d{4}-/);

    const revoked = admin('revoke', '--email', 'ops@example.com');
    expect(revoked.out).toBe('Revoked 1 subscription(s) of ops@example.com.');
  });

  it('explains bad input with the usage text and exit code 2', { timeout: 60_000 }, () => {
    const unknown = admin('grant', '--email', 'nobody@example.com', '--plan', 'monthly');
    expect(unknown.status).toBe(2);
    expect(unknown.err).toContain('No user with e-mail nobody@example.com');
    const badPlan = admin('grant', '--email', 'ops@example.com', '--plan', 'forever');
    expect(badPlan.status).toBe(2);
    expect(badPlan.err).toContain('--plan must be one of monthly, 3day, livetest');
    const noCommand = admin();
    expect(noCommand.status).toBe(2);
    expect(noCommand.err).toContain('Usage: npm run admin');
  });

  it('left the database in the state the commands described', { timeout: 60_000 }, async () => {
    const database = await openDatabase({ pgliteDir: join(dataDir, 'db') });
    try {
      const [ops] = await database.db.select().from(user).where(eq(user.email, 'ops@example.com'));
      expect(ops.emailVerified).toBe(true);
      const rows = await database.db.select().from(subscriptions).where(eq(subscriptions.userId, ops.id));
      expect(rows.map((row) => [row.priceId, row.status, row.provider])).toEqual([['three-day', 'canceled', 'admin']]);
    } finally {
      await database.close();
    }
  });
});
