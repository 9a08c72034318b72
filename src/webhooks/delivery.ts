/**
 * Durable, signed, retried delivery of call results (spec 3.5, 6; CONTRACT §8): the queue
 * workers. This file plans the messages of finished calls and pumps the deliver queue.
 *
 * Flow: the call engine emits "call finished" (src/calls/events.ts) into our pg-boss queue
 * `webhooks-call-finished`. Its workers take events in batches, load the batch's calls in
 * one query, decide the targets, build each message's payload once, and insert one job per
 * message (attempt 1) on `webhooks-deliver` in one statement (src/webhooks/messages.ts).
 *
 * `webhooks-deliver` is worked by a pump, not by pg-boss's batch workers: it fetches jobs
 * while it has free slots (up to `maxInFlight` attempts at once) and every attempt runs on
 * its own, so a slow or hanging receiver (15 s timeout) holds one slot, never a batch of
 * other users' webhooks. Finished attempts are flushed in groups (src/webhooks/record.ts): one
 * transaction writes their `webhook_deliveries` rows, the answers to `calls.webhook_response`,
 * the next attempt of each failed message as a job with `startAfter` (WEBHOOK_RETRY_SCHEDULE),
 * and completes their jobs. A restart therefore loses nothing (an attempt whose flush did not
 * commit is made again: at-least-once), and the job ids of planned attempts derive from the
 * message id and attempt number, so a re-run cannot schedule a second copy.
 *
 * The assistant's switches are read at every attempt: disabling a webhook stops the
 * messages still waiting for a retry at once. The signing secret is read at every attempt
 * too, so after a rotation every later signature uses the new secret. One attempt (sign, send,
 * classify the answer) is src/webhooks/attempt.ts.
 */
import type PgBoss from 'pg-boss';
import type { AppContext } from '../context.js';
import { executorOf, type CallFinished, type CallFinishedEvents, type SqlExecutor } from '../calls/events.js';
import { attemptDelivery } from './attempt.js';
import { loadCallContexts } from './calls.js';
import type { RecordingLinks } from '../recordings/links.js';
import { recordingLinksFor } from '../recordings/service.js';
import { targetsFor, type CallContext, type WebhookKind } from './payload.js';
import { autoMessageId, DELIVER_QUEUE, enqueueAttempts, firstAttempts, randomMessageId, type MessageJob } from './messages.js';
import { recordAttempts, type Finished } from './record.js';
import { loopFailureLogger } from '../db/unavailable.js';
import { DEAD_LETTER_QUEUE, recordGivenUp } from './dead-letters.js';

export const CALL_FINISHED_QUEUE = 'webhooks-call-finished';

export interface DeliveryOptions {
  /** Timeout of one attempt (CONTRACT §8: 15 s). Tests shorten it. */
  attemptTimeoutMs: number;
  /** Attempts under way at once (including those waiting to be recorded). */
  maxInFlight: number;
  /** Jobs taken from the deliver queue per fetch. */
  fetchSize: number;
  /** A group of finished attempts is recorded when it reaches this size or after flushDelayMs. */
  flushSize: number;
  flushDelayMs: number;
  /** Pause of the pump and the event workers when their queue is empty. */
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
  maxInFlight: 200,
  fetchSize: 100,
  flushSize: 100,
  flushDelayMs: 10,
  pollingIntervalSeconds: 0.5,
  eventWorkers: 2,
  eventBatchSize: 100,
  maxResponseBytes: 64 * 1024,
  storedBodyChars: 4096,
};

