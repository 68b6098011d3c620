import { describe, expect, it } from 'vitest';
import { ConfigError, isLoopbackHost, loadConfig, startupWarnings } from './config.ts';

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
    // A public address needs a payment decision (see 'deployment guards' below): BILLING=test here.
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATA_DIR: '/tmp/x',
      PUBLIC_URL: 'https://app.example.com/',
      BILLING: 'test',
    });
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
    [{ ALPACA_KEY_ID: 'PKTEST' }, 'ALPACA_SECRET_KEY'],
    [{ ALPACA_WS_URL: 'https://stream.data.alpaca.markets/v2/iex' }, 'ALPACA_WS_URL'],
    [{ LIVE_QUOTE_POLL_MS: '100' }, 'LIVE_QUOTE_POLL_MS'],
    [{ EXCHANGE_QUOTE_CACHE_SECONDS: '0' }, 'EXCHANGE_QUOTE_CACHE_SECONDS'],
    [{ AI_RATE_LIMIT_PER_MINUTE: '0' }, 'AI_RATE_LIMIT_PER_MINUTE'],
    [{ AI_FILE_MAX_ROWS: 'many' }, 'AI_FILE_MAX_ROWS'],
  ])('rejects %o naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(variable);
  });

  it('uses the built-in analyst unless an LLM endpoint is configured, with the AI limits', () => {
    const builtin = loadConfig({});
    expect(builtin.embedded).toContain('AI assistant: built-in analyst (no LLM)');
    expect([builtin.AI_RATE_LIMIT_PER_MINUTE, builtin.AI_FILE_MAX_MB, builtin.AI_FILE_MAX_ROWS]).toEqual([
      20, 10, 50_000,
    ]);
    const llm = loadConfig({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1', LLM_MODEL: 'llama3.1', AI_FILE_MAX_MB: '2.5' });
    expect(llm.embedded).not.toContain('AI assistant: built-in analyst (no LLM)');
    expect(llm.AI_FILE_MAX_MB).toBe(2.5);
  });

  it("reaches Coinbase's public hosts unless COINBASE_PRICE_API_URL or COINBASE_EXCHANGE_API_URL says otherwise", () => {
    const defaults = loadConfig({});
    expect([defaults.COINBASE_PRICE_API_URL, defaults.COINBASE_EXCHANGE_API_URL]).toEqual([
      'https://api.coinbase.com',
      'https://api.exchange.coinbase.com',
    ]);
    const proxied = loadConfig({
      COINBASE_PRICE_API_URL: 'http://127.0.0.1:8181',
      COINBASE_EXCHANGE_API_URL: '',
    });
    expect([proxied.COINBASE_PRICE_API_URL, proxied.COINBASE_EXCHANGE_API_URL]).toEqual([
      'http://127.0.0.1:8181',
      'https://api.exchange.coinbase.com',
    ]);
    expect(() => loadConfig({ COINBASE_EXCHANGE_API_URL: 'exchange' })).toThrow(/COINBASE_EXCHANGE_API_URL/);
  });

  it('turns GET /metrics on only with a METRICS_TOKEN of 16 characters or more', () => {
    expect(loadConfig({}).METRICS_TOKEN).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: '' }).METRICS_TOKEN).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: 'a-scrape-token-16' }).METRICS_TOKEN).toBe('a-scrape-token-16');
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN: must be at least 16 characters/);
  });

  it('treats empty strings as unset', () => {
    const config = loadConfig({ DATABASE_URL: '', REDIS_URL: '' });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.REDIS_URL).toBeUndefined();
  });

  it('namespaces Redis per deployment: REDIS_PREFIX, else derived from the database', () => {
    const orders = loadConfig({
      DATABASE_URL: 'postgres://app@db.internal:5432/orders',
      REDIS_URL: 'redis://127.0.0.1:6379/1',
    });
    const billing = loadConfig({
      DATABASE_URL: 'postgres://app@db.internal:5432/billing',
      REDIS_URL: 'redis://127.0.0.1:6379/2',
    });
    expect(orders.redisPrefix).toBe('watos:orders:');
    expect(billing.redisPrefix).not.toBe(orders.redisPrefix);
    // Instances of one deployment reach its database under any host name: same namespace.
    expect(loadConfig({ DATABASE_URL: 'postgres://app@10.0.0.5/orders' }).redisPrefix).toBe(orders.redisPrefix);
    const embeddedA = loadConfig({ DATA_DIR: '/srv/a' }).redisPrefix;
    const embeddedB = loadConfig({ DATA_DIR: '/srv/b' }).redisPrefix;
    expect(embeddedA).toMatch(/^watos:[0-9a-f]{12}:$/);
    expect(embeddedB).not.toBe(embeddedA);
    expect(loadConfig({ DATABASE_URL: 'postgres://app@db/orders', REDIS_PREFIX: 'watos:eu-prod:' }).redisPrefix).toBe(
      'watos:eu-prod:',
    );
    expect(loadConfig({ DATABASE_URL: 'postgres://app@db/orders', REDIS_PREFIX: '' }).redisPrefix).toBe(
      'watos:orders:',
    );
    expect(() => loadConfig({ REDIS_PREFIX: 'has space' })).toThrow(/REDIS_PREFIX/);
  });
});

