/**
 * Webhook messages as jobs on the deliver queue (spec 3.5, 6; CONTRACT §8): what one attempt's
 * job carries, the ids that make planning idempotent (a message id stable per call and kind, a
 * job id derived from message id and attempt number, so a re-run cannot queue a second copy),
 * a call's first attempts, and putting attempts on the queue. Working the queue is
 * src/webhooks/delivery.ts; recording attempts and planning retries src/webhooks/record.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import type PgBoss from 'pg-boss';
import type { SqlExecutor } from '../calls/events.js';
import { buildPayload, targetsFor, type CallContext, type WebhookKind } from './payload.js';

export const DELIVER_QUEUE = 'webhooks-deliver';

/** One attempt of one message, as a job on the deliver queue. */
export interface MessageJob {
  /** Standard Webhooks message id: the same for every attempt of one message. */
  messageId: string;
  callId: number;
  userId: number;
  kind: WebhookKind;
  /** 1-based number of the attempt this job makes. */
  attempt: number;
  /** The URL of the previous attempt (for the log when the webhook has been switched off since). */
  url: string;
  /** The exact JSON body; fixed for the message so every attempt sends the same bytes. */
  body: string;
  /** Whether the receiver's answer goes to the call's webhook_response. */
  storeResponse: boolean;
}

/** A pg-boss job id (uuid) derived from a name, so the same planned job is never inserted twice. */
export function jobIdFor(name: string): string {
  const h = createHash('sha256').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** The message id of a call's automatic webhook: stable, so a re-planned call reuses it. */
export function autoMessageId(c: CallContext, kind: WebhookKind): string {
  const h = createHash('sha256').update(`${c.callId}:${kind}:${c.createdAt}`).digest('base64url');
  return `msg_${h.slice(0, 27)}`;
}

export function randomMessageId(): string {
  return `msg_${randomBytes(20).toString('base64url').slice(0, 27)}`;
}

/**
 * The first attempt of each webhook a call sends, one payload for all. The post-call
 * receiver's answer is the one stored when both webhooks go out (it comes first).
 */
export function firstAttempts(
  call: CallContext,
  targets: ReturnType<typeof targetsFor>,
  messageIdOf: (kind: WebhookKind) => string,
): MessageJob[] {
  if (targets.length === 0) return [];
  const body = JSON.stringify(buildPayload(call));
  return targets.map((t, i) => ({
    messageId: messageIdOf(t.kind),
    callId: call.callId,
    userId: call.userId,
    kind: t.kind,
    attempt: 1,
    url: t.url,
    body,
    storeResponse: i === 0,
  }));
}

/** Puts attempts on the deliver queue (through `db`, so inside a transaction when it is one). */
export async function enqueueAttempts(
  boss: PgBoss,
  jobs: MessageJob[],
  db: SqlExecutor,
  startAfter?: (j: MessageJob) => string,
): Promise<void> {
  await boss.insert(
    jobs.map((data) => ({
      id: jobIdFor(`${data.messageId}:${data.attempt}`),
      name: DELIVER_QUEUE,
      data,
      ...(startAfter ? { startAfter: startAfter(data) } : {}),
    })),
    { db } as PgBoss.InsertOptions,
  );
}
