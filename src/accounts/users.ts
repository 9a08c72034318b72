/**
 * User accounts: create, list, disable and enable. Shared by the admin API and the CLI, so
 * both apply the same rules (one email per account, case-insensitive; a disabled account's
 * tokens stop working at once).
 */
import { and, asc, count, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { apiTokens, campaigns, users } from '../db/schema.js';
import { announceAccountChange } from './changes.js';
import { AccountError } from './errors.js';
import { hashToken, newToken, newWebhookSecret } from './tokens.js';

export interface AuthUser {
  id: number;
  name: string;
  email: string;
  maxTools: number;
  maxCallsInParallel: number;
}

export type UserRow = typeof users.$inferSelect;

export interface UserSummary {
  id: number;
  name: string;
  email: string;
  maxTools: number;
  maxCallsInParallel: number;
  disabledAt: string | null;
  createdAt: string;
  /** Tokens not revoked. */
  activeTokens: number;
}

export interface NewUser {
  name: string;
  email: string;
  maxTools?: number;
  maxCallsInParallel?: number;
}

/** Creates a user and its first API token (shown once; only its hash is stored). */
export async function createUser(db: Db, input: NewUser): Promise<{ user: UserRow; token: string }> {
  return db.transaction(async (tx) => {
    const [dup] = await tx.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = lower(${input.email})`);
    if (dup) throw new AccountError('email-taken', 'The email has already been taken.');
    const [user] = await tx
      .insert(users)
      .values({
        name: input.name,
        email: input.email,
        maxTools: input.maxTools ?? 5,
        maxCallsInParallel: input.maxCallsInParallel ?? 10,
        webhookSecret: newWebhookSecret(),
      })
      .returning()
      .catch((err: unknown) => {
        // Two creations racing past the check above meet at the unique index.
        if (uniqueViolation(err)) throw new AccountError('email-taken', 'The email has already been taken.');
        throw err;
      });
    const token = newToken();
    await tx.insert(apiTokens).values({ userId: user.id, tokenHash: hashToken(token) });
    return { user, token };
  });
}

const summaryColumns = {
  id: users.id,
  name: users.name,
  email: users.email,
  maxTools: users.maxTools,
  maxCallsInParallel: users.maxCallsInParallel,
  disabledAt: users.disabledAt,
  createdAt: users.createdAt,
  // Spelled out: drizzle leaves columns unqualified in a single-table select.
  activeTokens: sql<number>`(select count(*)::int from api_tokens t where t.user_id = users.id and t.revoked_at is null)`,
};

/** Users in id order, a page at a time, with the total. */
export async function listUsers(db: Db, opts: { limit?: number; offset?: number } = {}): Promise<{ users: UserSummary[]; total: number }> {
  const rows = await db
    .select(summaryColumns)
    .from(users)
    .orderBy(asc(users.id))
    .limit(opts.limit ?? 1000)
    .offset(opts.offset ?? 0);
  const [{ total }] = await db.select({ total: count() }).from(users);
  return { users: rows, total };
}

/** One user by id, or by email (case-insensitive) when `ref` is not a number. */
export async function findUser(db: Db, ref: number | string): Promise<UserSummary | null> {
  const where = typeof ref === 'number' || /^\d+$/.test(ref)
    ? eq(users.id, Number(ref))
    : sql`lower(${users.email}) = lower(${ref})`;
  const [row] = await db.select(summaryColumns).from(users).where(where);
  return row ?? null;
}

/** Like findUser, but a missing user is an AccountError. */
export async function requireUser(db: Db, ref: number | string): Promise<UserSummary> {
  const user = await findUser(db, ref);
  if (!user) throw new AccountError('user-not-found', `User not found: ${ref}`);
  return user;
}

/**
 * Disables an account: its tokens are refused from the moment this commits (every process
 * drops them from its cache), and its running campaigns stop, so no new call is placed for
 * it. Calls in flight finish. Disabling twice keeps the first time.
 */
export async function disableUser(db: Db, userId: number): Promise<{ user: UserSummary; stoppedCampaigns: number }> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(users)
      .set({ disabledAt: sql`coalesce(${users.disabledAt}, now())`, updatedAt: sql`now()` })
      .where(eq(users.id, userId))
      .returning({ id: users.id });
    if (!row) throw new AccountError('user-not-found', `User not found: ${userId}`);
    const stopped = await tx
      .update(campaigns)
      .set({ status: 'stopped', updatedAt: sql`now()` })
      .where(and(eq(campaigns.userId, userId), eq(campaigns.status, 'in-progress')))
      .returning({ id: campaigns.id });
    await announceAccountChange(tx as unknown as Db, { kind: 'user', id: userId });
    return { user: (await findUser(tx as unknown as Db, userId))!, stoppedCampaigns: stopped.length };
  });
}

/** Lets a disabled account's tokens work again; its campaigns stay stopped until started. */
export async function enableUser(db: Db, userId: number): Promise<UserSummary> {
  const [row] = await db
    .update(users)
    .set({ disabledAt: null, updatedAt: sql`now()` })
    .where(eq(users.id, userId))
    .returning({ id: users.id });
  if (!row) throw new AccountError('user-not-found', `User not found: ${userId}`);
  return (await findUser(db, userId))!;
}

/** The active user a token belongs to; null for an unknown or revoked token or a disabled user. */
export async function findUserByTokenHash(db: Db, hash: string): Promise<AuthUser | null> {
  const [row] = await db
    .select({
      id: users.id,
      name: users.name,
      email: users.email,
      maxTools: users.maxTools,
      maxCallsInParallel: users.maxCallsInParallel,
    })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .where(and(eq(apiTokens.tokenHash, hash), isNull(apiTokens.revokedAt), isNull(users.disabledAt)))
    .limit(1);
  return row ?? null;
}

export function uniqueViolation(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, i = 0; e && i < 3; e = e.cause as typeof e, i++) {
    if (e.code === '23505') return true;
  }
  return false;
}

export { hashToken };
