import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('gives working defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config.HOST).toBe('127.0.0.1');
    expect(config.PORT).toBe(3000);
    expect(config.dataDir.endsWith('/data')).toBe(true);
    expect(config.publicUrl).toBe('http://127.0.0.1:3000');
    expect(config.MARKET_DATA).toBe('auto');
    expect(config.UPLOAD_MAX_MB).toBe(25);
    expect(config.embedded).toContain('database: PGlite in DATA_DIR/db');
    expect(config.embedded).toContain('payments: built-in TEST MODE checkout');
  });

  it('honours PORT, HOST, DATA_DIR and PUBLIC_URL', () => {
    const config = loadConfig({ PORT: '8080', HOST: '0.0.0.0', DATA_DIR: '/tmp/x', PUBLIC_URL: 'https://app.example.com/' });
    expect(config.PORT).toBe(8080);
    expect(config.HOST).toBe('0.0.0.0');
    expect(config.dataDir).toBe('/tmp/x');
    expect(config.publicUrl).toBe('https://app.example.com');
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://localhost/db' }, 'DATABASE_URL'],
    [{ MARKET_DATA: 'bloomberg' }, 'MARKET_DATA'],
    [{ STRIPE_SECRET_KEY: 'pk_live_wrong' }, 'STRIPE_SECRET_KEY'],
    [{ STRIPE_SECRET_KEY: 'sk_test_1' }, 'STRIPE_WEBHOOK_SECRET'],
    [{ S3_BUCKET: 'uploads' }, 'S3_ACCESS_KEY_ID'],
    [{ AUTH_SECRET: 'short' }, 'AUTH_SECRET'],
    [{ LLM_BASE_URL: 'http://127.0.0.1:11434/v1' }, 'LLM_MODEL'],
    [{ AI_RATE_LIMIT_PER_MINUTE: '0' }, 'AI_RATE_LIMIT_PER_MINUTE'],
    [{ AI_FILE_MAX_ROWS: 'many' }, 'AI_FILE_MAX_ROWS'],
  ])('rejects %o naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(variable);
  });

  it('uses the built-in analyst unless an LLM endpoint is configured, with the AI limits', () => {
    const builtin = loadConfig({});
    expect(builtin.embedded).toContain('AI assistant: built-in analyst (no LLM)');
    expect([builtin.AI_RATE_LIMIT_PER_MINUTE, builtin.AI_FILE_MAX_MB, builtin.AI_FILE_MAX_ROWS]).toEqual([20, 10, 50_000]);
    const llm = loadConfig({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1', LLM_MODEL: 'llama3.1', AI_FILE_MAX_MB: '2.5' });
    expect(llm.embedded).not.toContain('AI assistant: built-in analyst (no LLM)');
    expect(llm.AI_FILE_MAX_MB).toBe(2.5);
  });

  it('treats empty strings as unset', () => {
    const config = loadConfig({ DATABASE_URL: '', REDIS_URL: '' });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.REDIS_URL).toBeUndefined();
  });

  it('namespaces Redis per deployment: REDIS_PREFIX, else derived from the database', () => {
    const orders = loadConfig({ DATABASE_URL: 'postgres://app@db.internal:5432/orders', REDIS_URL: 'redis://127.0.0.1:6379/1' });
    const billing = loadConfig({ DATABASE_URL: 'postgres://app@db.internal:5432/billing', REDIS_URL: 'redis://127.0.0.1:6379/2' });
    expect(orders.redisPrefix).toBe('watos:orders:');
    expect(billing.redisPrefix).not.toBe(orders.redisPrefix);
    // Instances of one deployment reach its database under any host name: same namespace.
    expect(loadConfig({ DATABASE_URL: 'postgres://app@10.0.0.5/orders' }).redisPrefix).toBe(orders.redisPrefix);
    const embeddedA = loadConfig({ DATA_DIR: '/srv/a' }).redisPrefix;
    const embeddedB = loadConfig({ DATA_DIR: '/srv/b' }).redisPrefix;
    expect(embeddedA).toMatch(/^watos:[0-9a-f]{12}:$/);
    expect(embeddedB).not.toBe(embeddedA);
    expect(loadConfig({ DATABASE_URL: 'postgres://app@db/orders', REDIS_PREFIX: 'watos:eu-prod:' }).redisPrefix).toBe('watos:eu-prod:');
    expect(loadConfig({ DATABASE_URL: 'postgres://app@db/orders', REDIS_PREFIX: '' }).redisPrefix).toBe('watos:orders:');
    expect(() => loadConfig({ REDIS_PREFIX: 'has space' })).toThrow(/REDIS_PREFIX/);
  });
});
