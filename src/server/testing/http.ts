// Helpers for server tests that talk HTTP through app.inject like a browser would: the
// Origin header Better Auth checks, and a cookie jar.
import type { App } from '../app.ts';
import { CookieJar } from './cookieJar.ts';

export class Browser {
  private readonly cookies = new CookieJar();

  constructor(
    private readonly app: App,
    private readonly origin: string,
  ) {}

  get cookieHeader(): string {
    return this.cookies.header;
  }

  forget(): void {
    this.cookies.clear();
  }

  async request(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    const isForm = body instanceof URLSearchParams;
    const response = await this.app.inject({
      method,
      url,
      headers: {
        origin: this.origin,
        ...(this.cookies.size > 0 ? { cookie: this.cookieHeader } : {}),
        ...(body !== undefined
          ? { 'content-type': isForm ? 'application/x-www-form-urlencoded' : 'application/json' }
          : {}),
        ...headers,
      },
      payload: body === undefined ? undefined : isForm ? body.toString() : JSON.stringify(body),
    });
    const setCookie = response.headers['set-cookie'];
    this.cookies.receive(Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []);
    return response;
  }

  get(url: string) {
    return this.request('GET', url);
  }

  post(url: string, body: unknown = {}) {
    return this.request('POST', url, body);
  }

  put(url: string, body: unknown) {
    return this.request('PUT', url, body);
  }

  patch(url: string, body: unknown) {
    return this.request('PATCH', url, body);
  }

  delete(url: string, body?: unknown) {
    return this.request('DELETE', url, body);
  }

  /** Submits an HTML form (application/x-www-form-urlencoded). */
  submitForm(url: string, fields: Record<string, string>) {
    return this.request('POST', url, new URLSearchParams(fields));
  }
}

/**
 * The JSON body of an inject (or fetch-like) response, typed by the test that reads it. The test
 * asserts the shape it names; this only moves the `any` of `response.json()` to one place.
 */
export function jsonBody<T>(response: { json(): unknown }): T {
  return response.json() as T;
}

/** JSON text (a raw HTTP body, a log line) parsed and typed by the test that reads it. */
export function parseJson<T>(text: string): T {
  return JSON.parse(text) as T;
}
