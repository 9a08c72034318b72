/**
 * The call engine of one process (CallService): creates call records, runs each live call as
 * a CallSession on the carrier, persists every status transition, runs post-call processing
 * and writes the final record together with the call-finished event in one transaction.
 * Its size (~400 lines) is the call's lifecycle in one place — place, claim, run, finish, shut
 * down; the SQL (call-queries.ts), the final write (finalize.ts) and the session live beside it.
 */
import type { RateConversion } from '../audio/resample-thread.js';
import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import { inTransaction } from '../db/pool.js';
import { retryWhileUnavailable } from '../db/unavailable.js';
import { credentialSealer, type CredentialSealer } from '../lib/secrets.js';
import type { LlmProvider } from '../providers/llm/types.js';
import { AccountProvidersUnavailableError, type ProviderRegistry } from '../providers/registry.js';
import { systemClock, type Clock } from '../telephony/clock.js';
import type { CarrierRegistry } from '../telephony/registry.js';
import { placesRemotely, type Carrier, type CarrierLeg } from '../telephony/types.js';
import { BuiltinToolbox } from './builtin-tools/index.js';
import { loadHandOver, warmTransferDeps } from './hand-over.js';
import { sessionSettingsOf } from './call-settings.js';
import { assistantVoiceRow, bind, ASSISTANT_EXISTS, CLAIM_AND_LOAD, INSERT_CALL, INSERT_CALLS, insertManyValues, insertValues, LOCK_AND_LIMIT, type LoadedCall } from './call-queries.js';
import { finalizeCall } from './finalize.js';
import { knowledgeOfCall } from './knowledge.js';
import { CallLimitError, USER_CALLS_LOCK } from './limits.js';
import { runPostCall } from './post-call.js';
import { RemoteCalls } from './remote-calls.js';
import { CallSession, type SessionResult, type ToolExecutor } from './session.js';
import { NOW } from './state-machine.js';
import { CallProgress } from './progress.js';
import { ToolRunner } from './tool-runner.js';
import { observeTurns } from './turn-telemetry.js';
import { DbTurnRecorder, TurnTracker } from './turns.js';
import { AssistantMissingError, ShuttingDownError, type CallService, type DbOrTx, type PlaceCallInput } from './types.js';
import { voiceFactory, type VadModels } from '../voice/factory.js';
import type { SmartTurn } from '../voice/turn/smart-turn.js';
import type { VoiceCallFactory } from '../voice/voice-call.js';
import { AudioCallRecording } from '../voice/recording.js';

/** What the engine runs calls on, chosen by the composition root. */
export interface EngineDeps {
  carriers: CarrierRegistry;
  providers: ProviderRegistry;
  clock?: Clock;
  tools?: ToolExecutor;
  /** VAD models for audio legs (Silero); without it the voice core falls back to an energy VAD. */
  vad?: VadModels;
  /** The process's Smart Turn model (TURN_MODEL_PATH) when loaded; handed to every audio call's pipeline. */
  turnModel?: () => SmartTurn | null;
  /** Where replies' audio at another rate than the line's is resampled (off the event loop); none: at playout. */
  rates?: RateConversion;
}

export { AssistantMissingError } from './types.js';

/** The reason a call still live when the shutdown's grace period is over is ended with. */
export const SHUTDOWN_REASON = 'the service shut down';
/** After the grace period, how long the ended calls' post-call processing and final records may take. */
const AFTER_GRACE_MS = 30_000;

interface LiveCall {
  session: CallSession;
  finished: Promise<void>;
}


