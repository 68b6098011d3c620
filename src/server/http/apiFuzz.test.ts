// Property-based fuzzing of the whole HTTP API (fast-check): random and malformed bodies,
// queries, headers and multipart parts against every route of the route table (so a new
// route is fuzzed the day it lands), as a visitor and as a subscriber. Properties: never a
// 5xx, every error answer is JSON with an `error` text, and another user's data is left
// exactly as it was, even when the fuzzer is handed that user's ids. A second property sends
// the paths spelled other ways (dot segments, encoded dots, backslashes, doubled slashes,
// case, trailing slashes) over a raw socket, with bodies nested or sized past the limits and
// a client-written X-Forwarded-For: a path in another spelling is always refused with 400.
import { asc, eq, or } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../app.ts';
import {
  chatMessages,
  conversations,
  files,
  linkedSheets,
  profiles,
  subscriptions,
  user,
  watchlists,
} from '../db/schema.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { rawRequest } from '../testing/rawHttp.ts';
import { multipartBody } from '../testing/spreadsheets.ts';
import { subscribedUser } from '../testing/users.ts';
import { MAX_BODY_DEPTH, MAX_BODY_STRING } from './requestGuards.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 400);

let test: TestApp;
let app: App;
let origin: string;
let victimId: string;
let victimIds: string[] = [];
let attackerCookie: string;

/** Everything user B owns, read straight from the tables. */
async function snapshotOf(userId: string) {
  const db = test.database.db;
  const ownConversations = await db
    .select()
    .from(conversations)
    .where(eq(conversations.userId, userId))
    .orderBy(asc(conversations.id));
  return {
    user: await db.select().from(user).where(eq(user.id, userId)),
    profile: await db.select().from(profiles).where(eq(profiles.id, userId)),
    subscriptions: await db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.userId, userId))
      .orderBy(asc(subscriptions.id)),
    watchlists: await db.select().from(watchlists).where(eq(watchlists.userId, userId)).orderBy(asc(watchlists.kind)),
    files: await db.select().from(files).where(eq(files.uploadedByUserId, userId)).orderBy(asc(files.id)),
    linkedSheets: await db.select().from(linkedSheets).where(eq(linkedSheets.userId, userId)),
    conversations: ownConversations,
    messages:
      ownConversations.length === 0
        ? []
        : await db
            .select()
            .from(chatMessages)
            .where(or(...ownConversations.map((conversation) => eq(chatMessages.conversationId, conversation.id))))
            .orderBy(asc(chatMessages.id)),
  };
}

const texts = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '../../etc/passwd',
    '%00',
    "' or 1=1 --",
    '<script>alert(1)</script>',
    '9'.repeat(40),
    '-1',
    '0',
    'NaN',
    '{}',
    '[]',
    'null',
    '\u0000\uffff',
    'BTC',
    'NASDAQ:AAPL',
  ),
);

const jsonBodies = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(
    fc.constantFrom(
      'email',
      'password',
      'username',
      'priceId',
      'userId',
      'symbols',
      'sheet_url',
      'messages',
      'prompt',
      'token',
      'newPassword',
      'name',
    ),
    fc.oneof(texts, fc.integer(), fc.array(texts, { maxLength: 4 }), fc.constant(null)),
  ),
);

type Body =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'raw'; contentType: string; bytes: Uint8Array }
  | {
      kind: 'multipart';
      fields: Array<[string, string]>;
      file: { name: string; type: string; bytes: Uint8Array } | null;
    };

const bodies: fc.Arbitrary<Body> = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  jsonBodies.map((value) => ({ kind: 'json' as const, value })),
  fc.record({
    kind: fc.constant('raw' as const),
    contentType: fc.constantFrom(
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
      'multipart/form-data; boundary=x',
      'application/octet-stream',
      'text/csv',
      'garbage/;;;',
    ),
    bytes: fc.oneof(
      fc.uint8Array({ maxLength: 300 }),
      fc
        .constantFrom('{"broken":', '--x\r\nContent-Disposition: form-data; name="file"\r\n\r\n', 'a=1&a=2&b[]=3')
        .map((text) => new TextEncoder().encode(text)),
    ),
  }),
  fc.record({
    kind: fc.constant('multipart' as const),
    fields: fc.array(
      fc.tuple(fc.constantFrom('user_id', 'user_email', 'messages', 'prompt', 'conversation_id', 'x'), texts),
      { maxLength: 4 },
    ),
    file: fc.option(
      fc.record({
        name: fc.constantFrom(
          'a.csv',
          'b.xlsx',
          'c.xls',
          'd.txt',
          '../../x.csv',
          '',
          'évil name.csv',
          'x'.repeat(300) + '.csv',
        ),
        type: fc.constantFrom(
          'text/csv',
          'application/vnd.ms-excel',
          'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
          'text/plain',
          'application/zip',
          '',
        ),
        bytes: fc.oneof(
          fc.uint8Array({ maxLength: 200 }),
          fc.constant(new TextEncoder().encode('strike,type,open_interest\n100,call,5\n')),
        ),
      }),
      { nil: null },
    ),
  }),
);