export class WebhookDelivery {
  readonly options: DeliveryOptions;
  private readonly timers = new Set<NodeJS.Timeout>();
  private running = false;
  private pumpDone: Promise<void> = Promise.resolve();
  private wakeUp: (() => void) | null = null;
  private woken = false;
  /** Jobs taken and not yet recorded. */
  private inFlight = 0;
  private finished: Finished[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private readonly executor: SqlExecutor;
  /** Signs the recording links put in payloads (null without a deployment key). */
  private readonly links: RecordingLinks | null;
  /** An unreachable database is one throttled warning, not an error per polling round. */
  private readonly fetchFailed: (err: unknown) => void;

  constructor(
    private readonly ctx: AppContext,
    private readonly boss: PgBoss,
    private readonly events: CallFinishedEvents,
    options: Partial<DeliveryOptions> = {},
  ) {
    this.options = { ...defaultDeliveryOptions, ...options };
    this.executor = executorOf(ctx.database.pool);
    this.links = recordingLinksFor(ctx.config);
    this.fetchFailed = loopFailureLogger(ctx.log, 'fetching webhook jobs failed');
  }

  async start(): Promise<void> {
    const { boss, options } = this;
    // Created here first so our options hold (createQueue keeps an existing queue as it is).
    // Job retries cover database trouble (attempts are jobs of their own); a job taken by a
    // process that died is handed out again after JOB_EXPIRE_SECONDS (two minutes), not pg-boss's fifteen.
    const expireInSeconds = this.ctx.config.JOB_EXPIRE_SECONDS;
    // A job failing for the last time is copied to the dead-letter queue (src/webhooks/dead-letters.ts),
    // never dropped without a trace. That queue exists first (the deliver queue refers to it), and
    // updateQueue gives a deliver queue created before it had one its dead letter too.
    await boss.createQueue(DEAD_LETTER_QUEUE, { name: DEAD_LETTER_QUEUE, retryLimit: 10, retryDelay: 5, retryBackoff: true, expireInSeconds });
    const deliverOptions = { retryLimit: 10, retryDelay: 5, retryBackoff: true, expireInSeconds, deadLetter: DEAD_LETTER_QUEUE };
    await boss.createQueue(DELIVER_QUEUE, { name: DELIVER_QUEUE, ...deliverOptions });
    await boss.updateQueue(DELIVER_QUEUE, { name: DELIVER_QUEUE, ...deliverOptions });
    await boss.work<MessageJob>(DEAD_LETTER_QUEUE, { batchSize: 50, pollingIntervalSeconds: options.pollingIntervalSeconds }, async (jobs) => {
      try {
        await recordGivenUp(this.ctx, jobs);
      } catch (err) {
        this.ctx.log.error({ err, messageIds: jobs.map((j) => j.data?.messageId) }, 'recording given-up webhook messages failed; retried');
        throw err;
      }
    });
    await boss.createQueue(CALL_FINISHED_QUEUE, { name: CALL_FINISHED_QUEUE, expireInSeconds });
    this.running = true;
    this.pumpDone = this.pump();
    for (let i = 0; i < options.eventWorkers; i++) {
      const ref: { id?: string } = {};
      ref.id = await this.events.subscribeBatch(
        CALL_FINISHED_QUEUE,
        async (events) => {
          await this.planFinishedCalls(events);
          // A full batch means more may be waiting: skip the polling pause.
          if (events.length >= options.eventBatchSize && ref.id) boss.notifyWorker(ref.id);
        },
        { batchSize: options.eventBatchSize, pollingIntervalSeconds: options.pollingIntervalSeconds },
      );
    }
  }

  /** Stops taking work; attempts under way finish (bounded by the attempt timeout) and are recorded. */
  async stop(): Promise<void> {
    this.running = false;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.wake();
    await this.boss.offWork(CALL_FINISHED_QUEUE).catch(() => undefined);
    await this.boss.offWork(DEAD_LETTER_QUEUE).catch(() => undefined);
    await this.pumpDone;
  }

  /** Wakes the pump; a wake-up while it is busy makes it skip its next pause. */
  private wake(): void {
    const w = this.wakeUp;
    this.wakeUp = null;
    if (w) w();
    else this.woken = true;
  }

  private wakeAfter(ms: number): void {
    if (!this.running || ms > 60_000) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.wake();
    }, ms + 20);
    t.unref();
    this.timers.add(t);
  }

  /** A batch of finished calls becomes one job per message to send (one insert). */
  private async planFinishedCalls(events: CallFinished[]): Promise<void> {
    const contexts = await loadCallContexts(this.ctx.database.db, [...new Set(events.map((e) => e.callId))], this.links);
    const seen = new Set<number>();
    const jobs: MessageJob[] = [];
    for (const e of events) {
      const call = contexts.get(e.callId);
      // A call deleted meanwhile has nothing left to send; an event delivered twice, once.
      if (!call || call.userId !== e.userId || seen.has(call.callId)) continue;
      seen.add(call.callId);
      jobs.push(...firstAttempts(call, targetsFor(call), (kind) => autoMessageId(call, kind)));
    }
    if (jobs.length === 0) return;
    await enqueueAttempts(this.boss, jobs, this.executor);
    this.wake();
  }

  /** Takes jobs while there are free slots; each attempt then runs on its own. */
  private async pump(): Promise<void> {
    const { options } = this;
    while (this.running) {
      const free = options.maxInFlight - this.inFlight;
      let full = false;
      if (free > 0) {
        const want = Math.min(free, options.fetchSize);
        try {
          const jobs = await this.boss.fetch<MessageJob>(DELIVER_QUEUE, { batchSize: want });
          if (jobs.length > 0) this.begin(jobs);
          full = jobs.length === want;
        } catch (err) {
          this.fetchFailed(err);
        }
      }
      if (!this.running) break;
      // More may be waiting and there is room: go on at once. Otherwise pause until a job
      // is enqueued, a retry falls due, a slot frees up, or the polling interval passes.
      if (full && this.inFlight < options.maxInFlight) continue;
      if (this.woken) {
        this.woken = false;
        if (this.inFlight < options.maxInFlight) continue;
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => this.wake(), options.pollingIntervalSeconds * 1000);
        this.wakeUp = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
    // Drain: attempts under way end within the attempt timeout and are recorded.
    while (this.inFlight > 0) await new Promise((r) => setTimeout(r, 20));
    await this.flushing;
  }

  private begin(jobs: PgBoss.Job<MessageJob>[]): void {
    this.inFlight += jobs.length;
    loadCallContexts(this.ctx.database.db, [...new Set(jobs.map((j) => j.data.callId))], this.links)
      .then((contexts) => {
        for (const job of jobs) {
          const call = contexts.get(job.data.callId);
          // The call was deleted meanwhile: nothing left to send; the job just completes.
          if (!call || call.userId !== job.data.userId) this.done({ jobId: job.id, msg: job.data, result: null });
          else
            attemptDelivery(job.data, call, { ...this.options, allowPrivate: this.ctx.config.ALLOW_PRIVATE_TARGETS }).then(
              (result) => this.done({ jobId: job.id, msg: job.data, result }),
              (err) => this.abandon([job.id], err),
            );
        }
      })
      .catch((err) => this.abandon(jobs.map((j) => j.id), err));
  }

  /** Jobs that failed unexpectedly go back to pg-boss, which retries them. */
  private abandon(ids: string[], err: unknown): void {
    this.ctx.log.error({ err }, 'webhook attempt failed unexpectedly; the job is retried');
    this.boss
      .fail(DELIVER_QUEUE, ids)
      .catch(() => undefined)
      .finally(() => this.release(ids.length));
  }

  private release(n: number): void {
    const wasFull = this.inFlight >= this.options.maxInFlight;
    this.inFlight -= n;
    if (wasFull) this.wake();
  }

  private done(f: Finished): void {
    this.finished.push(f);
    if (this.finished.length >= this.options.flushSize) this.flush();
    else this.flushTimer ??= setTimeout(() => this.flush(), this.options.flushDelayMs);
  }

  private flushQueued = false;

  /**
   * Records what has finished, one group at a time; a group is taken when its turn comes,
   * so while one is being written the next grows (fewer, larger transactions under load).
   */
  private flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (this.flushQueued) return;
    this.flushQueued = true;
    this.flushing = this.flushing.then(async () => {
      this.flushQueued = false;
      const group = this.finished;
      this.finished = [];
      if (group.length === 0) return;
      try {
        const delays = await recordAttempts(this.ctx, this.boss, group);
        for (const d of delays) this.wakeAfter(d * 1000);
      } catch (err) {
        this.ctx.log.error({ err }, 'recording webhook attempts failed; the jobs are retried');
        await this.boss.fail(DELIVER_QUEUE, group.map((f) => f.jobId)).catch(() => undefined);
      } finally {
        this.release(group.length);
      }
    });
  }

  /**
   * Sends a finished call's webhooks again, as new messages, by hand. Checked by the caller:
   * the call is the user's. Returns the messages queued (empty when no webhook is configured).
   */
  async resend(call: CallContext): Promise<{ message_id: string; kind: WebhookKind; url: string }[]> {
    const jobs = firstAttempts(call, targetsFor(call, { manual: true }), () => randomMessageId());
    if (jobs.length === 0) return [];
    await enqueueAttempts(this.boss, jobs, this.executor);
    this.wake();
    return jobs.map((j) => ({ message_id: j.messageId, kind: j.kind, url: j.url }));
  }
}

declare module '../context.js' {
  interface Services {
    webhooks?: WebhookDelivery;
  }
}
