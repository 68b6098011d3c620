// The server log's own redaction, through the real pino options: a failed SQL query's
// parameters (a session token, an e-mail address) never reach the log, from the error's
// message, its stack, its fields or its cause; neither do the row values of a constraint
// violation (the database error's `detail`), made here on the real test database (PGlite, or
// PostgreSQL with TEST_DATABASE_URL); secret query-string values are masked. Better Auth's own
// lines go through the same logger, never straight to the console.
import { Writable } from 'node:stream';
import { DrizzleQueryError, sql } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp, type App } from '../app.ts';
import { loadConfig } from '../config.ts';
import { user } from '../db/schema.ts';
import { openTestDatabase, type TestDatabase } from '../db/testing.ts';
import { Browser, jsonBody } from '../testing/http.ts';
import { signedInUser } from '../testing/users.ts';
import { loggerOptions, redactUrl, withoutQueryParameters } from './logging.ts';

function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { log: pino(loggerOptions(loadConfig({ LOG_LEVEL: 'info' })), stream), lines };
}

describe('server log redaction', () => {
  it('keeps the failed query and its cause but not its parameters', () => {
    const token = 'sessiontoken8pKkV0qXDxPXJqChzp287';
    const cause = new Error('Connection terminated unexpectedly');
    const failed = new DrizzleQueryError(
      'select "id" from "session" where "session"."token" = $1 and "email" = $2',
      [token, 'trader@example.com'],
      cause,
    );
    const { log, lines } = capturingLogger();
    log.error({ err: failed }, 'session lookup failed');
    // Better Auth's APIError repeats its cause's message in a plain `body` object.
    const wrapped = Object.assign(new Error('Failed to get session', { cause: failed }), {
      body: { message: `Failed to get session: ${failed.message}`, code: 'FAILED' },
    });
    log.warn({ err: wrapped }, 'request failed');

    expect(lines).toHaveLength(2);
    const text = lines.join('');
    expect(text).not.toContain(token);
    expect(text).not.toContain('trader@example.com');
    const entry = JSON.parse(lines[0]!) as {
      err: { type: string; message: string; stack: string; query: string; params: unknown };
    };
    expect(entry.err.type).toBe('DrizzleQueryError');
    expect(entry.err.message).toContain('where "session"."token" = $1');
    expect(entry.err.message).toContain('params: [redacted]');
    expect(entry.err.message).toContain('Connection terminated unexpectedly');
    expect(entry.err.params).toBe('[redacted]');
    expect(entry.err.stack).toContain('params: [redacted]');
    const outer = JSON.parse(lines[1]!) as { err: { message: string; body: { message: string; code: string } } };
    expect(outer.err.message).toMatch(/^Failed to get session: Failed query: .*params: \[redacted\]/s);
    expect(outer.err.body).toMatchObject({
      message: expect.stringContaining('params: [redacted]') as string,
      code: 'FAILED',
    });
  });

  it('copes with any plain object, an own "__proto__" key included', () => {
    const hostile = JSON.parse(
      '{"__proto__": {"polluted": true}, "params": ["secret-value"], "note": "x\\nparams: secret-value"}',
    ) as object;
    const { log, lines } = capturingLogger();
    log.warn({ detail: hostile }, 'odd input');
    expect(lines[0]).toContain('odd input');
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    const copy = withoutQueryParameters(hostile) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'params', 'note']);
    expect(copy.params).toBe('[redacted]');
    expect(copy.note).toBe('x\nparams: [redacted]');
  });

  it('masks credential-bearing query parameters in logged URLs', () => {
    expect(redactUrl('/api/auth/verify-email?token=abc.def&callbackURL=%2F&page=2')).toBe(
      '/api/auth/verify-email?token=%5Bredacted%5D&callbackURL=%5Bredacted%5D&page=2',
    );
    expect(redactUrl('/files')).toBe('/files');
  });
});

// One real test database for this file (PGlite, or PostgreSQL with TEST_DATABASE_URL).
let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

