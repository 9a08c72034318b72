/**
 * Calls on carriers whose network calls us back (Twilio, `RemoteCarrier`), across instances.
 * Everything between placing a call and running its session lives in the database, so any
 * instance can take any step:
 *
 *   place (the instance that created the call): a one-time media token, its hash on the call,
 *     the carrier's create-call request, the carrier's call id on the call;
 *   progress (any instance, signed callbacks): ringing, and the ends of calls that never
 *     reached a session (busy, no-answer, failed, canceled, completed) with their
 *     call-finished event, so the dialer accounts for the lead;
 *   answering-machine verdicts (any instance): stored on the call and announced with NOTIFY,
 *     so the instance running the session hands them to its leg;
 *   stream claim (the instance the media socket reached): one conditional UPDATE takes the
 *     token (it works once) and the call's ownership; that instance then runs the session.
 *   inbound (any instance): the number's assistant, its state and the account's call limit
 *     decide between a call record with a stream token and a refusal recorded with its reason.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import { inTransaction } from '../db/pool.js';
import { PgListener } from '../db/listen.js';
import { retryWhileUnavailable } from '../db/unavailable.js';
import type { AnsweredBy, RemoteCarrier } from '../telephony/types.js';
import { storedRecordingPath } from '../recordings/links.js';
import type { RecordingStore } from '../recordings/store.js';
import { executorOf } from './events.js';
import { takesSlot, USER_CALLS_LOCK } from './limits.js';
import { isLive, NOW, transitionCall, type CallStatus, type EndStatus, type TransitionFields } from './state-machine.js';

/** A call that ran a session on a remote carrier: its network's call id came with its media stream. */
export interface FinishedRemoteCall {
  callId: number;
  userId: number;
  carrierCallId: string | null;
}

/** What a network reports about a call's progress, in our words. */
export type RemoteProgress = 'ringing' | 'answered' | 'busy' | 'no-answer' | 'failed' | 'canceled' | 'completed';

const ANSWERED_BY_CHANNEL = 'sb_call_answered_by';

export function hashMediaToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface ClaimedStream {
  callId: number;
  userId: number;
  carrier: string;
  carrierCallId: string | null;
  answeredBy: AnsweredBy;
}

/** A call as a callback of its network finds it: one read serves the verification and the progress. */
export interface RemoteCallRow {
  id: number;
  userId: number;
  carrier: string;
  carrierCallId: string | null;
  status: CallStatus;
  /** The media token is spent (a stream took the call), or was never set. */
  streamClaimed: boolean;
}

export type InboundDecision =
  | { kind: 'accepted'; callId: number; mediaToken: string }
  | { kind: 'refused'; callId: number | null; reason: string };

/** Why an inbound call was turned away, as the call record's evaluation says it. */
export const INBOUND_REFUSALS = {
  noAssistant: 'no inbound assistant holds this number',
  inactive: 'the inbound assistant is not active',
  limit: "the account's parallel-call limit is reached",
  shuttingDown: 'the instance it reached was shutting down',
} as const;

/** Why a placed call was ended as failed, as the call record's evaluation says it (`evaluation.failed`). */
export const PLACE_FAILURES = {
  callIdNotStored: "the carrier's call id could not be stored; the call was hung up at the carrier",
} as const;

/**
 * How long storing the carrier's call id waits out an unavailable database: a restart or a
 * failover, well within the network's ring time (45 s), so the hang-up still comes before
 * most people would answer.
 */
const CARRIER_CALL_ID_WAIT_MS = 15_000;

