/** API tokens of a user: issue (shown once, stored as a SHA-256 hash), list, revoke. */
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { apiTokens } from '../db/schema.js';
import { announceAccountChange } from './changes.js';
import { AccountError } from './errors.js';
import { hashToken, newToken } from './tokens.js';
import { requireUser } from './users.js';

export interface TokenSummary {
  id: number;
  userId: number;
  createdAt: string;
  revokedAt: string | null;
}

/** A new token for an active user; a disabled user gets none (it would not work). */
export async function issueToken(db: Db, userId: number): Promise<{ id: number; token: string }> {
  const user = await requireUser(db, userId);
  if (user.disabledAt) throw new AccountError('user-disabled', `User ${userId} is disabled; enable it first.`);
  const token = newToken();
  const [row] = await db.insert(apiTokens).values({ userId, tokenHash: hashToken(token) }).returning({ id: apiTokens.id });
  return { id: row.id, token };
}

/** Every token of a user, oldest first, revoked ones included (never the token itself). */
export async function listTokens(db: Db, userId: number): Promise<TokenSummary[]> {
  await requireUser(db, userId);
  return db
    .select({ id: apiTokens.id, userId: apiTokens.userId, createdAt: apiTokens.createdAt, revokedAt: apiTokens.revokedAt })
    .from(apiTokens)
    .where(eq(apiTokens.userId, userId))
    .orderBy(asc(apiTokens.id));
}

/**
 * Revokes a token (of `userId` when given) and tells every process to drop it from its cache.
 * Returns its hash, or null when there is no such unrevoked token.
 */
export async function revokeToken(db: Db, tokenId: number, userId?: number): Promise<string | null> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(apiTokens)
      .set({ revokedAt: sql`now()` })
      .where(and(
        eq(apiTokens.id, tokenId),
        userId === undefined ? undefined : eq(apiTokens.userId, userId),
        isNull(apiTokens.revokedAt),
      ))
      .returning({ hash: apiTokens.tokenHash });
    if (!row) return null;
    await announceAccountChange(tx as unknown as Db, { kind: 'token', hash: row.hash });
    return row.hash;
  });
}
