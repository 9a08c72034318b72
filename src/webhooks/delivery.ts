/**
 * Durable, signed, retried delivery of call results (spec 3.5, 6; CONTRACT §8).
 *
 * Flow: the call engine emits "call finished" (src/calls/events.ts) into our queue
 * `webhooks-call-finished`; its handler only enqueues a `call` job on `webhooks-deliver`
 * (one insert, so the sequential event handler stays fast). Workers of `webhooks-deliver`
 * take jobs in batches, load the calls of a batch in one query, decide the targets, build
 * the payload once per message, sign and POST it, and write the attempt to
 * `webhook_deliveries` and the answer to `calls.webhook_response`. A failed attempt enqueues
 * the next attempt as a `message` job with `startAfter` (WEBHOOK_RETRY_SCHEDULE) in the same
 * transaction as the attempt's log row, so a restart loses nothing; the job ids of planned
 * attempts are derived from the message id and attempt number, so a job that is re-run
 * after a crash cannot schedule a second copy.
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

export interface CallJob {
  type: 'call';
  callId: number;
  userId: number;
}

export interface MessageJob {
  type: 'message';
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

export type DeliverJob = CallJob | MessageJob;

export interface DeliveryOptions {
  /** Timeout of one attempt (CONTRACT §8: 15 s). Tests shorten it. */
  attemptTimeoutMs: number;
  /** Parallel pg-boss workers on the deliver queue. */
  workers: number;
  /** Jobs fetched per worker round; a batch's attempts run concurrently. */
  batchSize: number;
  pollingIntervalSeconds: number;
  /** Batch size of the call-finished subscription. */
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
  eventBatchSize: 200,
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
    // Retries of the job itself (database trouble); delivery attempts are jobs of their own.
    await boss.createQueue(DELIVER_QUEUE, { name: DELIVER_QUEUE, retryLimit: 10, retryDelay: 5, retryBackoff: true, expireInSeconds: 300 });
    for (let i = 0; i < options.workers; i++) {
      const ref: { id?: string } = {};
      ref.id = await boss.work<DeliverJob>(
        DELIVER_QUEUE,
        { batchSize: options.batchSize, pollingIntervalSeconds: options.pollingIntervalSeconds },
        async (jobs) => {
          await this.handleBatch(jobs);
          // A full batch means more may be waiting: skip the polling pause.
          if (jobs.length >= options.batchSize && ref.id) boss.notifyWorker(ref.id);
        },
      );
      this.workerIds.push(ref.id);
    }
    await this.events.subscribe(CALL_FINISHED_QUEUE, (event) => this.onCallFinished(event), {
      batchSize: options.eventBatchSize,
      pollingIntervalSeconds: options.pollingIntervalSeconds,
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await this.boss.offWork(DELIVER_QUEUE).catch(() => undefined);
    await this.boss.offWork(CALL_FINISHED_QUEUE).catch(() => undefined);
  }

  /** Wakes one worker now (an in-process hint; the jobs themselves are durable). */
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

  private async onCallFinished(event: CallFinished): Promise<void> {
    const job: CallJob = { type: 'call', callId: event.callId, userId: event.userId };
    await this.boss.send(DELIVER_QUEUE, job, { id: jobIdFor(`call:${event.callId}`), db: this.executor } as PgBoss.SendOptions);
    this.notify();
  }

  private async handleBatch(jobs: PgBoss.Job<DeliverJob>[]): Promise<void> {
    const contexts = await loadCallContexts(this.ctx.database.db, [...new Set(jobs.map((j) => j.data.callId))]);
    await Promise.all(
      jobs.map(async (job) => {
        try {
          await this.process(job.data, contexts.get(job.data.callId));
        } catch (err) {
          this.ctx.log.error({ err, callId: job.data.callId }, 'webhook job failed; pg-boss retries it');
          await this.boss.fail(DELIVER_QUEUE, job.id, { message: (err as Error).message }).catch(() => undefined);
        }
      }),
    );
  }

  private async process(job: DeliverJob, call: CallContext | undefined): Promise<void> {
    if (!call || call.userId !== job.userId) return; // the call was deleted: nothing left to send
    if (job.type === 'message') return this.attempt(job, call);
    const targets = targetsFor(call);
    if (targets.length === 0) return;
    const body = JSON.stringify(buildPayload(call));
    await Promise.all(
      targets.map((t, i) =>
        this.attempt(
          {
            type: 'message',
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
          call,
        ),
      ),
    );
  }

  /** One attempt of one message: send, log, and plan the next attempt when it failed. */
  private async attempt(msg: MessageJob, call: CallContext): Promise<void> {
    const url = currentUrl(call, msg.kind);
    const result = url
      ? await this.send(url, msg, call.webhookSecret)
      : {
          url: msg.url,
          startedAt: new Date(),
          statusCode: null,
          durationMs: null,
          error: 'Not sent: the webhook has been disabled.',
          response: null,
          outcome: 'stop' as Outcome,
        };
    const schedule = this.ctx.config.WEBHOOK_RETRY_SCHEDULE;
    const delay = result.outcome === 'retry' && msg.attempt <= schedule.length ? schedule[msg.attempt - 1] : null;
    const next: MessageJob | null = delay === null ? null : { ...msg, attempt: msg.attempt + 1, url: result.url };
    await this.record(msg, result, next, delay ?? 0);
    if (next) this.notifyAfter(delay! * 1000);
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

  /** Writes the attempt (and the receiver's answer) and enqueues the next attempt, atomically. */
  private async record(msg: MessageJob, r: AttemptResult, next: MessageJob | null, delaySeconds: number): Promise<void> {
    const text = `
      WITH d AS (
        INSERT INTO webhook_deliveries (call_id, user_id, message_id, kind, url, attempt, status_code, duration_ms, error, created_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
      )
      UPDATE calls SET webhook_response = $11::jsonb WHERE id = $1 AND $11::jsonb IS NOT NULL`;
    const values = [
      msg.callId,
      msg.userId,
      msg.messageId,
      msg.kind,
      r.url,
      msg.attempt,
      r.statusCode,
      r.durationMs,
      r.error,
      r.startedAt.toISOString(),
      msg.storeResponse && r.response ? JSON.stringify(r.response) : null,
    ];
    const { pool } = this.ctx.database;
    if (!next) {
      await pool.query(text, values);
      return;
    }
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(text, values);
      await this.boss.send(DELIVER_QUEUE, next, {
        id: jobIdFor(`${next.messageId}:${next.attempt}`),
        startAfter: delaySeconds,
        db: executorOf(client),
      } as PgBoss.SendOptions);
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
    const out: { message_id: string; kind: WebhookKind; url: string }[] = [];
    for (const [i, t] of targets.entries()) {
      const job: MessageJob = {
        type: 'message',
        messageId: randomMessageId(),
        callId: call.callId,
        userId: call.userId,
        kind: t.kind,
        attempt: 1,
        url: t.url,
        body,
        storeResponse: i === 0,
      };
      await this.boss.send(DELIVER_QUEUE, job, { id: jobIdFor(`${job.messageId}:1`), db: this.executor } as PgBoss.SendOptions);
      out.push({ message_id: job.messageId, kind: t.kind, url: t.url });
    }
    this.notify();
    return out;
  }
}

declare module '../context.js' {
  interface Services {
    webhooks?: WebhookDelivery;
  }
}
