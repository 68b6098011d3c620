// Every route that answers JSON declares its response with a shared zod schema (Fastify
// serialises with it, the browser parses with it). Walks the whole route table, so a new
// route without one fails here the day it lands. The exceptions answer something other than
// our JSON: each is named with the reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app.ts';

const NOT_OUR_JSON: Record<string, string> = {
  'GET /api/alerts/stream': 'server-sent events',
  'GET /api/live': 'server-sent events (the one live connection)',
  'POST /api/chat': "the AI SDK's UI message stream",
  'GET /files/:id/download': 'the stored file itself',
  'GET /files/:id/versions/:version/download': 'the stored file itself (an earlier version)',
  'GET /api/auth/*': "Better Auth's own handler (its own client parses the answers)",
  'POST /api/auth/*': "Better Auth's own handler",
};
// Better Auth's endpoints that our auth routes put a rate limit or a check in front of: the
// answer is still Better Auth's.
const BETTER_AUTH_ENDPOINT =
  /^POST \/api\/auth\/(sign-in|sign-up|request-password-reset|send-verification-email|reset-password|change-password|change-email|verify-password|delete-user|update-user|revoke-session)/;

let test: TestApp;
beforeAll(async () => {
  test = await createTestApp({ TEST_HOOKS: 'true' });
});
afterAll(async () => {
  await test?.close();
});

describe('response schemas', () => {
  it('are declared by every JSON route', () => {
    const missing = test.app.routeTable
      .map((route) => ({ key: `${route.method} ${route.url}`, codes: route.responseCodes }))
      .filter(({ key, codes }) => codes.length === 0 && !(key in NOT_OUR_JSON) && !BETTER_AUTH_ENDPOINT.test(key))
      .map(({ key }) => key);
    expect(missing).toEqual([]);
    // The walk saw the app's routes, not an empty table.
    expect(test.app.routeTable.length).toBeGreaterThan(40);
  });

  it('serialise what the route returns: /healthz answers its schema', async () => {
    const response = await test.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });
});