/** The database error a failed drizzle statement carries as its cause. */
async function violation(
  statement: Promise<unknown>,
): Promise<DrizzleQueryError & { cause: Error & { code: string; detail: string } }> {
  const failure: unknown = await statement.then(
    () => null,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(DrizzleQueryError);
  return failure as DrizzleQueryError & { cause: Error & { code: string; detail: string } };
}

describe('constraint violations in the log (real database errors)', () => {
  it("keeps which constraint failed but none of the row's values, whichever way the error is logged", async () => {
    const now = new Date();
    const row = {
      id: 'carol-id',
      name: 'Carol Secretname',
      email: 'carol@example.test',
      emailVerified: false,
      createdAt: now,
      updatedAt: now,
    };
    await database.db.insert(user).values(row);
    const duplicate = await violation(
      database.db.insert(user).values({ ...row, id: 'other-id', name: 'Dave Secretname' }),
    );
    const missingName = await violation(
      database.db
        .insert(user)
        .values({ ...row, id: 'third-id', email: 'erin@example.test', name: null as unknown as string }),
    );
    expect(duplicate.cause.code).toBe('23505');
    expect(duplicate.cause.detail).toContain('carol@example.test');
    expect(missingName.cause.code).toBe('23502');
    expect(missingName.cause.detail).toMatch(/^Failing row contains \(.*erin@example\.test/);

    const { log, lines } = capturingLogger();
    for (const failed of [duplicate, missingName]) {
      // As the error handler logs it, the raw database error (a query outside drizzle), the
      // error inside Better Auth's logged `detail` list, and a wrapper quoting the detail.
      log.error({ err: failed }, 'request failed');
      log.error({ err: failed.cause }, 'query failed');
      log.error({ detail: [failed.cause, { message: failed.cause.detail }] }, 'better-auth style');
      log.error({ err: new Error(`Failed to create user: ${failed.cause.detail}`, { cause: failed }) }, 'wrapped');
    }
    const text = lines.join('');
    for (const value of ['carol@example.test', 'erin@example.test', 'Secretname', 'carol-id', 'third-id'])
      expect(text).not.toContain(value);

    const raw = lines.map(
      (line) =>
        JSON.parse(line) as {
          msg: string;
          err?: { detail?: string; constraint?: string; column?: string; message: string };
        },
    );
    const rawErrors = raw.filter((entry) => entry.msg === 'query failed').map((entry) => entry.err!);
    expect(rawErrors[0]).toMatchObject({ detail: 'Key (email)=([redacted])', constraint: 'user_email_unique' });
    expect(rawErrors[0]!.message).toContain('duplicate key value violates unique constraint');
    expect(rawErrors[1]).toMatchObject({ detail: 'Failing row contains ([redacted])', column: 'name' });
    const wrapped = raw.filter((entry) => entry.msg === 'wrapped').map((entry) => entry.err!.message);
    expect(wrapped).toEqual([
      expect.stringMatching(/^Failed to create user: Key \(email\)=\(\[redacted\]\)/),
      expect.stringMatching(/^Failed to create user: Failing row contains \(\[redacted\]\)/),
    ]);
  });

  it('drops any other detail text and anything nested deeper than an error chain', () => {
    const odd = Object.assign(new Error('invalid input syntax for type json'), {
      code: '22P02',
      detail: 'Token "carol@example.test" is invalid.',
    });
    expect((withoutQueryParameters(odd) as { detail: string }).detail).toBe('[redacted]');
    let nested: Record<string, unknown> = { secret: 'carol@example.test' };
    for (let level = 0; level < 10; level += 1) nested = { nested };
    expect(JSON.stringify(withoutQueryParameters(nested))).not.toContain('carol@example.test');
    expect(withoutQueryParameters('Key (lower(email::text))=(carol@example.test) already exists.')).toBe(
      'Key (lower(email::text))=([redacted])',
    );
  });
});

describe('the running app: a constraint violation inside Better Auth, and its own lines', () => {
  let app: App;
  const lines: string[] = [];
  beforeAll(async () => {
    await database.truncateAll();
    const config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: '.data-test/unit',
      LOG_LEVEL: 'warn',
      MARKET_DATA: 'demo',
    });
    const logStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    app = await buildApp({ config, database, webRoot: null, logStream });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('logs the failure once through pino, without the row, and nothing on the console', async () => {
    const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: '.data-test/unit', MARKET_DATA: 'demo' });
    const { browser } = await signedInUser(
      { app, database, config, close: () => Promise.resolve() },
      'carol@example.test',
    );
    // A real check violation inside Better Auth's update of the user row, whatever input
    // validation the routes do: the database refuses this one name.
    await database.db.execute(
      sql.raw(`alter table "user" add constraint "user_name_not_blocked" check (name <> 'Blocked Name')`),
    );
    lines.length = 0;
    const consoleCalls = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) =>
      vi.spyOn(console, method),
    );
    try {
      const update = await browser.post('/api/auth/update-user', { name: 'Blocked Name' });
      expect(update.statusCode).toBeGreaterThanOrEqual(400);
      expect(Object.keys(jsonBody<object>(update))).toContain('error');
      // Better Auth's own message for an unknown address (a warning), through the same logger.
      const unknown = await new Browser(app, config.publicUrl).post('/api/auth/request-password-reset', {
        email: 'nobody@example.test',
        redirectTo: `${config.publicUrl}/reset-password`,
      });
      expect(unknown.statusCode).toBe(200);
      expect(consoleCalls.flatMap((spy) => spy.mock.calls)).toEqual([]);
    } finally {
      for (const spy of consoleCalls) spy.mockRestore();
    }

    const entries = lines.map(
      (line) => JSON.parse(line) as { level: number; component?: string; msg: string; err?: { message: string } },
    );
    const failures = entries.filter((entry) =>
      entry.err?.message.includes('violates check constraint "user_name_not_blocked"'),
    );
    expect(failures).toHaveLength(1);
    expect(
      entries.some(
        (entry) => entry.component === 'better-auth' && entry.level === 40 && /user not found/i.test(entry.msg),
      ),
    ).toBe(true);
    const text = lines.join('\n');
    expect(text).not.toContain('carol@example.test');
    expect(text).not.toContain('Failing row contains (carol');
  });
});
