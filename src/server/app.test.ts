import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from './http/logging.ts';
import { createTestApp, type TestApp } from './testing/app.ts';
import { jsonBody } from './testing/http.ts';

describe('the HTTP application', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await createTestApp();
  });
  afterAll(async () => {
    await test?.close();
  });

  it('answers /healthz ok once migrations ran', async () => {
    const response = await test.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('answers /healthz 503 when the database stops answering', async () => {
    const database = await (await import('./db/testing.ts')).openTestDatabase('pglite');
    const { buildApp } = await import('./app.ts');
    const app = await buildApp({ config: test.config, database, webRoot: null, logger: false });
    await database.close();
    const response = await app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ status: 'unavailable', error: 'Database is not answering' });
    await app.close();
  });

  it('answers unknown paths with the JSON error shape', async () => {
    const response = await test.app.inject({ method: 'POST', url: '/nowhere' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: 'Not found: POST /nowhere' });
  });

  it('answers malformed JSON with a 400 JSON error, not a stack trace', async () => {
    const response = await test.app.inject({
      method: 'POST',
      url: '/healthz',
      headers: { 'content-type': 'application/json' },
      payload: '{"broken":',
    });
    expect(response.statusCode).toBe(400);
    const body = jsonBody<{ error: string }>(response);
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).not.toMatch(/at .*\.ts/);
  });

  it('sets the security headers on API answers too', async () => {
    const response = await test.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.headers['content-security-policy']).toContain("frame-ancestors 'self'");
    expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
  });
});

describe('redactUrl', () => {
  it('hides credential-bearing query parameters and keeps the rest', () => {
    expect(redactUrl('/reset-password?token=abc123&x=1')).toBe('/reset-password?token=%5Bredacted%5D&x=1');
    expect(redactUrl('/success?session_id=cs_test_1')).toBe('/success?session_id=%5Bredacted%5D');
    expect(redactUrl('/files')).toBe('/files');
  });
});