export class RemoteCalls {
  private readonly verdictListeners = new Map<number, (by: AnsweredBy) => void>();
  private listener: PgListener | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: Logger = ctx.log,
  ) {}

  /** Starts hearing answering-machine verdicts posted to other instances. */
  async start(): Promise<void> {
    this.listener = new PgListener({
      connectionString: this.ctx.database.url,
      channel: ANSWERED_BY_CHANNEL,
      applicationName: 'switchboard-calls-listen',
      log: this.log,
      onNotify: (payload) => {
        const [id, by] = payload.split(':');
        this.verdictListeners.get(Number(id))?.(by as AnsweredBy);
      },
    });
    await this.listener.start();
  }

  async stop(): Promise<void> {
    await this.listener?.stop();
    this.listener = null;
  }

  /**
   * Places a created call on `carrier`; a refusal of the network ends the call as `failed`.
   * Once the network has taken the call it is ringing a real person: a database hiccup while
   * its call id is stored is waited out (the id ties callbacks, price and recording to the
   * call), and an id that still cannot be stored has the call hung up at the network, not
   * left to ring into a stream that would be refused.
   */
  async place(
    carrier: RemoteCarrier,
    call: { id: number; userId: number; customer: string; assistant: string; direction: 'outbound' | 'inbound'; maxDurationSec: number; detectMachine: boolean; record: boolean },
  ): Promise<void> {
    const log = this.log.child({ callId: call.id, carrier: carrier.name });
    const mediaToken = randomBytes(24).toString('base64url');
    const { pool } = this.ctx.database;
    // The hash first: the network may answer and open the stream before create-call returns.
    await pool.query('UPDATE calls SET media_token_hash = $2, updated_at = now() WHERE id = $1', [call.id, hashMediaToken(mediaToken)]);
    let carrierCallId: string;
    try {
      ({ carrierCallId } = await carrier.place({
        callId: call.id,
        userId: call.userId,
        customer: call.customer,
        assistant: call.assistant,
        direction: call.direction,
        mediaToken,
        maxDurationSec: call.maxDurationSec,
        detectMachine: call.detectMachine,
        record: call.record,
      }));
    } catch (err) {
      // A warning: the network said no (a number it will not call, an unverified caller id, an
      // account's credentials), the call's record says failed; nothing of ours broke.
      log.warn({ err }, 'the carrier refused to place the call');
      await this.endPlaced(call.id, 'failed');
      return;
    }
    try {
      await retryWhileUnavailable(() => pool.query('UPDATE calls SET carrier_call_sid = $2 WHERE id = $1', [call.id, carrierCallId]), {
        log,
        what: "storing the carrier's call id",
        maxMs: CARRIER_CALL_ID_WAIT_MS,
      });
    } catch (err) {
      log.error({ err, carrierCallId }, "the carrier's call id could not be stored; hanging the call up at the carrier");
      await this.abandonPlaced(carrier, call, carrierCallId, log);
      return;
    }
    log.info({ carrierCallId }, 'call placed with the carrier');
  }

  /**
   * A call the network took but whose id could not be stored. The record is ended first (when
   * no stream claimed it: a session that did ends it itself), so the network's `canceled`
   * callback that the hang-up sets off finds it ended and the reason stays; the hang-up is
   * made whether or not the record could be written (recovery ends a record left live).
   */
  private async abandonPlaced(carrier: RemoteCarrier, call: { id: number; userId: number }, carrierCallId: string, log: Logger): Promise<void> {
    try {
      await this.endPlaced(call.id, 'failed', { evaluation: { failed: PLACE_FAILURES.callIdNotStored } });
    } catch (err) {
      log.error({ err }, 'ending the call whose carrier id could not be stored failed');
    }
    try {
      await carrier.hangUp(call.userId, carrierCallId);
    } catch (err) {
      log.error({ err, carrierCallId }, 'hanging up a call whose carrier id could not be stored failed: it may still ring');
    }
  }

  /**
   * Takes a call's media stream for this instance: the token must match (and is spent), the
   * call must be on `stream.carrier` and still waiting for its answer, and the stream must be
   * of the carrier's call placed for it (`carrierCallId`; not yet known counts as matching: the
   * answer can outrun our write of the id). Null when any of that fails, and then the token
   * stays unspent: a stray or forged stream cannot take the real one's place.
   */
  async claimStream(callId: number, mediaToken: string, stream: { carrier: string; carrierCallId: string }): Promise<ClaimedStream | null> {
    if (!Number.isSafeInteger(callId) || callId <= 0 || callId > 2_147_483_647 || !mediaToken) return null;
    const { rows } = await this.ctx.database.pool.query(
      `UPDATE calls SET owner_instance = $3, media_token_hash = NULL, updated_at = now()
        WHERE id = $1 AND media_token_hash = $2 AND status IN ('initiated', 'ringing')
          AND carrier = $4 AND (carrier_call_sid IS NULL OR carrier_call_sid = $5)
        RETURNING user_id, carrier, carrier_call_sid, answered_by`,
      [callId, hashMediaToken(mediaToken), this.ctx.instanceId, stream.carrier, stream.carrierCallId],
    );
    const row = rows[0];
    if (!row) return null;
    return { callId, userId: Number(row.user_id), carrier: row.carrier, carrierCallId: row.carrier_call_sid, answeredBy: row.answered_by as AnsweredBy };
  }

  /** The leg running call `callId` here wants later verdicts of answering-machine detection. */
  onVerdict(callId: number, listener: (by: AnsweredBy) => void): () => void {
    this.verdictListeners.set(callId, listener);
    return () => {
      if (this.verdictListeners.get(callId) === listener) this.verdictListeners.delete(callId);
    };
  }

  /** An answering-machine verdict: stored on the live call and handed to the instance running it. */
  async answeredBy(callId: number, by: AnsweredBy): Promise<void> {
    const { rowCount } = await this.ctx.database.pool.query(
      `UPDATE calls SET answered_by = $2, updated_at = now() WHERE id = $1 AND status IN ('initiated', 'ringing', 'in-progress')`,
      [callId, by],
    );
    if (!rowCount) return;
    const local = this.verdictListeners.get(callId);
    if (local) local(by);
    else await this.ctx.database.pool.query('SELECT pg_notify($1, $2)', [ANSWERED_BY_CHANNEL, `${callId}:${by}`]);
  }

  /**
   * A progress report of the network on `call` (as `callOwner` read it). Ringing moves the
   * call; the end of a call that never reached a session ends it here. A call with a running
   * session ends through its leg (the stream stops), so `completed` does nothing to it. Every
   * move is conditional on the status read, so a call that moved meanwhile is left alone.
   */
  async progress(call: RemoteCallRow, report: RemoteProgress): Promise<void> {
    const { id, status } = call;
    if (!isLive(status)) return;
    switch (report) {
      case 'ringing':
        if (status === 'initiated') await transitionCall(this.ctx.database.pool, this.log, id, 'initiated', 'ringing');
        return;
      case 'answered':
        return; // the media stream's arrival answers the call (on whichever instance it reaches)
      case 'busy':
      case 'no-answer':
      case 'failed':
        if (status !== 'in-progress') await this.endUnconnected(id, status, report);
        return;
      case 'canceled':
      case 'completed':
        // Answered but the stream never reached a session (refused, or the caller was gone first).
        // A claimed stream (token spent) belongs to its session, which ends the call itself even
        // when it has not yet recorded the answer (a slow instance); recovery covers a dead one.
        if (status !== 'in-progress' && !call.streamClaimed) await this.endUnconnected(id, status, 'ended');
        return;
    }
  }

  /**
   * Ends a call no session runs (never answered, or its stream never came) from `from`, the
   * status it was read in: one conditional UPDATE, with its call-finished event.
   */
  private async endUnconnected(callId: number, from: CallStatus, to: EndStatus, fields: TransitionFields = {}): Promise<boolean> {
    const events = this.ctx.services.callEvents;
    const moved = await inTransaction(this.ctx.database.pool, async (client) => {
      const m = await transitionCall(client, this.log, callId, from, to, { endedAt: NOW, ...fields });
      if (m) await events?.emit(executorOf(client), { callId, userId: m.userId });
      return m;
    });
    if (moved) this.log.info({ callId, status: to }, 'call ended before it reached a session');
    return moved !== null;
  }

  /** Ends a placed call that no stream has claimed, from the status it is in now. */
  private async endPlaced(callId: number, to: EndStatus, fields: TransitionFields = {}): Promise<void> {
    const call = await this.callOwner(callId);
    if (call && isLive(call.status) && !call.streamClaimed) await this.endUnconnected(callId, call.status, to, fields);
  }

  /**
   * An inbound call on `carrier` to `to`: a call record for the number's inbound assistant
   * with a media token, or a refusal (recorded as a failed call saying why when the number
   * is an account's). One transaction under the account's call lock, like make_call. While
   * the process shuts down (`shuttingDown`) every call is refused so.
   */
  async inbound(input: { carrier: string; to: string; from: string; carrierCallId: string; shuttingDown?: boolean }): Promise<InboundDecision & { userId?: number }> {
    return inTransaction(this.ctx.database.pool, async (client) => {
      const found = await client.query(
        `SELECT p.user_id, u.max_calls_in_parallel AS max, a.id AS assistant_id, a.is_active, a.name AS assistant_name
           FROM phone_numbers p
           JOIN users u ON u.id = p.user_id
           LEFT JOIN LATERAL (
             SELECT a.id, a.name, a.status = 'active' AS is_active FROM assistants a
              WHERE a.phone_number_id = p.id AND a.deleted_at IS NULL AND a.type = 'inbound'
              ORDER BY (a.status = 'active') DESC, a.id LIMIT 1) a ON true
          WHERE p.phone_number = $1 AND p.carrier = $2
          ORDER BY p.id LIMIT 1`,
        [input.to, input.carrier],
      );
      const row = found.rows[0];
      if (!row) return { kind: 'refused' as const, callId: null, reason: INBOUND_REFUSALS.noAssistant };
      const userId = Number(row.user_id);
      await client.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', [USER_CALLS_LOCK, userId]);
      const live = await client.query(`SELECT count(*)::int AS n FROM calls c WHERE c.user_id = $1 AND ${takesSlot('c')}`, [userId]);
      let reason: string | null = null;
      if (row.assistant_id === null) reason = INBOUND_REFUSALS.noAssistant;
      else if (input.shuttingDown) reason = INBOUND_REFUSALS.shuttingDown;
      else if (!row.is_active) reason = INBOUND_REFUSALS.inactive;
      else if (Number(live.rows[0].n) >= Number(row.max)) reason = INBOUND_REFUSALS.limit;
      const mediaToken = reason ? null : randomBytes(24).toString('base64url');
      const inserted = await client.query(
        `INSERT INTO calls (user_id, assistant_id, assistant_name, type, status, assistant_phone_number, client_phone_number,
                            carrier, carrier_call_sid, media_token_hash, owner_instance, evaluation, ended_at)
         VALUES ($1, $2, coalesce($3, ''), 'inbound', $4, $5, $6, $7, $8, $9, $10, $11::jsonb, CASE WHEN $4 = 'failed' THEN now() END)
         RETURNING id`,
        [
          userId,
          row.assistant_id,
          row.assistant_name,
          reason ? 'failed' : 'initiated',
          input.to,
          input.from,
          input.carrier,
          input.carrierCallId,
          mediaToken ? hashMediaToken(mediaToken) : null,
          this.ctx.instanceId,
          JSON.stringify(reason ? { refused: reason } : {}),
        ],
      );
      const callId = Number(inserted.rows[0].id);
      if (reason) {
        await this.ctx.services.callEvents?.emit(executorOf(client), { callId, userId });
        return { kind: 'refused' as const, callId, reason, userId };
      }
      return { kind: 'accepted' as const, callId, mediaToken: mediaToken!, userId };
    });
  }

  /**
   * The call as its network's callbacks need it: its account (they verify with the account's
   * credentials), its carrier's call id, its status and whether a stream has claimed it.
   */
  async callOwner(callId: number): Promise<RemoteCallRow | null> {
    if (!Number.isSafeInteger(callId) || callId <= 0 || callId > 2_147_483_647) return null;
    const { rows } = await this.ctx.database.pool.query(
      'SELECT user_id, carrier, carrier_call_sid, status, media_token_hash IS NULL AS stream_claimed FROM calls WHERE id = $1',
      [callId],
    );
    const row = rows[0];
    return row
      ? { id: callId, userId: Number(row.user_id), carrier: row.carrier, carrierCallId: row.carrier_call_sid, status: row.status, streamClaimed: row.stream_claimed === true }
      : null;
  }

  /** The account holding `number` on `carrier` (inbound webhooks verify with its credentials). */
  async numberOwner(carrier: string, number: string): Promise<number | null> {
    const { rows } = await this.ctx.database.pool.query('SELECT user_id FROM phone_numbers WHERE phone_number = $1 AND carrier = $2 ORDER BY id LIMIT 1', [number, carrier]);
    return rows[0] ? Number(rows[0].user_id) : null;
  }

  /** What the network charged for a finished call (`carrierCallId`), or null (not rated yet, or it could not be asked). */
  async priceOf(carrier: RemoteCarrier, call: FinishedRemoteCall): Promise<number | null> {
    const { callId, userId, carrierCallId } = call;
    if (!carrier.priceOf || !carrierCallId) return null;
    try {
      return await carrier.priceOf(userId, carrierCallId);
    } catch (err) {
      this.log.warn({ err, callId }, "the carrier's price of the call could not be read; using the configured rate");
      return null;
    }
  }

  /**
   * Fetches the network's recording of a finished call and keeps it in `store`; resolves the
   * stored path for `recording_url`, or null when there is none.
   */
  async keepRecording(carrier: RemoteCarrier, call: FinishedRemoteCall, store: RecordingStore): Promise<string | null> {
    const { callId, userId, carrierCallId } = call;
    if (!carrier.recordingOf || !carrierCallId) return null;
    try {
      const wav = await carrier.recordingOf(userId, carrierCallId);
      if (!wav) {
        this.log.warn({ callId }, 'the carrier made no recording of the call');
        return null;
      }
      await store.save(callId, wav);
      return storedRecordingPath(callId);
    } catch (err) {
      this.log.error({ err, callId }, "keeping the carrier's recording of the call failed");
      return null;
    }
  }
}
