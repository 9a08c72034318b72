/**
 * Test runs in the background: the process that accepted a run executes it (an in-process
 * queue), each scenario's repeats as separate jobs, at most the account's
 * `max_calls_in_parallel` of them at a time in this process. A run's results are written as
 * each repeat finishes; the run ends passed (every scenario met its pass_rate), failed, or
 * error (a scenario could not run, or the process stopped). A process that starts marks the
 * runs of processes that are gone as error (they would never finish); one that stops marks its
 * own unfinished runs so. Runs are not calls: no call record, slot, webhook or cost.
 */
import type { AppContext } from '../context.js';
import type { BackgroundPart } from '../parts.js';
import { credentialSealer } from '../lib/secrets.js';
import type { TestAssistant } from './assistant.js';
import { runOnce, type RunnerDeps } from './runner.js';
import { knowledgeOfAssistant } from '../calls/knowledge.js';
import type { KnowledgeContext } from '../knowledge/index.js';
import type { AudioDeps } from './audio.js';
import { sileroModels } from '../calls/index.js';
import { opensDrivenLegs } from '../telephony/types.js';
import { STALE_AFTER_SECONDS } from '../calls/recovery.js';
import { parseScenarioDocument, type Scenario } from './scenario.js';
import { failOrphanedRuns, finishRun, saveResult, startRun, type RepeatRecord, type RunRow, type RunStatus } from './store.js';

export interface RepeatJob {
  run: RunRow;
  assistant: TestAssistant;
  scenario: Scenario;
  /** The scenario's place in the run, and the repeat (0-based). */
  position: number;
  repeat: number;
  signal: AbortSignal;
}

/** Runs one repeat of one scenario (by default runner.ts `runOnce` with the process's LLM). */
export type ScenarioRunner = (ctx: AppContext, job: RepeatJob) => Promise<RepeatRecord>;

/**
 * Audio mode's deps in this process: its speech providers and the sandbox carrier's driven line;
 * undefined without a sandbox carrier (audio runs are then refused).
 */
export function processAudio(ctx: Pick<AppContext, 'carriers' | 'providers' | 'log'>): AudioDeps | undefined {
  const sandbox = ctx.carriers.get('sandbox');
  if (!opensDrivenLegs(sandbox)) return undefined;
  return { providers: ctx.providers, line: () => sandbox.drivenLeg(), vad: sileroModels(ctx) };
}

/** The assistant's knowledge base as a run gets it: only a base of `userId` (the run's user) is ever used. */
export function knowledgeOfRuns(ctx: KnowledgeContext, userId: number): NonNullable<RunnerDeps['knowledge']> {
  return (assistant, settings, log) =>
    knowledgeOfAssistant(ctx, userId, { knowledgebase_id: assistant.knowledgebase_id ?? null, knowledgebase_mode: assistant.knowledgebase_mode ?? null, mode: assistant.mode }, settings, log);
}

/**
 * The process's runner: the account's providers (its own LLM key, else the configured LLM, else
 * the offline stand-in); audio mode on the sandbox line and the account's speech providers.
 * Keys of the account that cannot be read fail the run (never the deployment's instead).
 */
export const runWithProcessLlm: ScenarioRunner = async (ctx, job) => {
  const sealer = credentialSealer(ctx.config);
  const providers = await ctx.providers.forAccount(job.run.userId);
  const audio = job.scenario.mode === 'audio' ? processAudio({ ...ctx, providers }) : undefined;
  const r = await runOnce(job.scenario, job.assistant, { llm: providers.llm, log: ctx.log, unseal: (s) => sealer.unseal(s), audio, knowledge: knowledgeOfRuns(ctx, job.run.userId) }, job.position, job.repeat);
  return {
    status: r.status,
    endStatus: r.endStatus,
    transcript: r.transcript,
    toolRequests: r.toolRequests,
    turns: r.turns,
    assertions: r.assertions,
    variables: r.variables,
    error: r.error,
    durationMs: r.durationMs,
  };
};

export const STOPPED_MESSAGE = 'The service stopped before this run finished; run it again.';

/** A counting semaphore per account. */
class Slots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(public limit: number) {}
  async take(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  give(): void {
    const next = this.waiting.shift();
    if (next && this.active <= this.limit) next();
    else this.active--;
  }
  get idle(): boolean {
    return this.active === 0 && this.waiting.length === 0;
  }
}