export class CallEngine implements CallService {
  private readonly carriers: CarrierRegistry;
  private readonly providers: ProviderRegistry;
  private readonly clock: Clock;
  private readonly tools: ToolExecutor;
  private readonly vad: VadModels | undefined;
  private readonly turnModel: () => SmartTurn | null;
  private readonly rates: RateConversion | undefined;
  /** Opens the credentials of built-in tools (the Cal.com key). */
  private readonly sealer: CredentialSealer;
  private readonly live = new Map<number, LiveCall>();
  /** False once the process shuts down: no new calls (`beginShutdown`). */
  private accepting = true;
  /** True once the grace period is over: not even a call created before is started. */
  private ending = false;
  /** Ends the grace period now (a second Ctrl-C); set while `stop` waits. */
  private cutGrace: (() => void) | null = null;
  private graceCut = false;
  /** Audio legs converse through the voice core when the deployment can speak (a text-to-speech provider). */
  get speaks(): boolean {
    return this.providers.tts.size > 0;
  }
  /** Calls on carriers whose network calls back (Twilio): placing, callbacks, stream claims. */
  readonly remote: RemoteCalls;

  constructor(
    private readonly ctx: AppContext,
    deps: EngineDeps,
  ) {
    this.carriers = deps.carriers;
    this.providers = deps.providers;
    this.clock = deps.clock ?? systemClock;
    this.vad = deps.vad;
    this.turnModel = deps.turnModel ?? (() => null);
    this.rates = deps.rates;
    this.tools = deps.tools ?? new ToolRunner({ allowPrivate: ctx.config.ALLOW_PRIVATE_TARGETS, log: ctx.log });
    this.sealer = credentialSealer(ctx.config);
    this.remote = new RemoteCalls(ctx);
  }

  /** The deployment's LLM (an account's own is in its registry: `providers.forAccount`). */
  get llm(): LlmProvider {
    return this.providers.llm;
  }

  /** The carrier calls are placed on (every call on the default carrier, for now). */
  get carrier(): Carrier {
    return this.carriers.default;
  }

  /** Browser calls run on the web carrier; every other call on the default one. */
  private carrierFor(type: string): Carrier {
    return (type === 'web' ? this.carriers.get('web') : undefined) ?? this.carrier;
  }

  activeCalls(): number {
    return this.live.size;
  }

  /** Whether the engine takes new calls (false while the process shuts down). */
  get takesCalls(): boolean {
    return this.accepting;
  }

  /** Ids of the calls this process is running. */
  runningIds(): ReadonlySet<number> {
    return new Set(this.live.keys());
  }

  async createCallRecords(tx: DbOrTx, inputs: readonly PlaceCallInput[]): Promise<number[]> {
    if (inputs.length === 0) return [];
    const res = await tx.execute(bind(INSERT_CALLS, insertManyValues(inputs, this.ctx.instanceId)));
    if (res.rows.length !== inputs.length) {
      // All or nothing: the caller's transaction is rolled back, as one call of many missing would.
      const pairs = [...new Set(inputs.map((i) => `assistant ${i.assistantId} of user ${i.userId}`))];
      throw new AssistantMissingError(`${pairs.join(', ')}: not found (${inputs.length - res.rows.length} of ${inputs.length} calls)`);
    }
    // Inserted in input order, so the ids ascend in that order.
    return (res.rows as { id: number }[]).map((r) => Number(r.id)).sort((a, b) => a - b);
  }

  /**
   * Creates the call record (within the account's parallel-call limit) and starts the call,
   * unless `defer`: a browser call starts when its page's socket arrives (`startCall`), on
   * whichever instance it reaches.
   */
  async placeCall(input: PlaceCallInput, { defer = false }: { defer?: boolean } = {}): Promise<{ callId: number }> {
    if (!this.accepting) throw new ShuttingDownError();
    // The hot path of make_call: named (prepared) statements on one connection, no query builder.
    const callId = await inTransaction(this.ctx.database.pool, async (client) => {
      const locked = await client.query({ name: 'sb_calls_lock_limit', text: LOCK_AND_LIMIT, values: [USER_CALLS_LOCK, input.userId] });
      const limit = locked.rows[0] ? Number(locked.rows[0].max) : 0;
      const inserted = await client.query({ name: 'sb_calls_insert', text: INSERT_CALL, values: insertValues(input, this.ctx.instanceId, limit) });
      if (inserted.rows[0]) return Number(inserted.rows[0].id);
      // Nothing inserted: the assistant is missing, or the account was full when the INSERT
      // counted. Asked of the assistant, not by counting again: a call that ended since would
      // make a full account look like a missing assistant.
      const found = await client.query({ name: 'sb_calls_assistant_exists', text: ASSISTANT_EXISTS, values: [input.assistantId, input.userId] });
      if (found.rows[0]) throw new CallLimitError(limit);
      throw new AssistantMissingError(`assistant ${input.assistantId} of user ${input.userId} not found`);
    });
    if (!defer) await this.startCall(callId);
    return { callId };
  }

