/**
 * Claiming: one tick of one campaign (CONTRACT §5, issue 7), the transaction that decides which
 * leads are dialled now. It share-locks the campaign row (a concurrent stop waits for it, so no
 * call is created after a stop commits), takes the user's advisory lock (src/dialer/limits.ts;
 * make_call takes the same), counts the live calls of the user and of the campaign, claims due
 * leads with FOR UPDATE SKIP LOCKED, picks each lead's contact (primary, then secondary),
 * creates the calls in one INSERT through `CallService.createCallRecords` and sets
 * `leads.current_call_id`, all in that one transaction. Starting the calls after commit is the Dialer's (src/dialer/dialer.ts).
 */
import { sql } from 'drizzle-orm';
import type { CallService, PlaceCallInput } from '../calls/types.js';
import { rowsOf, type Db } from '../db/pool.js';
import { liveCalls, lockUserCalls } from './limits.js';
import { isWindowOpen, windowOf } from './window.js';

export interface CampaignRow {
  id: number;
  user_id: number;
  assistant_id: number;
  status: string;
  timezone: string;
  max_calls_in_parallel: number;
  allowed_hours_start_time: string;
  allowed_hours_end_time: string;
  allowed_days: string[];
  max_retries: number;
  user_max: number;
  assistant_ok: boolean;
}

interface LeadRow {
  id: number;
  phone_number: string;
  variables: Record<string, unknown>;
  attempts: number;
}

/**
 * Claims due leads of one campaign and creates their calls in one transaction. Returns the ids
 * of the calls created (not yet started); none when the campaign is not running, its assistant
 * cannot call, its window is closed or its limits are reached.
 */
export async function claimDueLeads(db: Db, engine: CallService, campaignId: number, now: Date): Promise<number[]> {
  const nowIso = now.toISOString();
  return db.transaction(async (tx) => {
    const [c] = rowsOf<CampaignRow>(await tx.execute(sql`
      select c.id, c.user_id, c.assistant_id, c.status, c.timezone, c.max_calls_in_parallel,
             c.allowed_hours_start_time, c.allowed_hours_end_time, c.allowed_days, c.max_retries,
             u.max_calls_in_parallel as user_max,
             coalesce(a.deleted_at is null and a.status = 'active' and a.phone_number_id is not null, false) as assistant_ok
        from campaigns c
        join users u on u.id = c.user_id
        left join assistants a on a.id = c.assistant_id
       where c.id = ${campaignId}
         for share of c`));
    if (!c || c.status !== 'in-progress') return [];
    if (!c.assistant_ok) return []; // an inactive, deleted or number-less assistant places no calls
    if (!isWindowOpen(windowOf(c), now)) return [];

    await lockUserCalls(tx, c.user_id);
    const live = await liveCalls(tx, c.user_id, c.id);
    const free = Math.min(c.max_calls_in_parallel - live.campaign, c.user_max - live.user);
    if (free <= 0) return [];

    // Due retries first (oldest due first), then leads never tried (roughly in creation order).
    const leads = rowsOf<LeadRow>(await tx.execute(sql`
      select id, phone_number, variables, attempts from leads
       where campaign_id = ${c.id} and status = 'created' and current_call_id is null
         and next_attempt_at <= ${nowIso}::timestamptz
       order by next_attempt_at
       limit ${free}
         for update skip locked`));
    if (leads.length < free) {
      leads.push(...rowsOf<LeadRow>(await tx.execute(sql`
        select id, phone_number, variables, attempts from leads
         where campaign_id = ${c.id} and status = 'created' and current_call_id is null
           and next_attempt_at is null
         limit ${free - leads.length}
           for update skip locked`)));
    }
    if (leads.length === 0) return [];

    // Which contact: the primary number until it has had max_retries attempts, then the
    // secondary contacts in order (each also up to max_retries).
    const exhausted = leads.filter((l) => l.attempts >= c.max_retries).map((l) => l.id);
    const secondary = new Map<number, { id: number; phone_number: string; variables: Record<string, unknown> }>();
    if (exhausted.length > 0) {
      for (const s of rowsOf<{ id: number; lead_id: number; phone_number: string; variables: Record<string, unknown> }>(await tx.execute(sql`
        select distinct on (lead_id) id, lead_id, phone_number, variables from secondary_contacts
         where lead_id in ${exhausted} and status = 'created' and attempts < ${c.max_retries}
         order by lead_id, position, id`))) {
        secondary.set(s.lead_id, s);
      }
    }

    // One call per lead that has a contact left, created together in one INSERT.
    const toCall: PlaceCallInput[] = [];
    const nothingLeft: number[] = [];
    for (const lead of leads) {
      let to = lead.phone_number;
      let variables = lead.variables ?? {};
      let secondaryContactId: number | null = null;
      if (lead.attempts >= c.max_retries) {
        const s = secondary.get(lead.id);
        if (!s) {
          nothingLeft.push(lead.id);
          continue;
        }
        to = s.phone_number;
        variables = { ...variables, ...(s.variables ?? {}) };
        secondaryContactId = s.id;
      }
      toCall.push({
        userId: c.user_id,
        assistantId: c.assistant_id,
        to,
        variables,
        type: 'outbound',
        campaignId: c.id,
        leadId: lead.id,
        secondaryContactId,
      });
    }
    if (nothingLeft.length > 0) {
      // Every contact used up (e.g. max_retries lowered mid-campaign): final, not dialed.
      await tx.execute(sql`
        update leads set status = 'reached-max-retries', next_attempt_at = null, updated_at = now()
         where id in ${nothingLeft}`);
    }
    const callIds = await engine.createCallRecords(tx, toCall);
    if (callIds.length > 0) {
      // Each lead gets the call that names it (calls.lead_id), whatever order the ids came in.
      await tx.execute(sql`
        update leads l set current_call_id = k.id
          from calls k
         where k.id in ${callIds} and l.id = k.lead_id`);
    }
    return callIds;
  });
}