export class TestRunQueue {
  private readonly slots = new Map<number, Slots>();
  private readonly live = new Map<number, { abort: AbortController; done: Promise<void> }>();
  private stopping = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly runner: ScenarioRunner,
  ) {}

  /** Starts a created (queued) run; resolves at once, the run goes on in the background. */
  submit(run: RunRow, assistant: TestAssistant, maxParallel: number): void {
    if (this.stopping) return;
    const abort = new AbortController();
    const done = this.execute(run, assistant, Math.max(1, maxParallel), abort.signal).catch((err: unknown) => {
      this.ctx.log.error({ err, runId: run.id }, 'test run failed');
      return finishRun(this.ctx.database.db, run.id, { status: 'error', passed: 0, failed: 0, errored: 0, error: (err as Error).message }).catch(() => undefined);
    }).finally(() => this.live.delete(run.id));
    this.live.set(run.id, { abort, done });
  }

  /** Resolves when the run is over here (tests, shutdown). */
  async settled(runId: number): Promise<void> {
    await this.live.get(runId)?.done;
  }

  get running(): number {
    return this.live.size;
  }

  private slotsOf(userId: number, limit: number): Slots {
    let s = this.slots.get(userId);
    if (!s) this.slots.set(userId, (s = new Slots(limit)));
    s.limit = limit;
    return s;
  }

  private async execute(run: RunRow, assistant: TestAssistant, maxParallel: number, signal: AbortSignal): Promise<void> {
    const { db } = this.ctx.database;
    if (!(await startRun(db, run.id))) return;
    const slots = this.slotsOf(run.userId, maxParallel);
    const outcomes = await Promise.all(
      run.scenarios.map(async (entry, position) => {
        const parsed = parseScenarioDocument(entry.source, entry.name);
        const scenario = 'scenarios' in parsed ? parsed.scenarios[entry.index ?? 0] : undefined;
        if (!scenario) {
          const error = 'errors' in parsed ? parsed.errors.map((e) => `line ${e.line}: ${e.message}`).join('; ') : 'no scenario';
          await saveResult(db, run.id, position, 0, emptyRecord('error', error));
          return 'error' as const;
        }
        const repeats = await Promise.all(
          Array.from({ length: scenario.repeat }, async (_, repeat) => {
            await slots.take();
            try {
              const record = signal.aborted ? emptyRecord('error', STOPPED_MESSAGE) : await this.runOne(run, assistant, scenario, position, repeat, signal);
              await saveResult(db, run.id, position, repeat, record);
              return record.status;
            } finally {
              slots.give();
            }
          }),
        );
        return scenarioVerdict(repeats, scenario.pass_rate);
      }),
    );
    if (this.slots.get(run.userId)?.idle) this.slots.delete(run.userId);
    const passed = outcomes.filter((o) => o === 'passed').length;
    const failed = outcomes.filter((o) => o === 'failed').length;
    const errored = outcomes.filter((o) => o === 'error').length;
    const status: RunStatus = signal.aborted ? 'error' : errored > 0 ? 'error' : failed > 0 ? 'failed' : 'passed';
    await finishRun(db, run.id, { status, passed, failed, errored, error: signal.aborted ? STOPPED_MESSAGE : null });
  }

  private async runOne(run: RunRow, assistant: TestAssistant, scenario: Scenario, position: number, repeat: number, signal: AbortSignal): Promise<RepeatRecord> {
    const started = performance.now();
    try {
      return await this.runner(this.ctx, { run, assistant, scenario, position, repeat, signal });
    } catch (err) {
      this.ctx.log.warn({ err, runId: run.id, scenario: scenario.name }, 'a test scenario could not run');
      return { ...emptyRecord('error', (err as Error).message), durationMs: performance.now() - started };
    }
  }

  /** Shutdown: unfinished runs are stopped and end as error. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const { abort } of this.live.values()) abort.abort();
    await Promise.allSettled([...this.live.values()].map((l) => l.done));
  }
}

/**
 * A scenario passes when the share of its passed repeats reaches its pass_rate (half a percent
 * of tolerance: 2 of 3 meet 0.67); it is an error when repeats could not run and none passed
 * (the runner's own rule, runner.ts `scenarioResult`).
 */
export function scenarioVerdict(repeats: readonly ('passed' | 'failed' | 'error')[], passRate: number): 'passed' | 'failed' | 'error' {
  const passed = repeats.filter((r) => r === 'passed').length;
  if (repeats.includes('error') && passed === 0) return 'error';
  const share = repeats.length === 0 ? 0 : passed / repeats.length;
  return share >= passRate - 0.005 ? 'passed' : 'failed';
}

export function emptyRecord(status: RepeatRecord['status'], error: string | null): RepeatRecord {
  return { status, endStatus: null, transcript: [], toolRequests: [], turns: [], assertions: [], variables: {}, error, durationMs: 0 };
}

declare module '../context.js' {
  interface Services {
    testRuns?: TestRunQueue;
  }
}

/** The part: the queue, and the start-up sweep of runs left by processes that are gone. */
export function testRunsPartWith(runner: ScenarioRunner = runWithProcessLlm) {
  return (ctx: AppContext): BackgroundPart => {
    const queue = new TestRunQueue(ctx, runner);
    return {
      name: 'assistant-tests',
      provides: { testRuns: queue },
      async start() {
        const n = await failOrphanedRuns(ctx.database.db, ctx.instanceId, STALE_AFTER_SECONDS);
        if (n > 0) ctx.log.info({ runs: n }, 'test runs left unfinished by a stopped process are marked error');
      },
      async stop() {
        await queue.stop();
      },
    };
  };
}

/** The part with the process's LLM (src/compose.ts). */
export const testRunsPart = testRunsPartWith();