  /**
   * Runs a created call here. Without `attach`, the call is claimed and dialed on its carrier
   * (a carrier whose network calls back is only asked to place it: its session starts where
   * its media stream arrives). With `attach`, the call was claimed by its media stream
   * (RemoteCalls.claimStream) and runs on that leg; `carrierCallId` is the network's id of the
   * call, as its stream brought it (the call's price and recording are asked for with it).
   */
  async startCall(callId: number, attach?: { leg: CarrierLeg; carrierCallId?: string }): Promise<void> {
    const log = this.ctx.log.child({ callId });
    // While shutting down no new call is placed (placeCall), but a call created before — by a
    // dialer tick in flight at the signal, a browser call whose page connects now, a Twilio
    // call whose media stream arrives now — still runs here within the grace period.
    if (this.ending) {
      log.warn('call not started: the service is shutting down (it will be ended by recovery)');
      attach?.leg.hangUp(SHUTDOWN_REASON);
      return;
    }
    if (this.live.has(callId)) return;
    const { pool } = this.ctx.database;
    // Claim the call for this process and read it with its assistant, model and tools: one statement.
    const loaded = await pool.query<LoadedCall>({ name: 'sb_calls_claim_load', text: CLAIM_AND_LOAD, values: [callId, this.ctx.instanceId, attach !== undefined] });
    const call = loaded.rows[0];
    if (!call) {
      log.warn('call not started: it is not waiting to be dialed');
      attach?.leg.hangUp('the call is no longer waiting for its stream');
      return;
    }
    const carrier = call.type === 'web' ? this.carrierFor(call.type) : (this.carriers.get(call.carrier) ?? this.carrier);
    if (call.assistant_id === null) {
      log.error('call cannot run: its assistant is gone');
      // A stream may have claimed it while ringing: the caller is let go, and the record ends from where it is.
      attach?.leg.hangUp("the call's assistant is gone");
      await finalizeCall(this.ctx, callId, call.status, failedResult(), null, log);
      return;
    }
    const settings = sessionSettingsOf(call);
    const { variables, model: modelName, temperature } = settings;
    const knowledge = await knowledgeOfCall(this.ctx, call, settings, log);
    const direction = call.type === 'inbound' ? 'inbound' : 'outbound';
    if (!attach && placesRemotely(carrier)) {
      await this.remote.place(carrier, {
        id: callId,
        userId: call.user_id,
        customer: call.client_phone_number,
        assistant: call.assistant_phone_number,
        direction,
        maxDurationSec: call.max_duration,
        detectMachine: direction === 'outbound',
        record: call.record,
      });
      return;
    }
    const leg = attach?.leg ?? carrier.dial({ callId, customer: call.client_phone_number, assistant: call.assistant_phone_number, direction });

    // Status transitions are persisted in order, off the conversation's path; one the database
    // cannot take now is written when it is back (progress.ts), before the final record.
    const progress = new CallProgress(pool, log, callId, call.status);

    // The account's providers: its own LLM (else the deployment's), and for audio legs the voice
    // core with its speech providers.
    let spoken: VoiceCallFactory | undefined;
    let registry: ProviderRegistry;
    try {
      registry = await this.providers.forAccount(call.user_id);
      spoken = leg.media ? await this.voiceFor(call, registry, log) : undefined;
    } catch (err) {
      if (!(err instanceof AccountProvidersUnavailableError)) throw err;
      // Not the deployment's keys instead (ProviderRegistry.forAccount): the call ends here, saying why.
      log.error({ err }, "call cannot run: the account's own provider keys cannot be read");
      leg.hangUp(err.message);
      await retryWhileUnavailable(() => finalizeCall(this.ctx, callId, call.status, { ...failedResult(), transcript: ACCOUNT_KEYS_NOTE }, null, log), {
        log,
        what: 'ending a call without its provider keys',
      });
      return;
    }
    const { metrics, tracing } = this.ctx.services;
    const callSpan = tracing?.start('call', { 'switchboard.call_id': callId, 'switchboard.call_type': call.type, 'switchboard.instance': this.ctx.instanceId });
    const turnRecorder = observeTurns(new DbTurnRecorder(pool, callId, log), { metrics, tracing, callSpan });
    // `record` on an audio leg of ours (Twilio records its own calls): the voice core's two channels.
    const recording = spoken && call.record && !placesRemotely(carrier) ? new AudioCallRecording(this.clock, call.max_duration + 60) : null;
    const voice = spoken && recording ? recording.wrap(spoken) : spoken;
    const llm = registry.llm;
    const session: CallSession = new CallSession(
      settings,
      {
        leg,
        llm,
        tools: this.tools,
        clock: this.clock,
        log,
        turns: new TurnTracker(turnRecorder, this.clock),
        voice,
        knowledge,
        builtins: new BuiltinToolbox(call.builtin_tools ?? [], {
          leg,
          clock: this.clock,
          log,
          allowPrivate: this.ctx.config.ALLOW_PRIVATE_TARGETS,
          unseal: (sealed) => this.sealer.unseal(sealed),
          timezone: call.assistant_timezone ?? 'UTC',
          assistantFor: (id) => loadHandOver({ pool, userId: call.user_id, callVariables: call.call_variables ?? {}, providers: this.providers, log }, id),
          // prettier-ignore
          warm: warmTransferDeps({ pool, userId: call.user_id, callCarrier: carrier.name, customerNumber: call.client_phone_number, languageIso2: call.language_iso2, log,
            carriers: this.carriers, fallback: this.carrier, llm, model: modelName, transcript: (): string => session.transcriptSoFar(), note: (line: string) => session.note(line) }),
        }),
      },
      {
        onRinging: () => progress.move('ringing'),
        onAnswered: (by) => {
          if (progress.reached === 'initiated') progress.move('ringing');
          progress.move('in-progress', { answeredBy: by, answeredAt: NOW });
        },
      },
    );
    if (llm.standIn) log.info({ llm: llm.label }, 'call runs on the offline LLM stand-in (no LLM configured, none of the account)');

    const finished = (async () => {
      try {
        const result = await session.run();
        const persisted = await progress.settled();
        await turnRecorder.flush();
        const remoteCall = { callId, userId: call.user_id, carrierCallId: attach?.carrierCallId ?? null };
        const carrierPrice = placesRemotely(carrier) && result.connected ? await this.remote.priceOf(carrier, remoteCall) : null;
        const store = this.ctx.recordings;
        if (placesRemotely(carrier) && result.connected && call.record) {
          result.recordingUrl = (await this.remote.keepRecording(carrier, remoteCall, store)) ?? result.recordingUrl;
        }
        if (recording && result.connected) result.recordingUrl = await recording.keep(result.talkMs, store, callId, log);
        const post = await runPostCall({
          callId,
          postCallSchema: call.post_call_schema,
          postCallEvaluation: call.post_call_evaluation,
          record: call.record,
          model: modelName,
          temperature,
          variables,
          result,
          llm,
          rates: { carrierPerMinute: this.ctx.config.CARRIER_COST_PER_MINUTE, platformPerMinute: this.ctx.config.PLATFORM_COST_PER_MINUTE },
          carrierPrice,
          log,
        });
        // The final record waits out a database outage, however long, rather than being lost to it
        // (a process that stops first leaves the call to recovery: docs/decisions.md).
        const status = await retryWhileUnavailable(() => finalizeCall(this.ctx, callId, persisted, result, post, log), {
          log,
          what: 'writing the final call record',
          maxMs: Number.POSITIVE_INFINITY,
        });
        callSpan?.setAttributes({ 'switchboard.call_status': status ?? result.status });
      } catch (err) {
        log.error({ err }, 'call failed unexpectedly; ending it');
        callSpan?.fail((err as Error).message);
        const persisted = await progress.settled();
        const ending = { ...failedResult(), status: persisted === 'initiated' ? ('failed' as const) : ('ended' as const) };
        await retryWhileUnavailable(() => finalizeCall(this.ctx, callId, persisted, ending, null, log), { log, what: 'ending a failed call' }).catch(
          (e) => log.error({ err: e }, 'ending a failed call failed'),
        );
      } finally {
        this.live.delete(callId);
        callSpan?.end();
      }
    })();
    this.live.set(callId, { session, finished });
  }

