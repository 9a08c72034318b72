/**
 * The campaign dialer (CONTRACT §5, issue 7): while a campaign is `in-progress` it calls the
 * leads whose next attempt is due, within the campaign's calling window and parallel limits,
 * and settles each lead from the outcome of its call. This file is the loop around those two
 * transactions: wake-ups, sweeps, starting the claimed calls, reconciliation and completion.
 *
 * How it stays correct with several instances on one database:
 * - Dialing ("a tick" of one campaign) is one transaction (src/dialer/claim.ts): the campaign
 *   row share-locked, the user's advisory lock, live calls counted, due leads claimed with
 *   FOR UPDATE SKIP LOCKED and their calls created with `leads.current_call_id` set. The calls
 *   are started after commit. So a lead is in at most one live call and the limits hold globally.
 * - Settling is idempotent (src/dialer/settle.ts): only the lead whose `current_call_id` is the
 *   finished call changes, in one transaction that also clears `current_call_id`. It runs from
 *   the durable call-finished event and, as a safety net, from a periodic reconciliation of
 *   leads whose call is final (e.g. an event emitted before this instance subscribed).
 *
 * What triggers a tick: a NOTIFY from the database when any call of the user leaves the live
 * states (migration 0005; immediate, best effort), a settlement that makes a lead due at once,
 * and a sweep every `sweepIntervalMs` that also wakes retries that became due and campaigns
 * whose window opened.
 */
import { sql, type SQL } from 'drizzle-orm';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Metrics } from '../observability/metrics.js';
import type { CallService } from '../calls/types.js';
import { rowsOf, type Db } from '../db/pool.js';
import { LIVE_STATUSES } from '../calls/state-machine.js';
import { claimDueLeads, type CampaignRow } from './claim.js';
import { settleLead, type SettleResult } from './settle.js';
import { isWindowOpen, windowOf } from './window.js';
import { loopFailureLogger } from '../db/unavailable.js';

export type { SettleResult } from './settle.js';

export const SLOT_CHANNEL = 'switchboard_call_slot';

export interface DialerOptions {
  db: Db;
  log: Logger;
  /** The call engine; read on every tick so the start order of background parts does not matter. */
  calls: () => CallService | undefined;
  /** The clock (tests use a fake one). */
  now?: () => Date;
  /** Period of the sweep; 0 = no timer (tests call sweep() themselves). */
  sweepIntervalMs?: number;
  /** Reconcile leads stuck on a finished call every this many sweeps. */
  reconcileEverySweeps?: number;
  /** A finished call is reconciled only when its record is older than this. */
  reconcileGraceSeconds?: number;
  /** Connection settings for the LISTEN connection; omitted = no LISTEN. */
  listen?: pg.ClientConfig;
  /** Where claims are counted (src/observability/metrics.ts); omitted = not counted. */
  metrics?: Pick<Metrics, 'dialerClaimed'>;
}

/** Leads the reconciliation settles per transaction (see `reconcile`). */
const RECONCILE_BATCH = 50;

const LIVE = sql.raw(LIVE_STATUSES.map((s) => `'${s}'`).join(', '));

export class Dialer {
  private readonly db: Db;
  private readonly log: Logger;
  private readonly now: () => Date;
  private stopped = false;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private sweeps = 0;
  private readonly running = new Map<number, Promise<void>>();
  private readonly again = new Set<number>();
  /** In-progress campaigns by user, from the last sweep (for NOTIFY wake-ups). */
  private campaignsByUser = new Map<number, Set<number>>();
  private listener: pg.Client | undefined;
  private listenRetry: NodeJS.Timeout | undefined;
  private warnedNoEngine = false;
  /** Failures of the sweep and ticks: an unreachable database is one throttled warning, not an error per second. */
  private readonly sweepFailed: (err: unknown) => void;
  private readonly tickFailed: (err: unknown) => void;
  private readonly listenFailed: (err: unknown) => void;
  /** Calls started by this instance (statistics for benchmarks and logs). */
  dialed = 0;
  /** Slot-freed notifications received (statistics). */
  notified = 0;
  /** Ticks run and their total duration in ms (statistics). */
  ticks = 0;
  tickMs = 0;

  constructor(private readonly opts: DialerOptions) {
    this.db = opts.db;
    this.log = opts.log;
    this.now = opts.now ?? (() => new Date());
    this.sweepFailed = loopFailureLogger(this.log, 'dialer sweep failed');
    this.tickFailed = loopFailureLogger(this.log, 'dialer tick failed');
    // Retried every second while the database is away (the sweep covers meanwhile).
    this.listenFailed = loopFailureLogger(this.log, 'dialer LISTEN failed; relying on the sweep');
  }

