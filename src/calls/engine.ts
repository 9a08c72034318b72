/**
 * The call engine of one process (CallService): creates call records, runs each live call as
 * a CallSession on the carrier, persists every status transition, runs post-call processing
 * and writes the final record together with the call-finished event in one transaction.
 */
import { and, asc, eq } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import { assistants, assistantTools, calls, campaigns, llmModels, phoneNumbers, tools, users } from '../db/schema.js';
import { createLlmProvider, type LlmProvider } from '../providers/llm/index.js';
import { systemClock, type Clock } from '../telephony/clock.js';
import { SandboxCarrier } from '../telephony/sandbox/carrier.js';
import type { Carrier } from '../telephony/types.js';
import { ensureCallEvents, executorOf } from './events.js';
import { reserveCallSlot } from './limits.js';
import { runPostCall } from './post-call.js';
import { CallSession, END_CALL_TOOL, type SessionResult, type ToolExecutor } from './session.js';
import { isLive, NOW, transitionCall, type CallStatus, type TransitionFields } from './state-machine.js';
import { ToolRunner, type MidCallTool } from './tool-runner.js';
import type { CallService, DbOrTx, PlaceCallInput } from './types.js';
import { fillTemplate } from './variables.js';

export interface EngineOptions {
  clock?: Clock;
  carrier?: Carrier;
  llm?: LlmProvider;
  tools?: ToolExecutor;
}

export class AssistantMissingError extends Error {}

interface LiveCall {
  session: CallSession;
  finished: Promise<void>;
}

type CallRow = typeof calls.$inferSelect;

export class CallEngine implements CallService {
  readonly llm: LlmProvider;
  readonly carrier: Carrier;
  private readonly clock: Clock;
  private readonly tools: ToolExecutor;
  private readonly live = new Map<number, LiveCall>();
  private accepting = true;

  constructor(
    private readonly ctx: AppContext,
    opts: EngineOptions = {},
  ) {
    this.clock = opts.clock ?? systemClock;
    this.carrier = opts.carrier ?? new SandboxCarrier({ timeScale: ctx.config.SANDBOX_TIME_SCALE, clock: this.clock });
    this.llm = opts.llm ?? createLlmProvider(ctx.config, END_CALL_TOOL);
    this.tools = opts.tools ?? new ToolRunner({ allowPrivate: ctx.config.ALLOW_PRIVATE_TARGETS, log: ctx.log });
  }

  activeCalls(): number {
    return this.live.size;
  }

  /** Ids of the calls this process is running. */
  runningIds(): ReadonlySet<number> {
    return new Set(this.live.keys());
  }

  async createCallRecord(tx: DbOrTx, input: PlaceCallInput): Promise<number> {
    const [assistant] = await tx
      .select({ name: assistants.name, phone: phoneNumbers.phoneNumber })
      .from(assistants)
      .leftJoin(phoneNumbers, eq(phoneNumbers.id, assistants.phoneNumberId))
      .where(and(eq(assistants.id, input.assistantId), eq(assistants.userId, input.userId)));
    if (!assistant) throw new AssistantMissingError(`assistant ${input.assistantId} of user ${input.userId} not found`);
    let campaignName: string | null = null;
    if (input.campaignId) {
      const [c] = await tx.select({ name: campaigns.name }).from(campaigns).where(eq(campaigns.id, input.campaignId));
      campaignName = c?.name ?? null;
    }
    const [row] = await tx
      .insert(calls)
      .values({
        userId: input.userId,
        assistantId: input.assistantId,
        assistantName: assistant.name,
        campaignId: input.campaignId ?? null,
        campaignName,
        leadId: input.leadId ?? null,
        secondaryContactId: input.secondaryContactId ?? null,
        type: input.type ?? 'outbound',
        status: 'initiated',
        assistantPhoneNumber: assistant.phone ?? '',
        clientPhoneNumber: input.to,
        variables: input.variables ?? {},
        ownerInstance: this.ctx.instanceId,
      })
      .returning({ id: calls.id });
    return row.id;
  }

  async placeCall(input: PlaceCallInput): Promise<{ callId: number }> {
    const { db } = this.ctx.database;
    const callId = await db.transaction(async (tx) => {
      const [user] = await tx.select({ max: users.maxCallsInParallel }).from(users).where(eq(users.id, input.userId));
      await reserveCallSlot(tx, input.userId, user?.max ?? 0);
      return this.createCallRecord(tx, input);
    });
    await this.startCall(callId);
    return { callId };
  }