  /** The voice of an audio leg, on the account's providers. */
  private async voiceFor(call: LoadedCall, registry: ProviderRegistry, log: Logger) {
    await this.vad?.prepare();
    return voiceFactory(
      assistantVoiceRow(call),
      registry,
      { clock: this.clock, log, vad: this.vad, turnModel: this.turnModel(), rates: this.rates },
    );
  }

  /** Shutdown, step 1: no new calls from now on (placeCall throws ShuttingDownError). */
  beginShutdown(): void {
    this.accepting = false;
  }

  /**
   * Stops taking calls; lets live calls (also those whose media stream arrives meanwhile)
   * finish for `graceMs`, then ends the rest (`ended`, SHUTDOWN_REASON) and waits, bounded, for
   * their post-call processing and final records (which emit their call-finished events).
   */
  async stop(graceMs = 5_000): Promise<void> {
    this.accepting = false;
    const deadline = Date.now() + graceMs;
    const settled = () => Promise.allSettled([...this.live.values()].map((c) => c.finished));
    if (this.live.size > 0) this.ctx.log.info({ calls: this.live.size, graceSeconds: graceMs / 1000 }, 'waiting for live calls to finish');
    const cut = new Promise<void>((resolve) => (this.cutGrace = resolve));
    while (this.live.size > 0 && Date.now() < deadline && !this.graceCut) {
      await Promise.race([settled(), cut, delay(Math.min(1000, deadline - Date.now()))]);
    }
    this.cutGrace = null;
    this.ending = true;
    if (this.live.size === 0) return;
    this.ctx.log.info({ calls: this.live.size }, 'grace period over: ending the live calls');
    for (const c of this.live.values()) c.session.stop(SHUTDOWN_REASON);
    await Promise.race([settled(), delay(AFTER_GRACE_MS)]);
  }

  /** Ends the grace period of a shutdown now: the live calls are ended at once (a second Ctrl-C). */
  endGracePeriod(): void {
    this.graceCut = true;
    this.cutGrace?.();
  }

  /** Resolves when every call running now has finished (tests, benchmarks). */
  async drain(): Promise<void> {
    while (this.live.size > 0) await Promise.allSettled([...this.live.values()].map((c) => c.finished));
  }

  /** The finished promise of a running call (tests). */
  whenFinished(callId: number): Promise<void> {
    return this.live.get(callId)?.finished ?? Promise.resolve();
  }
}

/** The transcript of a call that could not run because its account's own keys could not be read. */
export const ACCOUNT_KEYS_NOTE =
  "[the call could not run: the account's own provider keys could not be read (a database error, or SECRET_KEY changed), and the deployment's keys are not used in their place]";

function failedResult(): SessionResult {
  return { connected: false, status: 'failed', answeredBy: 'unknown', talkMs: 0, transcript: '', messages: [], toolCalls: [], customerUtterances: 0 };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
