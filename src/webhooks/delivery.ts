/**
 * Durable, signed, retried delivery of call results (spec 3.5, 6; CONTRACT §8).
 *
 * Flow: the call engine emits "call finished" (src/calls/events.ts) into our pg-boss queue
 * `webhooks-call-finished`. Its workers take events in batches: load the batch's calls in
 * one query, decide the targets, build each message's payload once, sign and POST all of
 * them concurrently (the first attempt), then write the batch's attempts to
 * `webhook_deliveries`, the answers to `calls.webhook_response`, and the next attempt of each
 * failed message as a job on `webhooks-deliver` with `startAfter` (WEBHOOK_RETRY_SCHEDULE),
 * all in one transaction. The event job completes only after that commit, so a restart
 * loses nothing (an interrupted batch is re-run: at-least-once). Retries and resends are
 * worked the same way from `webhooks-deliver`. Job ids of planned attempts derive from the
 * message id and attempt number, so a re-run batch cannot schedule a second copy.
 *
 * The assistant's switches are read at every attempt: disabling a webhook stops the
 * messages still waiting for a retry at once. The signing secret is read at every attempt
 * too, so after a rotation every later signature uses the new secret.
 */
import { createHash, randomBytes } from 'node:crypto';
import type PgBoss from 'pg-boss';
import { Webhook } from 'standardwebhooks';
import type { AppContext } from '../context.js';
import { executorOf, type CallFinished, type CallFinishedEvents, type SqlExecutor } from '../calls/events.js';
import { BlockedTargetError, OutboundTimeoutError, outboundRequest } from '../lib/outbound.js';
import { loadCallContexts } from './calls.js';
import { buildPayload, currentUrl, targetsFor, type CallContext, type WebhookKind } from './payload.js';

export const CALL_FINISHED_QUEUE = 'webhooks-call-finished';
export const DELIVER_QUEUE = 'webhooks-deliver';

/** Call statuses of a call that has not ended yet. */
export const LIVE_STATUSES = ['initiated', 'ringing', 'in-progress'];

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


export interface DeliveryOptions {
  /** Timeout of one attempt (CONTRACT §8: 15 s). Tests shorten it. */
  attemptTimeoutMs: number;
  /** Parallel pg-boss workers on the deliver queue. */
  workers: number;
  /** Jobs fetched per worker round; a batch's attempts run concurrently. */
  batchSize: number;
  pollingIntervalSeconds: number;
  /** Workers on our call-finished queue, and the events each takes per round. */
  eventWorkers: number;
  eventBatchSize: number;
  /** Response bytes read from a receiver (a JSON answer larger than this is stored as text). */
  maxResponseBytes: number;
  /** Characters of a non-JSON answer kept in webhook_response.body. */
  storedBodyChars: number;
}

export const defaultDeliveryOptions: DeliveryOptions = {
  attemptTimeoutMs: 15_000,
  workers: 2,
  batchSize: 50,
  pollingIntervalSeconds: 0.5,
  eventWorkers: 3,
  eventBatchSize: 50,
  maxResponseBytes: 64 * 1024,
  storedBodyChars: 4096,
};

type Outcome = 'delivered' | 'retry' | 'stop';

interface AttemptResult {
  url: string;
  startedAt: Date;
  statusCode: number | null;
  durationMs: number | null;
  error: string | null;
  /** What goes into webhook_response, or null to leave it as it is. */
  response: Record<string, unknown> | null;
  outcome: Outcome;
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

function randomMessageId(): string {
  return `msg_${randomBytes(20).toString('base64url').slice(0, 27)}`;
}

export class WebhookDelivery {
  readonly options: DeliveryOptions;
  private readonly workerIds: string[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private nextWorker = 0;
  private stopped = false;
  private readonly executor: SqlExecutor;

  constructor(
    private readonly ctx: AppContext,
    private readonly boss: PgBoss,
    private readonly events: CallFinishedEvents,
    options: Partial<DeliveryOptions> = {},
  ) {
    this.options = { ...defaultDeliveryOptions, ...options };
    this.executor = executorOf(ctx.database.pool);
  }

  async start(): Promise<void> {
    const { boss, options } = this;
    // Retries of a job itself (database trouble); delivery attempts are jobs of their own.
    await boss.createQueue(DELIVER_QUEUE, { name: DELIVER_QUEUE, retryLimit: 10, retryDelay: 5, retryBackoff: true, expireInSeconds: 120 });
    for (let i = 0; i < options.workers; i++) {
      const ref: { id?: string } = {};
      ref.id = await boss.work<MessageJob>(
        DELIVER_QUEUE,
        { batchSize: options.batchSize, pollingIntervalSeconds: options.pollingIntervalSeconds },
        async (jobs) => {
          await this.deliverMessages(jobs.map((j) => j.data));
          // A full batch means more may be waiting: skip the polling pause.
          if (jobs.length >= options.batchSize && ref.id) boss.notifyWorker(ref.id);
        },
      );
      this.workerIds.push(ref.id);
    }
    // Created here first so our options hold (createQueue keeps an existing queue as it is):
    // a batch interrupted by a crash is handed out again after two minutes, not fifteen.
    await boss.createQueue(CALL_FINISHED_QUEUE, { name: CALL_FINISHED_QUEUE, expireInSeconds: 120 });
    for (let i = 0; i < options.eventWorkers; i++) {
      const ref: { id?: string } = {};
      ref.id = await this.events.subscribeBatch(
        CALL_FINISHED_QUEUE,
        async (events) => {
          await this.deliverFinishedCalls(events);
          if (events.length >= options.eventBatchSize && ref.id) boss.notifyWorker(ref.id);
        },
        { batchSize: options.eventBatchSize, pollingIntervalSeconds: options.pollingIntervalSeconds },
      );
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await this.boss.offWork(DELIVER_QUEUE).catch(() => undefined);
    await this.boss.offWork(CALL_FINISHED_QUEUE).catch(() => undefined);
  }

  /** Wakes one deliver worker now (an in-process hint; the jobs themselves are durable). */
  private notify(): void {
    if (this.stopped || this.workerIds.length === 0) return;
    this.boss.notifyWorker(this.workerIds[this.nextWorker++ % this.workerIds.length]);
  }

  private notifyAfter(ms: number): void {
    if (this.stopped || ms > 60_000) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.notify();
    }, ms + 20);
    t.unref();
    this.timers.add(t);
  }

