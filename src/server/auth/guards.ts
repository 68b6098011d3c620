// Who is asking: the signed-in user from the Better Auth session cookie, and the one hook
// that gates every dashboard API (401 without a user, 403 without an active subscription).
import { desc, eq, sql } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fromNodeHeaders } from 'better-auth/node';
import type { Database } from '../db/client.ts';
import { subscriptions } from '../db/schema.ts';
import { HttpError } from '../http/errors.ts';
import { subscriptionState } from '../../shared/subscription.ts';
import type { Auth } from './auth.ts';

export interface SessionUser {
  id: string;
  email: string;
  username: string | null;
  emailVerified: boolean;
}

export interface SubscriptionSummary {
  id: string;
  status: string;
  current_period_end: string | null;
  price_id: string | null;
  cancel_at_period_end: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the dashboard guard; absent on open routes. */
    user?: SessionUser;
  }
}

export async function sessionUser(auth: Auth, request: FastifyRequest): Promise<SessionUser | null> {
  const session = await auth.api.getSession({ headers: fromNodeHeaders(request.headers) });
  if (!session) return null;
  const { user } = session;
  return { id: user.id, email: user.email, username: (user as { username?: string | null }).username ?? null, emailVerified: user.emailVerified };
}

/** The subscription that decides access: the one with the latest period end. */
export async function currentSubscription(db: Database, userId: string): Promise<SubscriptionSummary | null> {
  const [row] = await db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.userId, userId))
    .orderBy(sql`${subscriptions.status} = 'active' desc`, desc(subscriptions.currentPeriodEnd))
    .limit(1);
  if (!row) return null;
  return {
    id: row.id,
    status: row.status,
    current_period_end: row.currentPeriodEnd?.toISOString() ?? null,
    price_id: row.priceId,
    cancel_at_period_end: row.cancelAtPeriodEnd,
  };
}

export function requireUser(auth: Auth) {
  return async function requireUserHook(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const user = await sessionUser(auth, request);
    if (!user) throw new HttpError(401, 'Please log in first');
    request.user = user;
  };
}

export function requireSubscription(auth: Auth, db: Database) {
  const userHook = requireUser(auth);
  return async function requireSubscriptionHook(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    await userHook(request, reply);
    const subscription = await currentSubscription(db, request.user!.id);
    if (!subscriptionState(subscription).hasActiveSubscription) {
      throw new HttpError(403, 'An active subscription is required');
    }
  };
}