  async start(): Promise<void> {
    this.stopped = false;
    if (this.opts.listen) await this.connectListener();
    const every = this.opts.sweepIntervalMs ?? 1000;
    if (every > 0) {
      const loop = () => {
        if (this.stopped) return;
        this.sweeping = this.sweep()
          .catch(this.sweepFailed)
          .finally(() => {
            this.sweeping = undefined;
            if (!this.stopped) this.sweepTimer = setTimeout(loop, every);
          });
      };
      loop();
    }
  }

  /** Places no new calls; waits for ticks in progress. Calls in flight are the engine's. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.sweepTimer);
    clearTimeout(this.listenRetry);
    await this.sweeping;
    await Promise.allSettled([...this.running.values()]);
    const l = this.listener;
    this.listener = undefined;
    await l?.end().catch(() => undefined);
  }

  // ------------------------------------------------------------------ wake-ups

  private async connectListener(): Promise<void> {
    const client = new pg.Client(this.opts.listen);
    const retry = () => {
      if (this.listener === client) this.listener = undefined;
      client.end().catch(() => undefined);
      if (!this.stopped) this.listenRetry = setTimeout(() => void this.connectListener(), 1000);
    };
    client.on('error', (err) => {
      this.log.warn({ err }, 'dialer LISTEN connection lost; reconnecting');
      retry();
    });
    client.on('notification', (msg) => {
      this.notified++;
      const [user, campaign] = (msg.payload ?? '').split(':');
      this.onSlotFreed(Number(user), campaign ? Number(campaign) : null);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${SLOT_CHANNEL}`);
      this.listener = client;
    } catch (err) {
      this.listenFailed(err);
      retry();
    }
  }

  /** A call of `userId` left the live states: its campaign, and the user's other running campaigns, may dial. */
  onSlotFreed(userId: number, campaignId: number | null): void {
    if (this.stopped) return;
    const ids = new Set(this.campaignsByUser.get(userId) ?? []);
    if (campaignId && ids.has(campaignId)) {
      // Its own campaign first; the others compete for the user's limit after it.
      this.kick(campaignId);
      ids.delete(campaignId);
    }
    for (const id of ids) this.kick(id);
  }

  /** Runs a tick of the campaign now, or once more after the one in progress. */
  kick(campaignId: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const current = this.running.get(campaignId);
    if (current) {
      this.again.add(campaignId);
      return current;
    }
    const p = (async () => {
      do {
        this.again.delete(campaignId);
        const began = performance.now();
        try {
          await this.dialCampaign(campaignId);
        } catch (err) {
          this.tickFailed(err);
        }
        this.ticks++;
        this.tickMs += performance.now() - began;
      } while (this.again.has(campaignId) && !this.stopped);
    })().finally(() => this.running.delete(campaignId));
    this.running.set(campaignId, p);
    return p;
  }

  /** Waits until no tick is running (tests). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }

  /**
   * One pass over the running campaigns: completes those with nothing callable left, ticks
   * those whose window is open and that have a due lead, and now and then reconciles leads
   * stuck on a finished call.
   */
  async sweep(): Promise<void> {
    const now = this.now();
    this.sweeps++;
    if ((this.sweeps - 1) % Math.max(1, this.opts.reconcileEverySweeps ?? 5) === 0) await this.reconcile();
    await this.completeFinishedCampaigns();
    const list = rowsOf<CampaignRow & { has_due: boolean }>(await this.db.execute(sql`
      select c.id, c.user_id, c.timezone, c.allowed_days, c.allowed_hours_start_time, c.allowed_hours_end_time,
             exists (select 1 from leads l
                      where l.campaign_id = c.id and l.status = 'created' and l.current_call_id is null
                        and (l.next_attempt_at is null or l.next_attempt_at <= ${now.toISOString()}::timestamptz)) as has_due
        from campaigns c
       where c.status = 'in-progress'`));
    const byUser = new Map<number, Set<number>>();
    for (const c of list) {
      if (!byUser.has(c.user_id)) byUser.set(c.user_id, new Set());
      byUser.get(c.user_id)!.add(c.id);
    }
    this.campaignsByUser = byUser;
    const ticks: Promise<void>[] = [];
    for (const c of list) {
      if (!c.has_due) continue;
      if (!isWindowOpen(windowOf(c), now)) continue;
      ticks.push(this.kick(c.id));
    }
    await Promise.all(ticks);
  }

  // ------------------------------------------------------------------ dialing

  /**
   * Claims due leads of one campaign and creates their calls in one transaction, then starts
   * the calls. Returns the ids of the calls started.
   */
  async dialCampaign(campaignId: number): Promise<number[]> {
    const engine = this.opts.calls();
    if (!engine) {
      if (!this.warnedNoEngine) this.log.warn('dialer: no call engine installed; campaigns wait');
      this.warnedNoEngine = true;
      return [];
    }
    const created = await claimDueLeads(this.db, engine, campaignId, this.now());
    this.opts.metrics?.dialerClaimed(created.length);
    for (const callId of created) {
      this.dialed++;
      engine.startCall(callId).catch((err) => this.log.error({ err, callId }, 'dialer: starting a call failed'));
    }
    return created;
  }