  /** First attempts of the webhooks a batch of finished calls triggers. */
  private async deliverFinishedCalls(events: CallFinished[]): Promise<void> {
    const contexts = await loadCallContexts(this.ctx.database.db, [...new Set(events.map((e) => e.callId))]);
    const seen = new Set<number>();
    const work: { msg: MessageJob; call: CallContext }[] = [];
    for (const e of events) {
      const call = contexts.get(e.callId);
      // A call deleted meanwhile has nothing left to send; an event delivered twice, once.
      if (!call || call.userId !== e.userId || seen.has(call.callId)) continue;
      seen.add(call.callId);
      const targets = targetsFor(call);
      if (targets.length === 0) continue;
      const body = JSON.stringify(buildPayload(call));
      targets.forEach((t, i) =>
        work.push({
          call,
          msg: {
            messageId: autoMessageId(call, t.kind),
            callId: call.callId,
            userId: call.userId,
            kind: t.kind,
            attempt: 1,
            url: t.url,
            body,
            // The post-call answer wins when both webhooks go out (it comes first).
            storeResponse: i === 0,
          },
        }),
      );
    }
    await this.attemptAll(work);
  }

  /** Retries and resends taken from the deliver queue. */
  private async deliverMessages(jobs: MessageJob[]): Promise<void> {
    const contexts = await loadCallContexts(this.ctx.database.db, [...new Set(jobs.map((j) => j.callId))]);
    const work: { msg: MessageJob; call: CallContext }[] = [];
    for (const msg of jobs) {
      const call = contexts.get(msg.callId);
      if (call && call.userId === msg.userId) work.push({ msg, call });
    }
    await this.attemptAll(work);
  }

  /** Makes the attempts concurrently, then records them all in one transaction. */
  private async attemptAll(work: { msg: MessageJob; call: CallContext }[]): Promise<void> {
    if (work.length === 0) return;
    const results = await Promise.all(work.map(({ msg, call }) => this.attempt(msg, call)));
    const schedule = this.ctx.config.WEBHOOK_RETRY_SCHEDULE;
    const attempts: Recorded[] = work.map(({ msg }, i) => {
      const r = results[i];
      const delay = r.outcome === 'retry' && msg.attempt <= schedule.length ? schedule[msg.attempt - 1] : null;
      return { msg, result: r, next: delay === null ? null : { msg: { ...msg, attempt: msg.attempt + 1, url: r.url }, delay } };
    });
    await this.record(attempts);
    for (const a of attempts) if (a.next) this.notifyAfter(a.next.delay * 1000);
  }

  /** One attempt of one message; the assistant's switches decide whether it is made at all. */
  private async attempt(msg: MessageJob, call: CallContext): Promise<AttemptResult> {
    const url = currentUrl(call, msg.kind);
    if (url) return this.send(url, msg, call.webhookSecret);
    return {
      url: msg.url,
      startedAt: new Date(),
      statusCode: null,
      durationMs: null,
      error: 'Not sent: the webhook has been disabled.',
      response: null,
      outcome: 'stop',
    };
  }

