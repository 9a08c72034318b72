/**
 * The call engine's background part: offers the engine as `ctx.services.calls`, keeps this
 * process's heartbeat and ends calls orphaned by dead processes (at start-up and
 * periodically). The call-finished event bus (`ctx.services.callEvents`) is the composition
 * root's, shared with every consumer.
 */
import { sharedResampleThread, type RateConversion } from '../audio/resample-thread.js';
import type { AppContext } from '../context.js';
import type { BackgroundPart } from '../parts.js';
import { CallEngine } from './engine.js';
import { SileroVad, sharedVadRunner, type SileroVadRunner } from '../audio/vad/silero.js';
import type { VadModels } from '../voice/factory.js';
import { twilioNumbersExist } from '../accounts/carrier-accounts.js';
import { ConfigError } from '../config.js';
import { forgetInstance, HEARTBEAT_INTERVAL_MS, HeartbeatWatch, pruneWebCallTokens, recoverOrphans, STALE_AFTER_SECONDS } from './recovery.js';
import { loopFailureLogger } from '../db/unavailable.js';
import { ProcessTurnModel } from './turn-model.js';

export { CallEngine } from './engine.js';

declare module '../context.js' {
  interface Services {
    /** The concrete engine behind `calls` (tests, benchmarks). */
    callEngine?: CallEngine;
    /** The process's Smart Turn model (TURN_MODEL_PATH), loaded when the engine starts. */
    turnModel?: ProcessTurnModel;
  }
}

const SWEEP_INTERVAL_MS = 10_000;

export function callEnginePart(ctx: AppContext): BackgroundPart {
  const events = ctx.services.callEvents;
  const turnModel = new ProcessTurnModel(ctx.config.TURN_MODEL_PATH, ctx.log);
  const engine = new CallEngine(ctx, { carriers: ctx.carriers, providers: ctx.providers, vad: sileroModels(ctx), turnModel: () => turnModel.model, rates: processRates });
  const { pool } = ctx.database;
  const heartbeat = new HeartbeatWatch(ctx.database.url, ctx.instanceId);
  const timers: NodeJS.Timeout[] = [];
  let heartbeatTimer: NodeJS.Timeout | undefined;
  let sweeping: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const sweepFailed = loopFailureLogger(ctx.log, 'call recovery sweep failed');
  const heartbeatFailed = loopFailureLogger(ctx.log, 'instance heartbeat failed');

  const sweep = () => {
    if (stopped) return;
    sweeping = recoverOrphans({
      pool,
      log: ctx.log,
      events,
      instanceId: ctx.instanceId,
      running: engine.runningIds(),
      canJudgeOthers: heartbeat.canJudgeOthers(),
    })
      .then(() => pruneWebCallTokens(pool))
      .catch(sweepFailed);
  };

  return {
    name: 'calls',
    provides: {
      calls: engine,
      callEngine: engine,
      turnModel,
    },
    async start() {
      // Before anything else: a TURN_MODEL_PATH that does not load stops the start.
      await turnModel.load();
      await heartbeat.beat();
      await checkTwilioPublicUrl(ctx);
      await engine.remote.start();
      if (engine.llm.standIn) ctx.log.info('no LLM configured (LLM_BASE_URL unset): calls of accounts without an LLM key of their own run on the offline stand-in');
      heartbeatTimer = setInterval(() => {
        heartbeat.beat().catch(heartbeatFailed);
      }, HEARTBEAT_INTERVAL_MS);
      heartbeatTimer.unref();
      // The first sweep once every consumer of this process has subscribed (the parts after this
      // one start later): an event reaches only the queues subscribed when it is emitted, so a call
      // ended before the webhook part subscribed had no webhook, for good (a fixed 2 s guessed it).
      void (events?.whenAllSubscribed ?? Promise.resolve()).then(() => {
        if (stopped) return;
        sweep();
        const every = setInterval(sweep, SWEEP_INTERVAL_MS);
        every.unref();
        // That first sweep leaves other instances' calls alone (this process has not yet seen the
        // database for a stale window); one more the moment it has, rather than at the next tick.
        const judging = setTimeout(sweep, STALE_AFTER_SECONDS * 1000 + 500);
        judging.unref();
        timers.push(every, judging);
      });
    },
    async quiesce() {
      engine.beginShutdown();
      stopped = true;
      for (const t of timers) clearTimeout(t);
    },
    hurry: () => engine.endGracePeriod(),
    async drain() {
      // The heartbeat goes on meanwhile: other instances must not take our live calls for orphans.
      await sweeping;
      await engine.stop(ctx.config.SHUTDOWN_GRACE_SECONDS * 1000);
    },
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      await sweeping;
      await engine.stop(ctx.config.SHUTDOWN_GRACE_SECONDS * 1000);
      clearInterval(heartbeatTimer);
      await engine.remote.stop();
      await forgetInstance(pool, ctx.instanceId).catch(() => undefined);
      await heartbeat.close();
      await turnModel.close();
    },
  };
}

/** Replies' audio is resampled in the process's resampling thread, started with the first reply that needs it. */
const processRates: RateConversion = { open: (from, to) => sharedResampleThread().open(from, to) };

/**
 * Silero VAD for audio legs: the shared batched runner, loaded on the first audio call (text-only
 * processes never load it). When the model cannot load, the voice core falls back to its energy VAD.
 */
export function sileroModels(ctx: Pick<AppContext, 'log'>): VadModels {
  let runner: SileroVadRunner | null = null;
  let warned = false;
  return {
    prepare: async () => {
      if (runner) return;
      try {
        runner = await sharedVadRunner();
      } catch (err) {
        if (!warned) ctx.log.warn({ err }, 'the Silero VAD model could not be loaded; audio calls use the energy fallback');
        warned = true;
      }
    },
    model: (sampleRate) => (runner ? new SileroVad(runner, sampleRate >= 16_000 ? 16_000 : 8000) : null),
  };
}

/**
 * Twilio reaches the service only at PUBLIC_BASE_URL and refuses plain-http media streams:
 * with Twilio numbers present it must be https:// (a start-up error in production, a warning
 * otherwise, so a laptop with a tunnel still starts).
 */
async function checkTwilioPublicUrl(ctx: AppContext): Promise<void> {
  if (ctx.config.publicBaseUrl.startsWith('https://')) return;
  if (!(await twilioNumbersExist(ctx.database.db))) return;
  const message = `PUBLIC_BASE_URL must be an https:// address Twilio can reach while Twilio numbers exist (it is ${ctx.config.publicBaseUrl})`;
  if (ctx.config.NODE_ENV === 'production') throw new ConfigError(message);
  ctx.log.warn(message);
}