  async startCall(callId: number): Promise<void> {
    const log = this.ctx.log.child({ callId });
    if (!this.accepting) {
      log.warn('call not started: the service is shutting down (it will be ended by recovery)');
      return;
    }
    if (this.live.has(callId)) return;
    const { db, pool } = this.ctx.database;
    const claimed = await pool.query(`UPDATE calls SET owner_instance = $2 WHERE id = $1 AND status = 'initiated' RETURNING id`, [callId, this.ctx.instanceId]);
    if (claimed.rowCount !== 1) {
      log.warn('call not started: it is not waiting to be dialed');
      return;
    }
    const [call] = await db.select().from(calls).where(eq(calls.id, callId));
    const [assistant] = call.assistantId ? await db.select().from(assistants).where(eq(assistants.id, call.assistantId)) : [];
    if (!assistant) {
      log.error('call cannot run: its assistant is gone');
      await this.finalize(call, 'initiated', failedResult(), null, log);
      return;
    }
    const [model] = assistant.llmModelId
      ? await db.select({ name: llmModels.name }).from(llmModels).where(eq(llmModels.id, assistant.llmModelId))
      : [];
    const attached = await db
      .select({ tool: tools })
      .from(assistantTools)
      .innerJoin(tools, eq(tools.id, assistantTools.toolId))
      .where(eq(assistantTools.assistantId, assistant.id))
      .orderBy(asc(assistantTools.position), asc(tools.id));
    const midCallTools: MidCallTool[] = attached.map(({ tool }) => ({
      id: tool.id,
      name: tool.name,
      description: tool.description,
      endpoint: tool.endpoint,
      method: tool.method,
      timeout: tool.timeout,
      headers: tool.headers,
      schema: tool.schema,
    }));

    const variables = { ...assistant.variables, ...call.variables };
    const modelName = model?.name ?? 'gpt-4o-mini';
    const temperature = Number(assistant.llmTemperature);
    const leg = this.carrier.dial({
      customer: call.clientPhoneNumber,
      assistant: call.assistantPhoneNumber,
      direction: call.type === 'inbound' ? 'inbound' : 'outbound',
    });

    // Status transitions are persisted in order, off the conversation's path.
    let persisted: CallStatus = 'initiated';
    let planned: CallStatus = 'initiated';
    let chain: Promise<void> = Promise.resolve();
    const move = (to: CallStatus, fields: TransitionFields = {}) => {
      const from = planned;
      planned = to;
      chain = chain
        .then(async () => {
          if (await transitionCall(pool, log, callId, from, to, fields)) persisted = to;
        })
        .catch((err) => log.error({ err }, 'persisting a call transition failed'));
    };

    const session = new CallSession(
      {
        systemPrompt: fillTemplate(assistant.systemPrompt, variables),
        initialMessage: fillTemplate(assistant.initialMessage, variables),
        waitForCustomer: assistant.waitForCustomer,
        endCallOnVoicemail: assistant.endCallOnVoicemail,
        maxDurationSec: assistant.maxDuration,
        maxSilenceSec: assistant.maxSilenceDuration,
        reengagementSec: assistant.reengagementInterval,
        model: modelName,
        temperature: Number.isFinite(temperature) ? temperature : 0.1,
        tools: midCallTools,
        endCallDescription: assistant.endCallToolDescription,
        variables,
      },
      { leg, llm: this.llm, tools: this.tools, clock: this.clock, log },
      {
        onRinging: () => move('ringing'),
        onAnswered: (by) => {
          if (planned === 'initiated') move('ringing');
          move('in-progress', { answeredBy: by, answeredAt: NOW });
        },
      },
    );
    if (this.llm.standIn) log.info({ llm: this.llm.label }, 'call runs on the offline LLM stand-in (no LLM configured)');

    const finished = (async () => {
      try {
        const result = await session.run();
        await chain;
        const post = await runPostCall({
          callId,
          postCallSchema: assistant.postCallSchema,
          postCallEvaluation: assistant.postCallEvaluation,
          record: assistant.record,
          model: modelName,
          temperature: Number.isFinite(temperature) ? temperature : 0.1,
          variables,
          result,
          llm: this.llm,
          rates: { carrierPerMinute: this.ctx.config.CARRIER_COST_PER_MINUTE, platformPerMinute: this.ctx.config.PLATFORM_COST_PER_MINUTE },
          publicBaseUrl: this.ctx.config.publicBaseUrl,
          log,
        });
        await this.finalize(call, persisted, result, post, log);
      } catch (err) {
        log.error({ err }, 'call failed unexpectedly; ending it');
        await chain;
        await this.finalize(call, persisted, { ...failedResult(), status: persisted === 'initiated' ? 'failed' : 'ended' }, null, log).catch(
          (e) => log.error({ err: e }, 'ending a failed call failed'),
        );
      } finally {
        this.live.delete(callId);
      }
    })();
    this.live.set(callId, { session, finished });
  }

  /** Writes the final record and emits the call-finished event, in one transaction. */
  private async finalize(
    call: CallRow,
    from: CallStatus,
    result: SessionResult,
    post: Awaited<ReturnType<typeof runPostCall>> | null,
    log: Logger,
  ): Promise<void> {
    const fields: TransitionFields = {
      endedAt: NOW,
      transcript: result.transcript,
      answeredBy: result.answeredBy,
      ...(post
        ? {
            evaluation: post.evaluation,
            duration: post.durationSec,
            carrierCost: post.carrierCost,
            totalCost: post.totalCost,
            recordingUrl: post.recordingUrl,
          }
        : {}),
    };
    const client = await this.ctx.database.pool.connect();
    try {
      await client.query('BEGIN');
      let moved = await transitionCall(client, log, call.id, from, result.status, fields);
      if (!moved && isLive(from)) {
        // The outcome does not fit what was persisted (a transition failed on the way): end it anyway.
        moved = await transitionCall(client, log, call.id, from, 'ended', fields);
      }
      if (moved) await ensureCallEvents(this.ctx.services)?.emit(executorOf(client), { callId: call.id, userId: moved.userId });
      await client.query('COMMIT');
      log.info({ status: result.status, duration: post?.durationSec ?? 0 }, 'call finished');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /** Stops taking calls; lets live calls finish for `graceMs`, then ends the rest (`ended`). */
  async stop(graceMs = 5_000): Promise<void> {
    this.accepting = false;
    const all = () => Promise.allSettled([...this.live.values()].map((c) => c.finished));
    if (this.live.size === 0) return;
    await Promise.race([all(), delay(graceMs)]);
    for (const c of this.live.values()) c.session.stop('service shutting down');
    await Promise.race([all(), delay(10_000)]);
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

function failedResult(): SessionResult {
  return { connected: false, status: 'failed', answeredBy: 'unknown', talkMs: 0, transcript: '', messages: [], toolCalls: [], customerUtterances: 0 };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

