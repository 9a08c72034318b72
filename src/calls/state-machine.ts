/**
 * The call status machine (CONTRACT §6), in one place:
 *
 *   initiated → ringing → in-progress → completed | ended_by_customer | ended_by_assistant | ended
 *   initiated | ringing → busy | no-answer | failed     (never connected)
 *   initiated | ringing → ended                         (ended by the service, e.g. crash recovery)
 *
 * Every transition is one conditional UPDATE (`WHERE status = <from>`) that also moves
 * `updated_at`; an illegal transition is logged and refused, and so is one whose `from` no
 * longer holds (someone else moved the call first).
 */
import type { Logger } from 'pino';
import { storableJson, storableText } from '../lib/storable.js';

export const CALL_STATUSES = [
  'initiated',
  'ringing',
  'busy',
  'in-progress',
  'ended',
  'completed',
  'ended_by_customer',
  'ended_by_assistant',
  'no-answer',
  'failed',
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

export const LIVE_STATUSES = ['initiated', 'ringing', 'in-progress'] as const satisfies readonly CallStatus[];
export type LiveStatus = (typeof LIVE_STATUSES)[number];
export type EndStatus = Exclude<CallStatus, LiveStatus>;
export type UnconnectedEnd = 'busy' | 'no-answer' | 'failed';

const TRANSITIONS: Record<CallStatus, readonly CallStatus[]> = {
  initiated: ['ringing', 'busy', 'no-answer', 'failed', 'ended'],
  ringing: ['in-progress', 'busy', 'no-answer', 'failed', 'ended'],
  'in-progress': ['completed', 'ended_by_customer', 'ended_by_assistant', 'ended'],
  busy: [],
  'no-answer': [],
  failed: [],
  completed: [],
  ended_by_customer: [],
  ended_by_assistant: [],
  ended: [],
};

export function canTransition(from: CallStatus, to: CallStatus): boolean {
  return TRANSITIONS[from]?.includes(to) ?? false;
}

export function isLive(status: string): status is LiveStatus {
  return (LIVE_STATUSES as readonly string[]).includes(status);
}

/** Columns a transition may set alongside the status (whitelisted: they are spliced into SQL). */
const COLUMNS = {
  answeredBy: 'answered_by',
  answeredAt: 'answered_at',
  endedAt: 'ended_at',
  transcript: 'transcript',
  variables: 'variables',
  evaluation: 'evaluation',
  duration: 'duration',
  carrierCost: 'carrier_cost',
  totalCost: 'total_cost',
  recordingUrl: 'recording_url',
  toolCalls: 'tool_calls',
} as const;

export type TransitionFields = Partial<Record<keyof typeof COLUMNS, unknown>>;

/** `now()` as a value of a transition field. */
export const NOW = Symbol('now');

export interface Queryable {
  query(config: { name?: string; text: string; values?: unknown[] }): Promise<{ rowCount: number | null; rows: any[] }>;
}

const statementNames = new Map<string, string>();

/**
 * Moves call `callId` from `from` to `to`, setting `fields`; returns the updated row's
 * `user_id`, or null when refused (illegal, or the call was not in `from`).
 */
export async function transitionCall(
  db: Queryable,
  log: Logger,
  callId: number,
  from: CallStatus,
  to: CallStatus,
  fields: TransitionFields = {},
): Promise<{ userId: number } | null> {
  if (!canTransition(from, to)) {
    log.error({ callId, from, to }, 'illegal call status transition refused');
    return null;
  }
  const sets = ['status = $3', 'updated_at = now()'];
  const values: unknown[] = [callId, from, to];
  for (const [key, value] of Object.entries(fields)) {
    const column = COLUMNS[key as keyof typeof COLUMNS];
    if (!column) throw new Error(`unknown call field ${key}`);
    if (value === NOW) {
      sets.push(`${column} = now()`);
      continue;
    }
    // What a model, a customer or a carrier said, as PostgreSQL can store it: one NUL in a
    // transcript would fail the final record and lose the whole conversation.
    values.push(value !== null && typeof value === 'object' ? JSON.stringify(storableJson(value)) : typeof value === 'string' ? storableText(value) : value);
    sets.push(`${column} = $${values.length}`);
  }
  const text = `UPDATE calls SET ${sets.join(', ')} WHERE id = $1 AND status = $2 RETURNING user_id`;
  // A named (server-side prepared) statement per shape of update: transitions are the engine's busiest queries.
  let name = statementNames.get(text);
  if (!name) statementNames.set(text, (name = `sb_call_transition_${statementNames.size + 1}`));
  const res = await db.query({ name, text, values });
  if (res.rowCount !== 1) {
    log.warn({ callId, from, to }, 'call status transition refused: the call is no longer in the expected status');
    return null;
  }
  return { userId: Number(res.rows[0].user_id) };
}
