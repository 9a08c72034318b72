/**
 * What one finished call means for its lead (CONTRACT §5, docs/decisions.md "Dialer").
 *
 * - `completed`: the lead is done (a connected conversation, or voicemail without
 *   `retry_on_voicemail`: the number was reached and the assistant handled the machine).
 * - `retry`: the attempt counts against the contact; retried after `retry_interval` until
 *   `max_retries`, then the next contact.
 */
import { isLive } from '../calls/state-machine.js';

export interface FinishedCall {
  status: string;
  answeredBy: string;
  answeredAt: string | null;
  transcript: string;
  evaluation: Record<string, unknown>;
}

export interface RetryRules {
  retryOnVoicemail: boolean;
  retryOnGoalIncomplete: boolean;
  goalCompletionVariable: string | null;
}

export type Outcome = { kind: 'completed'; reason: string } | { kind: 'retry'; reason: string };

/** A value extracted for the goal variable that means "goal not met". */
export function isFalsy(value: unknown): boolean {
  if (value === false || value === 0) return true;
  if (typeof value === 'string') return ['false', '0', 'no'].includes(value.trim().toLowerCase());
  return false;
}

/** Whether a customer said anything (a transcript line of the customer). */
function customerSpoke(transcript: string): boolean {
  return /^Customer:/m.test(transcript);
}

export function classify(call: FinishedCall, rules: RetryRules): Outcome {
  const { status } = call;
  if (status === 'busy' || status === 'no-answer' || status === 'failed') return { kind: 'retry', reason: status };
  if (isLive(status)) {
    // Not final: never settled from here (the caller checks), but never a completion either.
    return { kind: 'retry', reason: `not final (${status})` };
  }
  if (call.answeredBy === 'machine') {
    return rules.retryOnVoicemail ? { kind: 'retry', reason: 'voicemail' } : { kind: 'completed', reason: 'voicemail' };
  }
  // `ended` covers the max duration and "ended by the service" (crash recovery). Without a
  // conversation (the customer never spoke: never answered, or silent) it is an attempt to
  // repeat. The customer's words are the conversation, whatever `answered_at` says: a record
  // whose answer was lost to a database outage must not dial that customer again.
  if (status === 'ended' && !customerSpoke(call.transcript)) {
    return { kind: 'retry', reason: 'ended without conversation' };
  }
  const goal = rules.goalCompletionVariable;
  if (rules.retryOnGoalIncomplete && goal && Object.hasOwn(call.evaluation ?? {}, goal) && isFalsy(call.evaluation[goal])) {
    return { kind: 'retry', reason: 'goal incomplete' };
  }
  return { kind: 'completed', reason: status };
}
