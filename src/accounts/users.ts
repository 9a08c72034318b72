import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { apiTokens, users } from '../db/schema.js';
import { hashToken, newToken, newWebhookSecret } from './tokens.js';

export interface AuthUser {
  id: number;
  name: string;
  email: string;
  maxTools: number;
  maxCallsInParallel: number;
}

export type UserRow = typeof users.$inferSelect;

export async function createUser(
  db: Db,
  input: { name: string; email: string; maxTools?: number; maxCallsInParallel?: number },
): Promise<{ user: UserRow; token: string }> {
  return db.transaction(async (tx) => {
    const [user] = await tx
      .insert(users)
      .values({
        name: input.name,
        email: input.email,
        maxTools: input.maxTools ?? 5,
        maxCallsInParallel: input.maxCallsInParallel ?? 10,
        webhookSecret: newWebhookSecret(),
      })
      .returning();
    const token = newToken();
    await tx.insert(apiTokens).values({ userId: user.id, tokenHash: hashToken(token) });
    return { user, token };
  });
}

export async function issueToken(db: Db, userId: number): Promise<{ id: number; token: string }> {
  const token = newToken();
  const [row] = await db.insert(apiTokens).values({ userId, tokenHash: hashToken(token) }).returning({ id: apiTokens.id });
  return { id: row.id, token };
}

/** Marks a token revoked; returns its hash (so caches can drop it) or null when unknown. */
export async function revokeToken(db: Db, userId: number, tokenId: number): Promise<string | null> {
  const [row] = await db
    .update(apiTokens)
    .set({ revokedAt: new Date().toISOString() })
    .where(and(eq(apiTokens.id, tokenId), eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt)))
    .returning({ hash: apiTokens.tokenHash });
  return row?.hash ?? null;
}

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
    .where(and(eq(apiTokens.tokenHash, hash), isNull(apiTokens.revokedAt)))
    .limit(1);
  return row ?? null;
}

export { hashToken };