  private async send(url: string, msg: MessageJob, secret: string): Promise<AttemptResult> {
    const startedAt = new Date();
    const headers = {
      'content-type': 'application/json',
      'webhook-id': msg.messageId,
      'webhook-timestamp': String(Math.floor(startedAt.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(msg.messageId, startedAt, msg.body),
    };
    const base = { url, startedAt };
    const began = performance.now();
    try {
      const res = await outboundRequest({
        url,
        method: 'POST',
        headers,
        body: msg.body,
        timeoutMs: this.options.attemptTimeoutMs,
        maxResponseBytes: this.options.maxResponseBytes,
        allowPrivate: this.ctx.config.ALLOW_PRIVATE_TARGETS,
      });
      const response = this.storedResponse(res.status, res.body, res.truncated);
      const common = { ...base, statusCode: res.status, durationMs: res.durationMs, response };
      if (res.status >= 200 && res.status < 300) return { ...common, error: null, outcome: 'delivered' };
      if (res.status === 410) return { ...common, error: 'HTTP 410 Gone: the receiver asked not to be retried.', outcome: 'stop' };
      if (res.status >= 300 && res.status < 400) {
        const location = res.headers.location ? ` to ${res.headers.location.slice(0, 500)}` : '';
        return { ...common, error: `HTTP ${res.status}: redirect${location} not followed.`, outcome: 'retry' };
      }
      return { ...common, error: `HTTP ${res.status}`, outcome: 'retry' };
    } catch (err) {
      const durationMs = Math.round(performance.now() - began);
      if (err instanceof BlockedTargetError) {
        // A refused address stays refused; retrying would only repeat the refusal.
        return { ...base, statusCode: null, durationMs, response: null, error: err.message, outcome: 'stop' };
      }
      const error = err instanceof OutboundTimeoutError ? err.message : `Request failed: ${(err as Error).message}`;
      return { ...base, statusCode: null, durationMs, response: null, error, outcome: 'retry' };
    }
  }

  /** The receiver's answer as stored: its JSON object, else `{status, body}` (body capped). */
  private storedResponse(status: number, body: string, truncated: boolean): Record<string, unknown> {
    if (!truncated && body.trim() !== '') {
      try {
        const parsed: unknown = JSON.parse(body);
        if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
      } catch {
        /* not JSON: stored as text below */
      }
    }
    const cap = this.options.storedBodyChars;
    return { status, body: body.length > cap ? body.slice(0, cap) : body };
  }

  /**
   * Writes a batch of attempts, the receivers' answers and the next attempts, atomically:
   * either all of it is committed or none (and the batch is re-run).
   */
  private async record(attempts: Recorded[]): Promise<void> {
    const rows = attempts.map(({ msg, result: r }) => ({
      call_id: msg.callId,
      user_id: msg.userId,
      message_id: msg.messageId,
      kind: msg.kind,
      url: r.url,
      attempt: msg.attempt,
      status_code: r.statusCode,
      duration_ms: r.durationMs,
      error: r.error,
      created_at: r.startedAt.toISOString(),
    }));
    // The last answer per call in this batch wins (attempts of one call rarely share a batch).
    const answers = new Map<number, Record<string, unknown>>();
    for (const { msg, result } of attempts) if (msg.storeResponse && result.response) answers.set(msg.callId, result.response);
    const nextJobs = attempts
      .filter((a) => a.next)
      .map(({ next }) => ({
        id: jobIdFor(`${next!.msg.messageId}:${next!.msg.attempt}`),
        name: DELIVER_QUEUE,
        data: next!.msg,
        startAfter: String(next!.delay),
      }));

    const client = await this.ctx.database.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO webhook_deliveries (call_id, user_id, message_id, kind, url, attempt, status_code, duration_ms, error, created_at)
         SELECT call_id, user_id, message_id, kind, url, attempt, status_code, duration_ms, error, created_at
         FROM json_to_recordset($1::json) AS x(call_id int, user_id int, message_id text, kind text, url text, attempt int,
           status_code int, duration_ms int, error text, created_at timestamptz)`,
        [JSON.stringify(rows)],
      );
      if (answers.size > 0) {
        await client.query(
          `UPDATE calls SET webhook_response = x.response
           FROM json_to_recordset($1::json) AS x(id int, response jsonb) WHERE calls.id = x.id`,
          [JSON.stringify([...answers].map(([id, response]) => ({ id, response })))],
        );
      }
      if (nextJobs.length > 0) await this.boss.insert(nextJobs, { db: executorOf(client) } as PgBoss.InsertOptions);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /**
   * Sends a finished call's webhooks again, as new messages, by hand. Checked by the caller:
   * the call is the user's. Returns the messages queued (empty when no webhook is configured).
   */
  async resend(call: CallContext): Promise<{ message_id: string; kind: WebhookKind; url: string }[]> {
    const targets = targetsFor(call, { manual: true });
    if (targets.length === 0) return [];
    const body = JSON.stringify(buildPayload(call));
    const jobs: MessageJob[] = targets.map((t, i) => ({
      messageId: randomMessageId(),
      callId: call.callId,
      userId: call.userId,
      kind: t.kind,
      attempt: 1,
      url: t.url,
      body,
      storeResponse: i === 0,
    }));
    await this.boss.insert(
      jobs.map((data) => ({ id: jobIdFor(`${data.messageId}:1`), name: DELIVER_QUEUE, data })),
      { db: this.executor } as PgBoss.InsertOptions,
    );
    this.notify();
    return jobs.map((j) => ({ message_id: j.messageId, kind: j.kind, url: j.url }));
  }
}

interface Recorded {
  msg: MessageJob;
  result: AttemptResult;
  next: { msg: MessageJob; delay: number } | null;
}

declare module '../context.js' {
  interface Services {
    webhooks?: WebhookDelivery;
  }
}