const headerSets = fc.dictionary(
  fc.constantFrom(
    'accept',
    'x-forwarded-for',
    'range',
    'if-none-match',
    'last-event-id',
    'accept-encoding',
    'origin',
    'referer',
    'x-requested-with',
  ),
  // Header values must be printable Latin-1 on the wire (the client refuses anything else).
  fc
    .oneof(texts, fc.constantFrom('*/*', 'text/event-stream', 'bytes=0-10', 'gzip, br', 'http://evil.example', '::1'))
    .map((value) => value.replace(/[^\x20-\x7e]/g, '?')),
  { maxKeys: 3 },
);

const queries = fc.dictionary(
  fc.constantFrom(
    'category',
    'symbol',
    'alert_type',
    'max_count',
    'start_time',
    'end_time',
    'session_id',
    'token',
    'id',
    'granularity',
  ),
  texts,
  { maxKeys: 4 },
);

function fillPattern(url: string, pick: (index: number) => string): string {
  let index = 0;
  return url.replace(/:[A-Za-z_]+|\*$/g, () => encodeURIComponent(pick(index++)));
}

function requestBody(body: Body): { headers: Record<string, string>; payload: RequestInit['body'] } {
  if (body.kind === 'none') return { headers: {}, payload: undefined };
  if (body.kind === 'json')
    return { headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body.value) };
  if (body.kind === 'raw') return { headers: { 'content-type': body.contentType }, payload: Buffer.from(body.bytes) };
  const form = new FormData();
  for (const [name, value] of body.fields) form.append(name, value);
  if (body.file)
    form.append('file', new Blob([Buffer.from(body.file.bytes)], { type: body.file.type }), body.file.name);
  return { headers: {}, payload: form };
}

beforeAll(async () => {
  test = await createTestApp();
  app = test.app;
  // The victim owns a plan, watchlists and whatever else the features let a user create.
  const victim = await subscribedUser(test, 'victim@example.com');
  victimId = victim.userId;
  await victim.browser.request('PUT', '/api/watchlists/chart', { symbols: ['NASDAQ:AAPL', 'BINANCE:BTCUSDT'] });
  expect((await victim.browser.post('/api/conversations', {})).statusCode).toBe(200);
  const upload = multipartBody([
    { name: 'user_id', value: victim.userId },
    {
      name: 'file',
      filename: 'victim.csv',
      contentType: 'text/csv',
      data: Buffer.from('strike,type,open_interest\n100,call,5\n'),
    },
  ]);
  const uploaded = await app.inject({
    method: 'POST',
    url: '/upload',
    headers: { cookie: victim.browser.cookieHeader, 'content-type': upload.contentType },
    payload: upload.body,
  });
  expect(uploaded.statusCode).toBe(201);
  const attacker = await subscribedUser(test, 'attacker@example.com');
  attackerCookie = attacker.browser.cookieHeader;
  const snapshot = await snapshotOf(victimId);
  victimIds = [
    victimId,
    ...snapshot.subscriptions.map((row) => row.id),
    ...snapshot.files.map((row) => row.id),
    ...snapshot.conversations.map((row) => row.id),
  ];
  expect(snapshot.files).toHaveLength(1);
  expect(snapshot.conversations).toHaveLength(1);
  origin = await app.listen({ host: '127.0.0.1', port: 0 });
}, 120_000);

afterAll(async () => {
  await test?.close();
});

describe('API fuzzing over the route table', () => {
  it('never answers 5xx, always answers errors as JSON, and never touches another user', async () => {
    const before = await snapshotOf(victimId);
    const routes = app.routeTable.filter((route) => !['OPTIONS', 'HEAD'].includes(route.method));
    expect(routes.length).toBeGreaterThan(20);
    const seen = new Set<string>();

    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.boolean(),
        fc.array(fc.oneof(texts, fc.constantFrom(...victimIds)), { minLength: 3, maxLength: 3 }),
        queries,
        bodies,
        headerSets,
        async (route, asSubscriber, params, query, body, headers) => {
          seen.add(`${route.method} ${route.url}`);
          const path = fillPattern(route.url, (index) => params[index % params.length]!);
          const search = new URLSearchParams(query).toString();
          const { headers: bodyHeaders, payload } = requestBody(route.method === 'GET' ? { kind: 'none' } : body);
          const response = await fetch(`${origin}${path}${search ? `?${search}` : ''}`, {
            method: route.method,
            headers: { ...headers, ...bodyHeaders, ...(asSubscriber ? { cookie: attackerCookie } : {}) },
            body: payload,
            redirect: 'manual',
            signal: AbortSignal.timeout(10_000),
          });
          const type = response.headers.get('content-type') ?? '';
          // Streams (server-sent events) stay open: the status and headers are the answer.
          const text = type.includes('text/event-stream') ? (await response.body?.cancel(), '') : await response.text();
          const context = `${route.method} ${path}?${search} -> ${response.status} ${text.slice(0, 200)}`;
          expect(response.status, context).toBeLessThan(500);
          if (response.status >= 400 && !route.url.startsWith('/checkout/test')) {
            expect(type, context).toContain('application/json');
            const parsed = JSON.parse(text) as { error?: unknown };
            expect(typeof parsed.error, context).toBe('string');
            expect(String(parsed.error), context).not.toMatch(/\n\s+at /);
          }
        },
      ),
      { numRuns: RUNS, seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined },
    );

    expect(await snapshotOf(victimId)).toEqual(before);
    // Most of the route table was exercised, not just a corner of it.
    expect(seen.size).toBeGreaterThan(routes.length * 0.6);
  }, 240_000);
});

