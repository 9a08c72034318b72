/**
 * Campaign rules (CONTRACT §4, §5): creation against the caller's outbound assistant,
 * listing, deletion, and the race-safe start/stop transitions. Placing calls, and marking
 * an in-progress campaign `completed` when no callable lead is left, is the dialer's part
 * (src/dialer), with the same kind of conditional UPDATE.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/pool.js';
import { assistants, campaigns } from '../../db/schema.js';
import type { DbOrTx } from '../../calls/types.js';
import { fieldError, HttpError, notFound } from '../toolkit/errors.js';
import type { CampaignRow } from './serializer.js';
import { isDbId } from '../toolkit/validation.js';
import { GOAL_VARIABLE_REQUIRED, type CampaignStatus, type CreateCampaignInput, type UpdateCampaignInput } from './schemas.js';

export const ASSISTANT_NOT_FOUND = 'Assistant not found or not an outbound assistant.';

/** The states a campaign can be started from, and the one it can be stopped from. */
export const STARTABLE: CampaignStatus[] = ['draft', 'stopped', 'completed'];
export const STOPPABLE: CampaignStatus[] = ['in-progress'];

/** The caller's campaign, or null (also for ids no row can have). */
export async function findOwnedCampaign(
  db: DbOrTx,
  userId: number,
  campaignId: number,
  lock?: 'key share' | 'update',
): Promise<CampaignRow | null> {
  if (!isDbId(campaignId)) return null;
  const q = db.select().from(campaigns).where(and(eq(campaigns.id, campaignId), eq(campaigns.userId, userId)));
  const [row] = lock === 'key share' ? await q.for('key share') : lock === 'update' ? await q.for('update') : await q;
  return row ?? null;
}

export async function createCampaign(db: Db, userId: number, input: CreateCampaignInput): Promise<CampaignRow> {
  return db.transaction(async (tx) => {
    const assistant = await outboundAssistantFor(tx, userId, input.assistant_id);
    const [row] = await tx
      .insert(campaigns)
      .values({
        userId,
        assistantId: assistant.id,
        name: input.name,
        status: 'draft',
        timezone: input.timezone ?? assistant.timezone,
        maxCallsInParallel: input.max_calls_in_parallel,
        allowedHoursStartTime: input.allowed_hours_start_time,
        allowedHoursEndTime: input.allowed_hours_end_time,
        allowedDays: input.allowed_days,
        maxRetries: input.max_retries,
        retryInterval: input.retry_interval,
        retryOnVoicemail: input.retry_on_voicemail,
        retryOnGoalIncomplete: input.retry_on_goal_incomplete,
        goalCompletionVariable: input.goal_completion_variable ?? null,
        markCompleteWhenNoLeads: input.mark_complete_when_no_leads,
      })
      .returning();
    return row;
  });
}

/** Finds the caller's outbound, undeleted assistant for a campaign, share-locked, or throws the 404 of CONTRACT §4. */
async function outboundAssistantFor(tx: DbOrTx, userId: number, assistantId: number): Promise<{ id: number; timezone: string }> {
  if (!isDbId(assistantId)) throw notFound(ASSISTANT_NOT_FOUND);
  // FOR SHARE: a concurrent soft delete of the assistant waits until the campaign is written.
  const [assistant] = await tx
    .select({ id: assistants.id, timezone: assistants.timezone })
    .from(assistants)
    .where(
      and(
        eq(assistants.id, assistantId),
        eq(assistants.userId, userId),
        eq(assistants.type, 'outbound'),
        sql`${assistants.deletedAt} is null`,
      ),
    )
    .for('share');
  if (!assistant) throw notFound(ASSISTANT_NOT_FOUND);
  return assistant;
}

export const ASSISTANT_LOCKED = 'The assistant cannot be changed while the campaign is in progress; stop it first.';

/**
 * Changes the fields sent (issue 17). The row is locked (FOR UPDATE), so the change waits for
 * a dialer tick in progress (which share-locks it) and applies from the next one. Everything
 * may change while the campaign runs except its assistant: the calls of one run all speak
 * with one assistant. `retry_on_goal_incomplete` needs a goal variable, sent or stored.
 */
