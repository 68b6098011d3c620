// rememberingValidator: a query validated once answers every later request with the same query
// from memory (the same frozen value); failures are not kept, and the memory is bounded.
import { validatorCompiler } from 'fastify-type-provider-zod';
import { describe, expect, it, vi } from 'vitest';
import { alertQuery } from '../../shared/schemas/alerts.ts';
import { rememberingQueryCompiler, rememberingValidator } from './memoValidator.ts';

const route = (httpPart: string) => ({ schema: alertQuery, method: 'GET', url: '/external-api/alert', httpPart });

describe('rememberingValidator', () => {
  it('validates a query text once and answers the same frozen value after that', () => {
    const validate = vi.fn(validatorCompiler(route('querystring')));
    const remembering = rememberingValidator(validate);
    const query = { max_count: '500', symbol: ' btc-usd ', start_time: '2026-11-27 10:00:00' };
    const first = remembering({ ...query }) as { value: Record<string, unknown> };
    // zod's work is kept: the symbol resolved to its ticker, the count capped at 100.
    expect(first.value).toEqual({ max_count: 100, symbol: 'BTC', start_time: '2026-11-27 10:00:00' });
    expect(Object.isFrozen(first.value)).toBe(true);
    expect(remembering({ ...query })).toBe(first);
    expect(validate).toHaveBeenCalledTimes(1);
    // Another text is another entry.
    const other = remembering({ ...query, max_count: '5' }) as { value: Record<string, unknown> };
    expect(other.value.max_count).toBe(5);
    expect(validate).toHaveBeenCalledTimes(2);
  });

  it('keeps no failure: each bad query is validated again and refused with its own error', () => {
    const validate = vi.fn(validatorCompiler(route('querystring')));
    const remembering = rememberingValidator(validate);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const result = remembering({ start_time: '2026-02-30 10:00:00' }) as { error?: unknown };
      // The type provider's error: the zod issues, with their messages.
      expect(JSON.stringify(result.error)).toContain('start_time is not a real date and time');
    }
    expect(validate).toHaveBeenCalledTimes(2);
  });

  it('holds at most `size` queries, then starts again', () => {
    const validate = vi.fn(validatorCompiler(route('querystring')));
    const remembering = rememberingValidator(validate, 2);
    for (const count of ['1', '2', '3', '1']) remembering({ max_count: count });
    // 1 and 2 kept; 3 cleared them and was kept; 1 validated again.
    expect(validate).toHaveBeenCalledTimes(4);
    remembering({ max_count: '3' });
    expect(validate).toHaveBeenCalledTimes(4);
  });

  it('keeps no query longer than a real one: unknown parameters cannot fill the memory', () => {
    const validate = vi.fn(validatorCompiler(route('querystring')));
    const remembering = rememberingValidator(validate);
    const padded = { max_count: '2', junk: 'x'.repeat(2_000) };
    const result = remembering(padded) as { value: Record<string, unknown> };
    expect(result.value).toEqual({ max_count: 2 });
    remembering(padded);
    expect(validate).toHaveBeenCalledTimes(2);
  });
});

describe('rememberingQueryCompiler', () => {
  it('remembers the querystring validators only', () => {
    const compiler = vi.fn(validatorCompiler);
    const remembering = rememberingQueryCompiler(compiler);
    const query = remembering(route('querystring'));
    const body = remembering(route('body'));
    expect(query({ max_count: '7' })).toBe(query({ max_count: '7' }));
    expect(body({ max_count: '7' })).not.toBe(body({ max_count: '7' }));
    expect(compiler).toHaveBeenCalledTimes(2);
  });
});
