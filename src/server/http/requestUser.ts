// The signed-in user of a request. The dashboard guard (auth/guards.ts) and the signed-in
// billing routes set request.user; handlers read it through requireUser(request), which
// answers 401 rather than crash if a route is ever registered outside those guards.
import type { FastifyRequest } from 'fastify';
import { HttpError } from './errors.ts';

export interface SessionUser {
  id: string;
  email: string;
  username: string | null;
  emailVerified: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the dashboard guard; absent on open routes. */
    user?: SessionUser;
  }
}

export const NOT_SIGNED_IN = 'Please log in first';

/** The request's user; 401 'Please log in first' when no guard has signed one in. */
export function requireUser(request: FastifyRequest): SessionUser {
  if (!request.user) throw new HttpError(401, NOT_SIGNED_IN);
  return request.user;
}