export async function updateCampaign(db: Db, userId: number, campaignId: number, input: UpdateCampaignInput): Promise<CampaignRow> {
  return db.transaction(async (tx) => {
    const current = await findOwnedCampaign(tx, userId, campaignId, 'update');
    if (!current) throw notFound('Campaign not found');
    const set: Partial<typeof campaigns.$inferInsert> = {};
    if (input.assistant_id !== undefined && input.assistant_id !== current.assistantId) {
      if (current.status === 'in-progress') throw fieldError('assistant_id', ASSISTANT_LOCKED);
      set.assistantId = (await outboundAssistantFor(tx, userId, input.assistant_id)).id;
    }
    const retryOnGoal = input.retry_on_goal_incomplete ?? current.retryOnGoalIncomplete;
    const goalVariable = input.goal_completion_variable !== undefined ? input.goal_completion_variable : current.goalCompletionVariable;
    if (retryOnGoal && !goalVariable) {
      throw fieldError('goal_completion_variable', GOAL_VARIABLE_REQUIRED.replace(':attribute', 'goal completion variable'));
    }
    if (input.name !== undefined) set.name = input.name;
    if (input.timezone !== undefined) set.timezone = input.timezone;
    if (input.max_calls_in_parallel !== undefined) set.maxCallsInParallel = input.max_calls_in_parallel;
    if (input.allowed_hours_start_time !== undefined) set.allowedHoursStartTime = input.allowed_hours_start_time;
    if (input.allowed_hours_end_time !== undefined) set.allowedHoursEndTime = input.allowed_hours_end_time;
    if (input.allowed_days !== undefined) set.allowedDays = input.allowed_days;
    if (input.max_retries !== undefined) set.maxRetries = input.max_retries;
    if (input.retry_interval !== undefined) set.retryInterval = input.retry_interval;
    if (input.retry_on_voicemail !== undefined) set.retryOnVoicemail = input.retry_on_voicemail;
    if (input.retry_on_goal_incomplete !== undefined) set.retryOnGoalIncomplete = input.retry_on_goal_incomplete;
    if (input.goal_completion_variable !== undefined) set.goalCompletionVariable = input.goal_completion_variable;
    if (input.mark_complete_when_no_leads !== undefined) set.markCompleteWhenNoLeads = input.mark_complete_when_no_leads;
    if (Object.keys(set).length === 0) return current;
    const [row] = await tx
      .update(campaigns)
      .set({ ...set, updatedAt: sql`now()` })
      .where(eq(campaigns.id, current.id))
      .returning();
    return row;
  });
}

export async function listCampaigns(db: Db, userId: number): Promise<CampaignRow[]> {
  return db.select().from(campaigns).where(eq(campaigns.userId, userId)).orderBy(asc(campaigns.id));
}

/**
 * Deletes the caller's campaign in one statement: its leads and their secondary contacts go
 * with it (foreign keys cascade), which also stops it — the dialer finds nothing left to
 * dial. Calls keep their `campaign_name`; calls in flight finish normally.
 */
export async function deleteCampaign(db: Db, userId: number, campaignId: number): Promise<boolean> {
  if (!isDbId(campaignId)) return false;
  const rows = await db
    .delete(campaigns)
    .where(and(eq(campaigns.id, campaignId), eq(campaigns.userId, userId)))
    .returning({ id: campaigns.id });
  return rows.length > 0;
}

export interface StatusChange {
  /** The campaign's status after the request. */
  status: CampaignStatus;
  /** False for a no-op repeat (start of a running campaign, stop of one not running). */
  changed: boolean;
}

const failure = (message: string) => new HttpError(422, message, { success: false });

/** Why a campaign with this assistant cannot start, or null when it can. */
function startBlocker(a: { deletedAt: string | null; type: string | null; status: string | null; phoneNumberId: number | null }): string | null {
  if (a.type === null || a.deletedAt !== null) return "The campaign's assistant has been deleted.";
  if (a.type !== 'outbound') return "The campaign's assistant is not an outbound assistant.";
  if (a.status !== 'active') return "The campaign's assistant is inactive.";
  if (a.phoneNumberId === null) return "The campaign's assistant has no phone number.";
  return null;
}

/**
 * Start or stop (CONTRACT §5). Each transition is one conditional UPDATE … RETURNING, so two
 * concurrent requests (or the dialer completing the campaign) can never both win; when the
 * UPDATE matches nothing the current row says why (not found, no-op, assistant unusable).
 */
export async function changeCampaignStatus(db: Db, userId: number, campaignId: number, action: 'start' | 'stop'): Promise<StatusChange> {
  const notFoundError = notFound('Campaign not found.', { success: false });
  if (!isDbId(campaignId)) throw notFoundError;
  const owned = and(eq(campaigns.id, campaignId), eq(campaigns.userId, userId));
  for (let attempt = 0; attempt < 5; attempt++) {
    const updated =
      action === 'start'
        ? await db
            .update(campaigns)
            .set({ status: 'in-progress', updatedAt: sql`now()` })
            .where(
              and(
                owned,
                inArray(campaigns.status, STARTABLE),
                sql`exists (select 1 from ${assistants}
                  where ${assistants.id} = ${campaigns.assistantId}
                    and ${assistants.deletedAt} is null
                    and ${assistants.type} = 'outbound'
                    and ${assistants.status} = 'active'
                    and ${assistants.phoneNumberId} is not null)`,
              ),
            )
            .returning({ status: campaigns.status })
        : await db
            .update(campaigns)
            .set({ status: 'stopped', updatedAt: sql`now()` })
            .where(and(owned, inArray(campaigns.status, STOPPABLE)))
            .returning({ status: campaigns.status });
    if (updated.length > 0) return { status: updated[0].status as CampaignStatus, changed: true };

    const [current] = await db
      .select({
        status: campaigns.status,
        deletedAt: assistants.deletedAt,
        type: assistants.type,
        assistantStatus: assistants.status,
        phoneNumberId: assistants.phoneNumberId,
      })
      .from(campaigns)
      .leftJoin(assistants, eq(assistants.id, campaigns.assistantId))
      .where(owned);
    if (!current) throw notFoundError;
    const status = current.status as CampaignStatus;
    if (action === 'start') {
      if (status === 'in-progress') return { status, changed: false };
      const blocker = startBlocker({ ...current, status: current.assistantStatus });
      if (blocker) throw failure(blocker);
    } else if (!STOPPABLE.includes(status)) {
      return { status, changed: false };
    }
    // The row changed between the UPDATE and the read (a concurrent transition): try again.
  }
  throw new HttpError(409, 'The campaign is being changed by another request; please retry.', { success: false });
}
