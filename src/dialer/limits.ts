/**
 * The per-user parallel-call limit (`users.max_calls_in_parallel`), shared by every path that
 * creates a live call (campaign dialer, make_call): take the user's lock, count live calls,
 * insert, commit. The lock is a transaction-scoped advisory lock keyed (USER_CALLS_LOCK,
 * user id), so it holds across all service instances on one database.
 */
import { sql } from 'drizzle-orm';
import { takesSlot } from '../calls/limits.js';
import type { DbOrTx } from '../calls/types.js';

/** The call engine's lock (key `(727101, user_id)`), so make_call and the dialer serialise on one lock. */
export { lockUserCalls, USER_CALLS_LOCK } from '../calls/limits.js';

/** Live calls of the user that take a slot (`takesSlot`), and of one campaign of theirs. */
export async function liveCalls(tx: DbOrTx, userId: number, campaignId?: number): Promise<{ user: number; campaign: number }> {
  const res = await tx.execute(sql`
    select count(*)::int as "user",
           count(*) filter (where c.campaign_id = ${campaignId ?? null}::int)::int as "campaign"
      from calls c
     where c.user_id = ${userId} and ${sql.raw(takesSlot('c'))}`);
  const row = res.rows[0] as { user: number; campaign: number };
  return { user: row.user, campaign: row.campaign };
}