const STRIPE = { STRIPE_SECRET_KEY: 'sk_live_1', STRIPE_WEBHOOK_SECRET: 'whsec_1' };
const S3 = { S3_BUCKET: 'uploads', S3_ACCESS_KEY_ID: 'key', S3_SECRET_ACCESS_KEY: 'secret' };

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`loadConfig(${JSON.stringify(env)}) did not refuse`);
}

describe('isLoopbackHost', () => {
  it.each(['localhost', 'LOCALHOST', '127.0.0.1', '127.10.20.30', '::1', '[::1]', '[::ffff:7f00:1]', 'localhost.'])(
    '%s is loopback',
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
    },
  );
  it.each([
    '0.0.0.0',
    '::',
    '[::]',
    '10.0.0.5',
    '192.168.1.2',
    'app.example.com',
    'localhost.example.com',
    '128.0.0.1',
    '::2',
  ])('%s is not', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('deployment guards (issue 14, item 4): no TEST MODE checkout or test hooks on a public address by accident', () => {
  it('keeps the TEST MODE checkout as the default on every loopback address', () => {
    for (const env of [
      {},
      { PUBLIC_URL: 'http://localhost:5173' },
      { HOST: '::1' },
      { HOST: 'localhost', PUBLIC_URL: 'http://127.0.0.2:8080' },
      { PUBLIC_URL: 'http://[::1]:3000' },
    ]) {
      const config = loadConfig(env);
      expect(config.publicDeployment, JSON.stringify(env)).toBe(false);
      expect(config.embedded).toContain('payments: built-in TEST MODE checkout');
    }
    expect(loadConfig({ HOST: '::1', PORT: '4000' }).publicUrl).toBe('http://[::1]:4000');
  });

  it.each([
    [{ PUBLIC_URL: 'https://app.example.com' }, 'PUBLIC_URL https://app.example.com is not a loopback address'],
    [{ PUBLIC_URL: 'http://192.168.1.20:3000' }, 'PUBLIC_URL http://192.168.1.20:3000 is not a loopback address'],
    // Listening on every interface while PUBLIC_URL defaults to http://127.0.0.1:PORT is public all the same.
    [{ HOST: '0.0.0.0' }, 'HOST 0.0.0.0 is not a loopback address'],
    [{ HOST: '::' }, 'HOST :: is not a loopback address'],
    [{ HOST: '10.0.0.5', PUBLIC_URL: 'http://localhost:3000' }, 'HOST 10.0.0.5 is not a loopback address'],
  ])('refuses %o without Stripe keys or BILLING=test, naming the variables', (env, where) => {
    const message = configError(env);
    expect(message).toContain('STRIPE_SECRET_KEY');
    expect(message).toContain('STRIPE_WEBHOOK_SECRET');
    expect(message).toContain('BILLING=test');
    expect(message).toContain(where);
    expect(message).toContain('TEST MODE checkout');
  });

  it('starts a public deployment with Stripe keys, or with BILLING=test on purpose', () => {
    const paid = loadConfig({ HOST: '0.0.0.0', PUBLIC_URL: 'https://app.example.com', ...STRIPE });
    expect(paid.publicDeployment).toBe(true);
    expect(paid.embedded).not.toContain('payments: built-in TEST MODE checkout');
    const demo = loadConfig({ HOST: '0.0.0.0', PUBLIC_URL: 'https://demo.example.com', BILLING: 'test' });
    expect(demo.embedded).toContain('payments: built-in TEST MODE checkout');
    expect(loadConfig({ PUBLIC_URL: 'https://app.example.com', BILLING: 'stripe', ...STRIPE }).BILLING).toBe('stripe');
    // Empty counts as unset: still refused.
    expect(configError({ PUBLIC_URL: 'https://app.example.com', BILLING: '' })).toContain('STRIPE_SECRET_KEY');
  });

  it('checks BILLING against the Stripe keys', () => {
    expect(configError({ BILLING: 'stripe' })).toContain(
      'STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET: required when BILLING=stripe',
    );
    expect(configError({ BILLING: 'test', ...STRIPE })).toContain('BILLING: test contradicts STRIPE_SECRET_KEY');
    expect(configError({ BILLING: 'free' })).toContain('BILLING');
  });

  it('refuses TEST_HOOKS with NODE_ENV=production on a public address, and only there', () => {
    const message = configError({ PUBLIC_URL: 'https://app.example.com', ...STRIPE, TEST_HOOKS: 'true' });
    expect(message).toContain('TEST_HOOKS');
    expect(message).toContain('NODE_ENV=production');
    expect(configError({ HOST: '0.0.0.0', BILLING: 'test', NODE_ENV: 'production', TEST_HOOKS: 'true' })).toContain(
      'TEST_HOOKS',
    );
    // The journeys, benches and start test: loopback, production, hooks on.
    expect(loadConfig({ HOST: '127.0.0.1', NODE_ENV: 'production', TEST_HOOKS: 'true' }).TEST_HOOKS).toBe(true);
    // A public staging run in test mode may keep them (with a loud warning, below).
    expect(
      loadConfig({ PUBLIC_URL: 'https://staging.example.com', BILLING: 'test', NODE_ENV: 'test', TEST_HOOKS: 'true' })
        .TEST_HOOKS,
    ).toBe(true);
  });

  it('warns loudly when a public deployment runs TEST MODE payments or test hooks on purpose', () => {
    expect(startupWarnings(loadConfig({}))).toEqual([]);
    const [billing, hooks] = startupWarnings(
      loadConfig({ PUBLIC_URL: 'https://staging.example.com', BILLING: 'test', NODE_ENV: 'test', TEST_HOOKS: 'true' }),
    );
    expect(billing).toMatch(/^TEST MODE PAYMENTS ON A PUBLIC ADDRESS \(https:\/\/staging\.example\.com/);
    expect(billing).toContain('subscribe without paying');
    expect(hooks).toMatch(/^TEST HOOKS ON A PUBLIC ADDRESS/);
  });
});

describe('shared storage (issue 14, item 15c)', () => {
  it('warns, in several lines naming the S3 variables, when a shared database meets local file storage', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://app@db.internal/watos', DATA_DIR: '/srv/watos' });
    const warnings = startupWarnings(config);
    expect(warnings).toHaveLength(1);
    const [warning] = warnings;
    expect(warning!.split('\n').length).toBeGreaterThanOrEqual(4);
    expect(warning).toMatch(/^SHARED DATABASE, LOCAL FILES/);
    expect(warning).toContain('/srv/watos/uploads');
    expect(warning).toContain('404 on the other');
    for (const name of [
      'S3_BUCKET',
      'S3_ACCESS_KEY_ID',
      'S3_SECRET_ACCESS_KEY',
      'S3_ENDPOINT',
      'REQUIRE_SHARED_STORAGE=true',
    ])
      expect(warning).toContain(name);
  });

  it('does not warn with S3 storage or with the embedded database', () => {
    expect(startupWarnings(loadConfig({ DATABASE_URL: 'postgres://app@db.internal/watos', ...S3 }))).toEqual([]);
    expect(startupWarnings(loadConfig({ DATA_DIR: '/srv/watos' }))).toEqual([]);
  });

  it('refuses to start without S3 when REQUIRE_SHARED_STORAGE=true', () => {
    const message = configError({ DATABASE_URL: 'postgres://app@db.internal/watos', REQUIRE_SHARED_STORAGE: 'true' });
    for (const name of ['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'REQUIRE_SHARED_STORAGE=true'])
      expect(message).toContain(name);
    expect(loadConfig({ REQUIRE_SHARED_STORAGE: 'true', ...S3 }).REQUIRE_SHARED_STORAGE).toBe(true);
    expect(loadConfig({ REQUIRE_SHARED_STORAGE: '' }).REQUIRE_SHARED_STORAGE).toBe(false);
    expect(configError({ REQUIRE_SHARED_STORAGE: 'yes' })).toContain('REQUIRE_SHARED_STORAGE');
  });
});

describe('HTTP timeouts (issue 14, item 7)', () => {
  it('defaults: 20 s for headers, 30 s idle, 500 B/s bodies, and a request limit that fits UPLOAD_MAX_MB at 64 kbit/s', () => {
    expect(loadConfig({}).httpTimeouts).toEqual({
      headersMs: 20_000,
      idleMs: 30_000,
      requestMs: 3_200_000,
      minBodyBytesPerSecond: 500,
    });
    expect(loadConfig({ UPLOAD_MAX_MB: '100' }).httpTimeouts.requestMs).toBe(12_800_000);
    expect(loadConfig({ UPLOAD_MAX_MB: '1' }).httpTimeouts.requestMs).toBe(300_000);
  });

  it('honours the variables, 0 turning the request limit and the body rate off', () => {
    const config = loadConfig({
      HTTP_HEADERS_TIMEOUT_S: '5',
      HTTP_IDLE_TIMEOUT_S: '2.5',
      HTTP_BODY_MIN_BYTES_PER_S: '0',
      HTTP_REQUEST_TIMEOUT_S: '0',
    });
    expect(config.httpTimeouts).toEqual({ headersMs: 5000, idleMs: 2500, requestMs: 0, minBodyBytesPerSecond: 0 });
  });

  it.each([
    [{ HTTP_HEADERS_TIMEOUT_S: '0' }, 'HTTP_HEADERS_TIMEOUT_S'],
    [{ HTTP_IDLE_TIMEOUT_S: 'soon' }, 'HTTP_IDLE_TIMEOUT_S'],
    [{ HTTP_BODY_MIN_BYTES_PER_S: '-1' }, 'HTTP_BODY_MIN_BYTES_PER_S'],
    [{ HTTP_REQUEST_TIMEOUT_S: '10', HTTP_HEADERS_TIMEOUT_S: '20' }, 'HTTP_REQUEST_TIMEOUT_S'],
  ])('rejects %o naming %s', (env, variable) => {
    expect(configError(env)).toContain(variable);
  });
});
