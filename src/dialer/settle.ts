/**
 * Settling a lead from its finished call (CONTRACT §5): one transaction that counts the attempt
 * on the contact that was dialled and decides completed / retry later / next secondary contact /
 * reached-max-retries. Idempotent: only the lead whose `current_call_id` is the call changes,
 * and that column is cleared in the same statement, so a duplicate event settles nothing.
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../calls/types.js';
import { rowsOf } from '../db/pool.js';
import { isLive } from '../calls/state-machine.js';
import { classify, type FinishedCall } from './outcome.js';

export interface SettleResult {
  leadId: number;
  campaignId: number;
  outcome: 'completed' | 'retry' | 'next-contact' | 'reached-max-retries' | 'released';
  reason: string;
}

/** Settles the lead whose current call is `callId`; null when there is none or the call is still live. */
export async function settleLead(tx: DbOrTx, callId: number, now: Date): Promise<SettleResult | null> {
  const nowIso = now.toISOString();
  const [lead] = rowsOf<{
    id: number;
    campaign_id: number;
    status: string;
    attempts: number;
    max_retries: number;
    retry_interval: number;
    retry_on_voicemail: boolean;
    retry_on_goal_incomplete: boolean;
    goal_completion_variable: string | null;
  }>(await tx.execute(sql`
    select l.id, l.campaign_id, l.status, l.attempts, c.max_retries, c.retry_interval, c.retry_on_voicemail,
           c.retry_on_goal_incomplete, c.goal_completion_variable
      from leads l join campaigns c on c.id = l.campaign_id
     where l.current_call_id = ${callId}
       for update of l`));
  if (!lead) return null; // settled already, or not a campaign call

  const [call] = rowsOf<FinishedCall & { secondary_contact_id: number | null }>(await tx.execute(sql`
    select status, answered_by as "answeredBy", answered_at as "answeredAt", transcript, evaluation, secondary_contact_id
      from calls where id = ${callId}`));
  if (!call) {
    // The call record was deleted: release the lead without counting an attempt.
    await tx.execute(sql`
      update leads set current_call_id = null, updated_at = now(),
             next_attempt_at = ${nowIso}::timestamptz + make_interval(mins => ${lead.retry_interval})
       where id = ${lead.id}`);
    return { leadId: lead.id, campaignId: lead.campaign_id, outcome: 'released', reason: 'call record deleted' };
  }
  if (isLive(call.status)) return null; // not finished yet

  const outcome = classify(call, {
    retryOnVoicemail: lead.retry_on_voicemail,
    retryOnGoalIncomplete: lead.retry_on_goal_incomplete,
    goalCompletionVariable: lead.goal_completion_variable,
  });
  const base = { leadId: lead.id, campaignId: lead.campaign_id, reason: outcome.reason };
  const contactId = call.secondary_contact_id;

  if (lead.status !== 'created') {
    // The client set a final status after the call ended and before this settlement: the
    // attempt is counted, the client's status stands.
    if (contactId !== null) {
      await tx.execute(sql`update secondary_contacts set attempts = attempts + 1, updated_at = now() where id = ${contactId} and lead_id = ${lead.id}`);
    }
    await tx.execute(sql`
      update leads set current_call_id = null, attempts = attempts + ${contactId === null ? 1 : 0}
       where id = ${lead.id}`);
    return { ...base, outcome: 'released', reason: `lead status ${lead.status} set by the client` };
  }

  // Count the attempt on the contact that was dialed.
  let contactAttempts: number;
  if (contactId === null) {
    contactAttempts = lead.attempts + 1;
  } else {
    const [s] = rowsOf<{ attempts: number }>(await tx.execute(sql`
      update secondary_contacts
         set attempts = attempts + 1, updated_at = now(),
             status = case when ${outcome.kind === 'completed'} then 'completed'
                           when attempts + 1 >= ${lead.max_retries} then 'reached-max-retries'
                           else status end
       where id = ${contactId} and lead_id = ${lead.id}
       returning attempts`));
    contactAttempts = s?.attempts ?? lead.max_retries;
  }
  const primaryInc = contactId === null ? 1 : 0;

  if (outcome.kind === 'completed') {
    await tx.execute(sql`
      update leads set status = 'completed', attempts = attempts + ${primaryInc}, current_call_id = null,
             next_attempt_at = null, updated_at = now()
       where id = ${lead.id}`);
    return { ...base, outcome: 'completed' };
  }
  if (contactAttempts < lead.max_retries) {
    await tx.execute(sql`
      update leads set attempts = attempts + ${primaryInc}, current_call_id = null, updated_at = now(),
             next_attempt_at = ${nowIso}::timestamptz + make_interval(mins => ${lead.retry_interval})
       where id = ${lead.id}`);
    return { ...base, outcome: 'retry' };
  }
  // This contact is used up: the next secondary contact in order, at once, else final.
  const [next] = rowsOf<{ id: number }>(await tx.execute(sql`
    select id from secondary_contacts
     where lead_id = ${lead.id} and status = 'created' and attempts < ${lead.max_retries}
       ${contactId === null ? sql`` : sql`and id <> ${contactId}`}
     order by position, id limit 1`));
  if (next) {
    await tx.execute(sql`
      update leads set attempts = attempts + ${primaryInc}, current_call_id = null, updated_at = now(),
             next_attempt_at = ${nowIso}::timestamptz
       where id = ${lead.id}`);
    return { ...base, outcome: 'next-contact' };
  }
  await tx.execute(sql`
    update leads set status = 'reached-max-retries', attempts = attempts + ${primaryInc}, current_call_id = null,
           next_attempt_at = null, updated_at = now()
     where id = ${lead.id}`);
  return { ...base, outcome: 'reached-max-retries' };
}
