/**
 * The internal "call finished" event (issue: calls → dialer, webhooks).
 *
 * Each consumer owns a durable pg-boss queue and subscribes at start-up; the engine emits
 * inside the transaction that writes the call's final record, so the event exists if and
 * only if the final record does (a crash can neither lose nor invent one). Delivery is
 * at-least-once: handlers must be idempotent.
 */
import type pg from 'pg';
import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';

export interface CallFinished {
  callId: number;
  userId: number;
}

/** Anything that can run SQL in the emitter's transaction (a pg client, a drizzle tx wrapper). */
export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

export type CallFinishedHandler = (event: CallFinished) => Promise<void>;

export class CallFinishedEvents {
  private readonly queues: string[] = [];
  private markAllSubscribed!: () => void;
  /**
   * Resolves once every consumer of this process has subscribed (`allSubscribed`). An event
   * goes only to the queues subscribed when it is emitted, so whatever emits on its own
   * schedule rather than from a call (the recovery sweep) waits for this first.
   */
  readonly whenAllSubscribed: Promise<void> = new Promise((resolve) => (this.markAllSubscribed = resolve));

  constructor(
    private readonly boss: PgBoss,
    /** Where an event given up by its consumer is reported (`watchGivenUp`). */
    private readonly log?: Logger,
  ) {}

  /**
   * The consumer queue and its dead letter (`<queue>-failed`): an event whose handler failed on
   * every retry is copied there by pg-boss and logged as an error with its call, rather than
   * marked `failed` with no trace (a call whose webhook-planning event died so had no webhook,
   * and nothing said so).
   */
  private async createQueue(queue: string): Promise<void> {
    const deadLetter = deadLetterOf(queue);
    await this.boss.createQueue(deadLetter);
    await this.boss.createQueue(queue);
    await this.boss.work<CallFinished>(deadLetter, { batchSize: 20, pollingIntervalSeconds: 5 }, async (jobs) => {
      for (const job of jobs) {
        this.log?.error({ queue, callId: job.data?.callId, userId: job.data?.userId }, 'a call-finished event was given up after its handler failed on every retry');
      }
    });
  }

  /** Called by the composition root once every part has started, i.e. every consumer has subscribed. */
  allSubscribed(): void {
    this.markAllSubscribed();
  }

  /** Registers a consumer queue and starts working it. Call at start-up, before calls run. */
  async subscribe(queue: string, handler: CallFinishedHandler, opts: { batchSize?: number; pollingIntervalSeconds?: number } = {}): Promise<void> {
    await this.createQueue(queue);
    if (!this.queues.includes(queue)) this.queues.push(queue);
    await this.boss.work<CallFinished>(
      queue,
      { batchSize: opts.batchSize ?? 20, pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 0.5 },
      async (jobs) => {
        for (const job of jobs) await handler(job.data);
      },
    );
  }

  /**
   * Like `subscribe`, but the handler gets each fetched batch at once, so a consumer can work
   * its events concurrently (webhook delivery); the batch completes, or is retried, as a whole.
   * Returns the pg-boss worker id (for `boss.notifyWorker`).
   */
  async subscribeBatch(queue: string, handler: (events: CallFinished[]) => Promise<void>, opts: { batchSize?: number; pollingIntervalSeconds?: number } = {}): Promise<string> {
    await this.createQueue(queue);
    if (!this.queues.includes(queue)) this.queues.push(queue);
    return this.boss.work<CallFinished>(
      queue,
      { batchSize: opts.batchSize ?? 20, pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 0.5 },
      async (jobs) => handler(jobs.map((job) => job.data)),
    );
  }

  /** Emits to every subscribed queue through `executor`, i.e. inside the caller's transaction. */
  async emit(executor: SqlExecutor, event: CallFinished): Promise<void> {
    for (const queue of this.queues) {
      // The dead letter on the job itself: a queue created before dead letters keeps its settings.
      await this.boss.send(queue, event, { db: executor, retryLimit: 20, retryDelay: 2, retryBackoff: true, deadLetter: deadLetterOf(queue) } as PgBoss.SendOptions);
    }
  }

  get subscribedQueues(): readonly string[] {
    return this.queues;
  }
}

/** The dead-letter queue of a consumer queue. */
export function deadLetterOf(queue: string): string {
  return `${queue}-failed`;
}

/** Wraps a node-postgres client (e.g. inside BEGIN/COMMIT) as a pg-boss executor. */
export function executorOf(client: { query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> }): SqlExecutor {
  return { executeSql: (text, values) => client.query(text, values) };
}

/**
 * Shutdown: waits until `queues` hold no job that is due now about a call this instance ran
 * (`calls.owner_instance`), i.e. the consumers have handled the events of the calls it
 * finished — a webhook attempt made, a lead settled. Retries planned for later are not waited
 * for: they are durable jobs any instance works. Bounded by `timeoutMs`; false when it ran out.
 */
export async function whenCallJobsHandled(pool: pg.Pool, queues: readonly string[], instanceId: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pgboss.job j
        WHERE j.name = ANY($1::text[]) AND j.state IN ('created', 'retry', 'active') AND j.start_after <= now()
          AND EXISTS (SELECT 1 FROM calls c WHERE c.id = (j.data->>'callId')::int AND c.owner_instance = $2)`,
      [queues, instanceId],
    );
    if ((rows[0]?.n ?? 0) === 0) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}
