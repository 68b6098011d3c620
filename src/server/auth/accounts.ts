// Accounts: the only module that reads or writes the account tables Better Auth does not
// write itself (profiles), and our own reads and writes of its `user` and `verification`
// rows (reset links, verification by hand). auth/service.ts builds the account flows on it.
import { and, eq, gt, like } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { profiles, user, verification } from '../db/schema.ts';

export type UserRow = typeof user.$inferSelect;

/** Better Auth stores a reset link as a `verification` row `reset-password:<token>` whose value is the user id. */
const RESET_IDENTIFIER_PATTERN = 'reset-password:%';

/** The profile row of a new user (Better Auth's user.create.after hook). */
export async function createProfile(db: Database, userId: string, username: string): Promise<void> {
  await db.insert(profiles).values({ id: userId, username }).onConflictDoNothing();
}

export async function findUserById(db: Database, userId: string): Promise<UserRow | null> {
  const [row] = await db.select().from(user).where(eq(user.id, userId));
  return row ?? null;
}

/** E-mail addresses are stored in lower case. */
export async function findUserByEmail(db: Database, email: string): Promise<UserRow | null> {
  const [row] = await db.select().from(user).where(eq(user.email, email.toLowerCase()));
  return row ?? null;
}

/** Marks a user's e-mail address verified (once; an already verified user is left as is). */
export async function markEmailVerified(db: Database, userId: string): Promise<void> {
  await db
    .update(user)
    .set({ emailVerified: true, updatedAt: new Date() })
    .where(and(eq(user.id, userId), eq(user.emailVerified, false)));
}

/** The user id of an unexpired reset link, or null. */
export async function resetTokenOwner(db: Database, token: string): Promise<string | null> {
  const [row] = await db
    .select({ value: verification.value })
    .from(verification)
    .where(and(eq(verification.identifier, `reset-password:${token}`), gt(verification.expiresAt, new Date())));
  return row?.value ?? null;
}

/** Deletes every outstanding reset link of a user (a link used already is gone). */
export async function revokeResetLinks(db: Database, userId: string): Promise<void> {
  await db
    .delete(verification)
    .where(and(like(verification.identifier, RESET_IDENTIFIER_PATTERN), eq(verification.value, userId)));
}
