/**
 * The user's `max_calls_in_parallel` counts live calls (initiated, ringing, in-progress)
 * across make_call, simulated inbound calls, campaigns and connected browser calls (`takesSlot`). Whoever creates a call takes the
 * user's advisory lock inside its insert transaction, counts, and inserts — so concurrent
 * creators (several requests, the dialer, several instances) can never overshoot.
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from './types.js';

/** First key of the two-key advisory lock; the second is the user id. */
export const USER_CALLS_LOCK = 727_101;

/** Takes the user's call-creation lock until the end of the current transaction. */
export async function lockUserCalls(tx: DbOrTx, userId: number): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${USER_CALLS_LOCK}::int, ${userId}::int)`);
}

/**
 * Whether the call row `alias` takes one of its user's parallel slots: it is live, and it is not
 * a browser call still waiting for its page to connect (its one-time token unspent). A visitor
 * who never connects then holds nothing of the owner's; the slot is taken when the socket spends
 * the token, under the user's lock (src/api/web-calls/service.ts `spendMediaToken`).
 */
export function takesSlot(alias: string): string {
  return `${alias}.status IN ('initiated', 'ringing', 'in-progress')
    AND NOT EXISTS (SELECT 1 FROM web_call_tokens wt WHERE wt.call_id = ${alias}.id AND wt.spent_at IS NULL)`;
}

/** Live calls of the user that take a slot (take `lockUserCalls` first when about to insert one). */
export async function countLiveCalls(tx: DbOrTx, userId: number): Promise<number> {
  const res = await tx.execute(
    sql`SELECT count(*)::int AS n FROM calls c WHERE c.user_id = ${userId} AND ${sql.raw(takesSlot('c'))}`,
  );
  return Number((res.rows[0] as { n: number }).n);
}

export class CallLimitError extends Error {
  constructor(readonly limit: number) {
    super(`Too many calls in parallel: your account allows ${limit} at a time.`);
  }
}

/** Locks, counts and throws CallLimitError when the user has no free call slot. */
export async function reserveCallSlot(tx: DbOrTx, userId: number, limit: number): Promise<void> {
  await lockUserCalls(tx, userId);
  const live = await countLiveCalls(tx, userId);
  if (live >= limit) throw new CallLimitError(limit);
}
