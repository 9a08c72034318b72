/**
 * A running call's status transitions on their way to the database (initiated → ringing →
 * in-progress), written in order and off the conversation's path.
 *
 * A transition the database cannot take now (an outage, a restart) is not dropped: it stays at
 * the head of the queue and is written again, with backoff, for as long as the process lives —
 * stamped with the time it happened (`answered_at` is when the customer answered, not when the
 * database came back). The final record waits for the queue (`settled`) and starts from the
 * status that really holds, so a conversation is never recorded `ended` for lack of a status
 * write (docs/decisions.md "A database outage during a call").
 */
import type { Logger } from 'pino';
import { isDatabaseUnavailable, isPoolClosed } from '../db/unavailable.js';
import { NOW, transitionCall, type CallStatus, type Queryable, type TransitionFields } from './state-machine.js';

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

export class CallProgress {
  /** The status the database holds, as far as this process knows. */
  private persisted: CallStatus;
  /** The status the call has reached (the last transition asked for). */
  private planned: CallStatus;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Queryable,
    private readonly log: Logger,
    private readonly callId: number,
    status: CallStatus,
  ) {
    this.persisted = status;
    this.planned = status;
  }

  /** The status the call has reached, written or not. */
  get reached(): CallStatus {
    return this.planned;
  }

  /** Queues the transition to `to` (from the status reached so far). */
  move(to: CallStatus, fields: TransitionFields = {}): void {
    const from = this.planned;
    this.planned = to;
    const at = new Date();
    this.chain = this.chain.then(() => this.write(from, to, fields, at));
  }

  /** Waits until every queued transition is written (however long the database is away); the status the database holds. */
  async settled(): Promise<CallStatus> {
    await this.chain;
    return this.persisted;
  }

  private async write(from: CallStatus, to: CallStatus, fields: TransitionFields, at: Date): Promise<void> {
    let wait = FIRST_RETRY_MS;
    let retried = false;
    for (;;) {
      try {
        // Written late, a `now()` field is the moment it happened instead.
        const stamped = retried ? stampedAt(fields, at) : fields;
        if (await transitionCall(this.db, this.log, this.callId, from, to, stamped)) this.persisted = to;
        else if (retried) this.persisted = await this.readStatus(); // an earlier attempt may have committed unseen
        if (retried) this.log.info({ to }, 'a call transition delayed by the database outage is written');
        return;
      } catch (err) {
        if (!isDatabaseUnavailable(err) || isPoolClosed(err)) {
          // A closed pool: the process is stopping; recovery ends the call from what the database holds.
          this.log.error({ err, to }, 'persisting a call transition failed');
          return;
        }
        if (!retried) this.log.warn({ to, reason: (err as Error).message }, 'persisting a call transition failed: the database is unavailable; writing it when it is back');
        retried = true;
        await new Promise((r) => setTimeout(r, wait).unref());
        wait = Math.min(wait * 2, MAX_RETRY_MS);
      }
    }
  }

  private async readStatus(): Promise<CallStatus> {
    const res = await this.db.query({ name: 'sb_call_status', text: 'SELECT status FROM calls WHERE id = $1', values: [this.callId] });
    return (res.rows[0]?.status as CallStatus | undefined) ?? this.persisted;
  }
}

function stampedAt(fields: TransitionFields, at: Date): TransitionFields {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v === NOW ? at.toISOString() : v]));
}