  // ------------------------------------------------------------------ settling

  /** The call-finished handler: settles the lead that is in this call, if any (idempotent). */
  async onCallFinished(callId: number): Promise<SettleResult | null> {
    const result = await this.db.transaction((tx) => settleLead(tx, callId, this.now()));
    if (result) await this.afterSettled([result]);
    return result;
  }

  /** After commit: a lead due again at once dials now; a campaign with a final lead may be done. */
  private async afterSettled(results: readonly SettleResult[]): Promise<void> {
    const kick = new Set<number>();
    const mayBeDone = new Set<number>();
    for (const r of results) {
      if (r.outcome === 'next-contact' || r.outcome === 'released') kick.add(r.campaignId);
      if (r.outcome !== 'retry' && r.outcome !== 'next-contact') mayBeDone.add(r.campaignId);
    }
    for (const id of kick) this.kick(id);
    for (const id of mayBeDone) await this.completeIfDone(id);
  }

  /**
   * Safety net for the call-finished event: settles leads whose call is final (or deleted)
   * since more than the grace period. Returns how many it settled.
   *
   * RECONCILE_BATCH leads share a transaction (one commit, not one each; `settleBatch`): a
   * lead whose settlement fails is rolled back alone, logged, and found again by the next pass,
   * as when each had its own transaction. Taken in call order,
   * so two instances reconciling the same leads lock them in the same order (no deadlock).
   */
  async reconcile(): Promise<number> {
    const grace = this.opts.reconcileGraceSeconds ?? 10;
    const stuck = rowsOf<{ call_id: number }>(await this.db.execute(sql`
      select l.current_call_id as call_id
        from leads l left join calls c on c.id = l.current_call_id
       where l.current_call_id is not null
         and (c.id is null or (c.status not in (${LIVE}) and c.updated_at < now() - make_interval(secs => ${grace})))
       order by l.current_call_id
       limit 500`));
    let settled = 0;
    for (let i = 0; i < stuck.length; i += RECONCILE_BATCH) {
      const callIds = stuck.slice(i, i + RECONCILE_BATCH).map((s) => s.call_id);
      let results: SettleResult[];
      try {
        results = await this.settleBatch(callIds);
      } catch (err) {
        // The transaction itself failed (e.g. the connection dropped): these leads wait for the next pass.
        this.log.error({ err, callIds }, 'dialer reconcile failed');
        continue;
      }
      settled += results.length;
      await this.afterSettled(results).catch((err) => this.log.error({ err }, 'dialer reconcile: completing campaigns failed'));
    }
    if (settled > 0) this.log.warn({ settled }, 'dialer: settled leads whose call-finished event had not arrived');
    return settled;
  }

  /**
   * Settles the leads of `callIds` in one transaction; the settled ones. Tried as one batch
   * first; if that fails, again with each lead in a savepoint of its own, so a failing lead is
   * rolled back alone (settling is idempotent, so running it again is safe).
   */
  private async settleBatch(callIds: readonly number[]): Promise<SettleResult[]> {
    const now = this.now();
    try {
      return await this.db.transaction(async (tx) => {
        const results: SettleResult[] = [];
        for (const callId of callIds) {
          const result = await settleLead(tx, callId, now);
          if (result) results.push(result);
        }
        return results;
      });
    } catch {
      // A lead failed (and rolled the whole batch back): again, lead by lead.
    }
    return this.db.transaction(async (tx) => {
      const results: SettleResult[] = [];
      for (const callId of callIds) {
        try {
          const result = await tx.transaction((savepoint) => settleLead(savepoint, callId, now));
          if (result) results.push(result);
        } catch (err) {
          this.log.error({ err, callId }, 'dialer reconcile failed');
        }
      }
      return results;
    });
  }

  // ------------------------------------------------------------------ completion

  private completionSql(where: SQL): SQL {
    return sql`
      update campaigns c set status = 'completed', updated_at = now()
       where ${where} and c.status = 'in-progress' and c.mark_complete_when_no_leads
         and not exists (select 1 from leads l where l.campaign_id = c.id and l.status = 'created')
      returning c.id`;
  }

  /** `completed` when nothing callable is left and mark_complete_when_no_leads. */
  async completeIfDone(campaignId: number): Promise<boolean> {
    const res = await this.db.execute(this.completionSql(sql`c.id = ${campaignId}`));
    return res.rows.length > 0;
  }

  private async completeFinishedCampaigns(): Promise<void> {
    await this.db.execute(this.completionSql(sql`true`));
  }
}
