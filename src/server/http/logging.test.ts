// The server log's own redaction, through the real pino options: a failed SQL query's
// parameters (a session token, an e-mail address) never reach the log, from the error's
// message, its stack, its fields or its cause; secret query-string values are masked.
import { Writable } from 'node:stream';
import { DrizzleQueryError } from 'drizzle-orm';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
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
    const failed = new DrizzleQueryError('select "id" from "session" where "session"."token" = $1 and "email" = $2', [token, 'trader@example.com'], cause);
    const { log, lines } = capturingLogger();
    log.error({ err: failed }, 'session lookup failed');
    // Better Auth's APIError repeats its cause's message in a plain `body` object.
    const wrapped = Object.assign(new Error('Failed to get session', { cause: failed }), { body: { message: `Failed to get session: ${failed.message}`, code: 'FAILED' } });
    log.warn({ err: wrapped }, 'request failed');

    expect(lines).toHaveLength(2);
    const text = lines.join('');
    expect(text).not.toContain(token);
    expect(text).not.toContain('trader@example.com');
    const entry = JSON.parse(lines[0]) as { err: { type: string; message: string; stack: string; query: string; params: unknown } };
    expect(entry.err.type).toBe('DrizzleQueryError');
    expect(entry.err.message).toContain('where "session"."token" = $1');
    expect(entry.err.message).toContain('params: [redacted]');
    expect(entry.err.message).toContain('Connection terminated unexpectedly');
    expect(entry.err.params).toBe('[redacted]');
    expect(entry.err.stack).toContain('params: [redacted]');
    const outer = JSON.parse(lines[1]) as { err: { message: string; body: { message: string; code: string } } };
    expect(outer.err.message).toMatch(/^Failed to get session: Failed query: .*params: \[redacted\]/s);
    expect(outer.err.body).toMatchObject({ message: expect.stringContaining('params: [redacted]') as string, code: 'FAILED' });
  });

  it('copes with any plain object, an own "__proto__" key included', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "params": ["secret-value"], "note": "x\\nparams: secret-value"}') as object;
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
    expect(redactUrl('/api/auth/verify-email?token=abc.def&callbackURL=%2F&page=2')).toBe('/api/auth/verify-email?token=%5Bredacted%5D&callbackURL=%5Bredacted%5D&page=2');
    expect(redactUrl('/files')).toBe('/files');
  });
});
