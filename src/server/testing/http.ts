// Helpers for server tests that talk HTTP through app.inject like a browser would: the
// Origin header Better Auth checks, and a cookie jar.
import type { App } from '../app.ts';

export class Browser {
  private cookies = new Map<string, string>();

  constructor(
    private readonly app: App,
    private readonly origin: string,
  ) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  forget(): void {
    this.cookies.clear();
  }

  async request(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, headers: Record<string, string> = {}) {
    const isForm = body instanceof URLSearchParams;
    const response = await this.app.inject({
      method,
      url,
      headers: {
        origin: this.origin,
        ...(this.cookies.size > 0 ? { cookie: this.cookieHeader } : {}),
        ...(body !== undefined ? { 'content-type': isForm ? 'application/x-www-form-urlencoded' : 'application/json' } : {}),
        ...headers,
      },
      payload: body === undefined ? undefined : isForm ? body.toString() : JSON.stringify(body),
    });
    const setCookie = response.headers['set-cookie'];
    for (const line of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
      const [pair, ...attributes] = line.split(';');
      const [name, ...rest] = pair.split('=');
      const expired = attributes.some((attribute) => /max-age=0/i.test(attribute.trim()));
      if (expired || rest.join('=') === '') this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), rest.join('='));
    }
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

  /** Submits an HTML form (application/x-www-form-urlencoded). */
  submitForm(url: string, fields: Record<string, string>) {
    return this.request('POST', url, new URLSearchParams(fields));
  }
}