/** Other spellings of a path: `refused` ones are not canonical and must be answered 400. */
const spellings = fc.constantFrom(
  { name: 'as-is', refused: false, spell: (path: string) => path },
  { name: 'dot segment', refused: true, spell: (path: string) => `/.${path}` },
  { name: 'dot-dot segment', refused: true, spell: (path: string) => `/x/..${path}` },
  { name: 'encoded dot', refused: true, spell: (path: string) => `/%2e${path}` },
  { name: 'encoded dot-dot', refused: true, spell: (path: string) => `/x/.%2E${path}` },
  { name: 'doubled slash', refused: true, spell: (path: string) => `/${path}` },
  { name: 'inner dot', refused: true, spell: (path: string) => path.replace(/\/([^/]*)$/, '/./$1') },
  { name: 'backslash', refused: true, spell: (path: string) => path.replace(/\/([^/]*)$/, '/x\\..\\$1') },
  { name: 'trailing slash', refused: false, spell: (path: string) => `${path}/` },
  { name: 'upper case', refused: false, spell: (path: string) => path.toUpperCase() },
);

/** Bodies past the app-wide bounds (`refused`: every route that reads a body says 4xx), and field values the auth checks refuse. */
const boundBodies = fc.oneof(
  fc
    .integer({ min: MAX_BODY_DEPTH + 1, max: 20_000 })
    .map((depth) => ({ refused: true, text: `${'['.repeat(depth)}${']'.repeat(depth)}` })),
  fc
    .integer({ min: MAX_BODY_DEPTH + 1, max: 3_000 })
    .map((depth) => ({ refused: true, text: `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` })),
  fc
    .constantFrom('name', 'username', 'email', 'prompt', 'x')
    .map((key) => ({ refused: true, text: JSON.stringify({ [key]: 'x'.repeat(MAX_BODY_STRING + 1) }) })),
  fc.constantFrom('name', 'username').map((key) => ({
    refused: false,
    text: JSON.stringify({ [key]: 'x'.repeat(41), email: 'fuzz@example.com', password: 'secret-password' }),
  })),
  fc
    .constantFrom('{"name":null}', '{"name":"a\\u0000b"}', '{"username":"a\\u0000"}', '{"email":null,"password":null}')
    .map((text) => ({ refused: false, text })),
);

const forwardedFor = fc.oneof(
  fc.ipV4(),
  fc.ipV6(),
  fc.constantFrom('', 'unknown', '127.0.0.1, 10.0.0.1', '::1', '1.1.1.1,'.repeat(50)),
);

describe('path spellings, bounded bodies and forwarded headers over the route table', () => {
  it('refuses every other spelling with 400, and answers oversize, deep or NUL bodies with a JSON 4xx, never a 5xx', async () => {
    const before = await snapshotOf(victimId);
    const routes = app.routeTable.filter((route) => !['OPTIONS', 'HEAD'].includes(route.method));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.boolean(),
        fc.array(fc.oneof(texts, fc.constantFrom(...victimIds)), { minLength: 3, maxLength: 3 }),
        spellings,
        boundBodies,
        forwardedFor,
        async (route, asSubscriber, params, spelling, body, xff) => {
          const path = spelling.spell(fillPattern(route.url, (index) => params[index % params.length]!));
          const answer = await rawRequest(origin, route.method, path, {
            headers: {
              'content-type': 'application/json',
              'x-forwarded-for': xff,
              ...(asSubscriber ? { cookie: attackerCookie } : {}),
            },
            body: route.method === 'GET' ? undefined : body.text,
          });
          const context = `${spelling.name}: ${route.method} ${path} -> ${answer.status} ${answer.body.slice(0, 200)}`;
          expect(answer.status, context).toBeLessThan(500);
          if (spelling.refused) expect(answer.status, context).toBe(400);
          // GETs carry no body.
          if (route.method !== 'GET' && body.refused) expect(answer.status, context).toBeGreaterThanOrEqual(400);
          if (answer.status >= 400 && !route.url.startsWith('/checkout/test')) {
            expect(String(answer.headers['content-type']), context).toContain('application/json');
            expect(typeof (JSON.parse(answer.body) as { error?: unknown }).error, context).toBe('string');
          }
        },
      ),
      { numRuns: Math.ceil(RUNS / 2), seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined },
    );
    expect(await snapshotOf(victimId)).toEqual(before);
  }, 240_000);
});
