// Cross-site request forgery guard for every state-changing route (POST, PUT, PATCH, DELETE),
// not only Better Auth's. SameSite=Lax cookies do not stop a form posted from another port
// or subdomain of the same site, so the browser's own word on where a request comes from
// decides:
// - an Origin header must be the app's origin (PUBLIC_URL's);
// - without one (or with `Origin: null`, which browsers send for same-origin form posts under
//   `Referrer-Policy: no-referrer`; security.ts now sets same-origin so the app's own forms
//   carry their origin), Sec-Fetch-Site must say same-origin or none;
// - with neither, the client is not a browser (curl, the admin CLI, server to server): no
//   cookie-riding to fear, allowed.
// Runs on onRequest, before any body is read. The Stripe webhook is exempt: Stripe's servers
// post it, and its signature is checked instead.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Route patterns whose callers are servers that prove themselves another way. */
export const CSRF_EXEMPT_ROUTES = new Set(['POST /api/webhooks/stripe']);

export const CSRF_REFUSAL = 'This request came from another site and was refused. Reload this page and try again.';

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Whether the browser says this request comes from the app itself (or it is no browser). */
export function isSameOriginRequest(headers: FastifyRequest['headers'], appOrigin: string): boolean {
  const origin = single(headers.origin)?.trim();
  const fetchSite = single(headers['sec-fetch-site'])?.trim().toLowerCase();
  if (origin && origin !== 'null') return origin.toLowerCase() === appOrigin.toLowerCase();
  if (fetchSite) return fetchSite === 'same-origin' || fetchSite === 'none';
  // `Origin: null` without Sec-Fetch-Site: a sandboxed frame or a privacy redirect in an older
  // browser; nothing vouches for it.
  return origin !== 'null';
}

export interface CsrfGuardOptions {
  /** PUBLIC_URL: its origin is the app's. */
  publicUrl: string;
}

async function csrfGuardPlugin(app: FastifyInstance, options: CsrfGuardOptions): Promise<void> {
  const appOrigin = new URL(options.publicUrl).origin;
  // A callback hook (no promise a request): it passes every GET at once. A refusal answers
  // here and so does not call `done`.
  app.addHook('onRequest', (request, reply, done) => {
    if (!STATE_CHANGING.has(request.method)) return done();
    // The matched route pattern, not the raw URL: no spelling of a path reaches the exemption
    // without being that route.
    if (CSRF_EXEMPT_ROUTES.has(`${request.method} ${request.routeOptions.url ?? ''}`)) return done();
    if (isSameOriginRequest(request.headers, appOrigin)) return done();
    request.log.warn(
      { origin: single(request.headers.origin), secFetchSite: single(request.headers['sec-fetch-site']) },
      'cross-site request refused',
    );
    void reply.code(403).send({ error: CSRF_REFUSAL });
  });
}

/**
 * After the request guards: the exemption compares the matched route, which only a path in
 * canonical form can reach.
 */
export const csrfGuard = fp(csrfGuardPlugin, {
  name: 'watos-csrf-guard',
  fastify: '5.x',
  dependencies: ['watos-request-guards'],
});
