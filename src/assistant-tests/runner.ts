/**
 * Runs scenarios against an assistant. Text mode runs the assistant exactly as a typed call
 * runs: a `CallSession` (src/calls/session.ts) on an in-process text leg (leg.ts), with the
 * scenario's mocks answering its tools (mocks.ts) and the test's caller on the other side
 * (callers.ts). No call record is written, so nothing reaches the call list, campaigns,
 * webhooks or costs; post-call variables come from the engine's own extraction
 * (src/calls/post-call.ts). Each scenario runs `repeat` times; runs go in parallel up to a
 * limit, and a scenario passes when at least `pass_rate` of its runs pass.
 *
 *   scenario × repeat ──▶ pool (concurrency) ──▶ runOnce: TestLeg ⇄ CallSession ⇄ LLM
 *                                                  caller ◀─ turn over (TurnRecorder) │ tools ─▶ mocks
 *                                                  finished ─▶ post-call ─▶ assertions (judge: the LLM)
 */
import type { Logger } from 'pino';
import { sessionSettingsOf } from '../calls/call-settings.js';
import { runPostCall } from '../calls/post-call.js';
import { CallSession } from '../calls/session.js';
import { TurnTracker, type TurnRecord, type TurnRecorder } from '../calls/turns.js';
import type { ChatMessage, LlmProvider } from '../providers/llm/types.js';
import { systemClock, type Clock } from '../telephony/clock.js';
import { checkExpectation, llmJudge, type AssertionResult, type Judge, type RunFacts, type TurnTiming } from './assertions.js';
import type { TestAssistant } from './assistant.js';
import type { SessionSettings } from '../calls/session-types.js';
import type { CallKnowledge } from '../voice/ports.js';
import { builtinTypeOf } from './builtins.js';
import { callerFor } from './callers.js';
import { TestLeg, type CallerSide } from './leg.js';
import { AudioCallerSide, audioRefusal, testVoiceFactory, type AudioDeps } from './audio.js';
import type { CarrierLeg } from '../telephony/types.js';
import type { VoiceCallFactory } from '../voice/voice-call.js';
import { MockTools, parseArguments, TestToolbox, type ToolRequest } from './mocks.js';
import { validateAgainstAssistant } from './assistant-checks.js';
import type { Scenario } from './scenario.js';

export interface RunnerDeps {
  /** The configured LLM: the assistant's, the simulated caller's (with `caller.model`) and the judge's. */
  llm: LlmProvider;
  log: Logger;
  clock?: Clock;
  /** Opens sealed credentials of built-ins (src/lib/secrets.ts); a test answers vendor built-ins from mocks only. */
  unseal?: (sealed: string) => string;
  /** Longest one run may take before it is ended (default 120 s, and never more than the assistant's max_duration). */
  runTimeoutMs?: number;
  /** Decides `judge` criteria (default: the LLM with the assistant's model; skipped on the offline stand-in). */
  judge?: Judge;
  /** Audio mode's speech providers and sandbox line (audio.ts); without them, or without speech-to-text, audio runs are refused. */
  audio?: AudioDeps;
  /**
   * The assistant's knowledge base for one run (src/calls/knowledge.ts `knowledgeOfAssistant`, owner-checked);
   * it may add the base to `settings.systemPrompt` (prompt mode). None (a suite file without a database): no base.
   */
  knowledge?: (assistant: TestAssistant, settings: SessionSettings, log: Logger) => Promise<CallKnowledge | null>;
}

export interface RunOptions {
  /** Runs at once (default 4; the API passes the account's parallel-call limit). */
  concurrency?: number;
  /** Told each finished run, as it finishes. */
  onRun?: (run: RunResult) => void;
  /** Stops starting runs (those running finish). */
  signal?: AbortSignal;
}

export interface TranscriptLine {
  role: 'assistant' | 'caller' | 'note';
  text: string;
}

export type RunStatus = 'passed' | 'failed' | 'error';

export interface RunResult {
  /** The scenario's index in the list run, and the repeat (0-based). */
  scenario: number;
  repeat: number;
  status: RunStatus;
  /** How the call ended (completed, ended_by_customer, …); null when it could not run. */
  endStatus: string | null;
  transcript: TranscriptLine[];
  toolRequests: ToolRequest[];
  turns: TurnTiming[];
  assertions: AssertionResult[];
  /** The post-call extraction ({} when the assistant extracts nothing). */
  variables: Record<string, unknown>;
  /** Why the run could not run (status `error`). */
  error: string | null;
  durationMs: number;
}

export interface ScenarioResult {
  index: number;
  name: string;
  file: string;
  line: number;
  status: RunStatus;
  runs: RunResult[];
  passedRuns: number;
  /** Share of runs that passed, and the share the scenario asks for. */
  passRate: number;
  requiredPassRate: number;
  /** One sentence: why it failed (the first failing assertion of the first failing run), or how it passed. */
  summary: string;
}

export interface SuiteResult {
  status: RunStatus;
  assistant: { id: number | null; name: string; version: number | null };
  scenarios: ScenarioResult[];
  total: number;
  passed: number;
  failed: number;
  errored: number;
  durationMs: number;
}

const DEFAULT_RUN_TIMEOUT_MS = 120_000;

/** Turns the transcript's lines into who said what (`AI: …`, `Customer: …`, notes). */
export function transcriptLines(transcript: string): TranscriptLine[] {
  return transcript
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (l.startsWith('AI: ') ? { role: 'assistant', text: l.slice(4) } : l.startsWith('Customer: ') ? { role: 'caller', text: l.slice(10) } : { role: 'note', text: l }));
}

/** Reports the end of each turn to the caller (the assistant's turn is over: the caller's move). */
class TurnWatcher implements TurnRecorder {
  readonly turns: TurnRecord[] = [];
  onTurn: () => void = () => undefined;
  record(turn: TurnRecord): void {
    this.turns.push(turn);
    setImmediate(() => this.onTurn());
  }
  flush(): Promise<void> {
    return Promise.resolve();
  }
}

/** Every function the model called, in order, with what the executors recorded (mocked, status, time). */
function orderedRequests(messages: readonly ChatMessage[], recorded: ToolRequest[]): ToolRequest[] {
  const queue = new Map<string, ToolRequest[]>();
  for (const r of recorded) queue.set(r.name, [...(queue.get(r.name) ?? []), r]);
  const answers = new Map<string, string>();
  for (const m of messages) if (m.role === 'tool') answers.set(m.tool_call_id, m.content);
  const out: ToolRequest[] = [];
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const call of m.tool_calls ?? []) {
      const mine = queue.get(call.function.name)?.shift();
      if (mine) {
        out.push(mine);
        continue;
      }
      // Answered by the session itself (end-call, an unknown function, a round cut short).
      const answer = answers.get(call.id);
      let response: unknown = answer ?? null;
      try {
        response = answer === undefined ? null : JSON.parse(answer);
      } catch {
        /* keep the text */
      }
      const ok = !(response && typeof response === 'object' && 'error' in response);
      out.push({ name: call.function.name, builtin: builtinTypeOf(call.function.name), arguments: parseArguments(call.function.arguments), mocked: false, ok, status: null, response, durationMs: 0 });
    }
  }
  // Anything recorded that the history no longer shows (a call ended mid-round) still counts.
  for (const rest of queue.values()) out.push(...rest);
  return out;
}

function timingOf(turn: TurnRecord): TurnTiming {
  return { position: turn.position, kind: turn.kind, callerText: turn.callerText, assistantText: turn.assistantText, latencyMs: turn.timings.firstAudio };
}

function errorRun(scenario: number, repeat: number, error: string, started: number): RunResult {
  return { scenario, repeat, status: 'error', endStatus: null, transcript: [], toolRequests: [], turns: [], assertions: [], variables: {}, error, durationMs: Math.round(performance.now() - started) };
}

/** One run of one scenario: the call, its post-call extraction, its assertions. */
export async function runOnce(scenario: Scenario, assistant: TestAssistant, deps: RunnerDeps, index = 0, repeat = 0): Promise<RunResult> {
  const started = performance.now();
  const audioRefused = scenario.mode === 'audio' ? audioRefusal(deps.audio) : null;
  if (audioRefused) return errorRun(index, repeat, audioRefused, started);
  const refused = validateAgainstAssistant(scenario, { tools: assistant.tools, builtinTools: assistant.builtin_tools, postCallSchema: assistant.post_call_schema, postCallEvaluation: assistant.post_call_evaluation });
  if (refused.length > 0) return errorRun(index, repeat, refused.map((e) => `line ${e.line}: ${e.message}`).join('; '), started);

  const clock = deps.clock ?? systemClock;
  const log = deps.log.child({ test: scenario.name, repeat });
  const settings = sessionSettingsOf({ ...assistant, call_variables: scenario.variables });
  const abort = new AbortController();
  const requests: ToolRequest[] = [];
  // Text mode: an in-process text leg. Audio mode: the sandbox's driven line and the assistant's voice pipeline.
  let leg: CarrierLeg;
  let side: CallerSide;
  let voice: VoiceCallFactory | undefined;
  const textLeg = scenario.mode === 'audio' ? null : new TestLeg();
  if (textLeg) {
    leg = side = textLeg;
  } else {
    const audio = deps.audio!;
    const line = audio.line();
    voice = await testVoiceFactory(assistant, audio, log, clock);
    if (!voice) return errorRun(index, repeat, "audio mode: the assistant's voice has no text-to-speech provider here", started);
    leg = line;
    side = new AudioCallerSide(line, audio.providers);
  }
  // Before the session: prompt mode puts the base into the system prompt.
  const knowledge = deps.knowledge ? await deps.knowledge(assistant, settings, log) : null;
  const watcher = new TurnWatcher();
  const toolbox = new TestToolbox(
    assistant.builtin_tools,
    { leg, clock, log, allowPrivate: false, unseal: deps.unseal ?? (() => ''), timezone: assistant.timezone },
    scenario.mocks,
    requests,
    abort.signal,
  );
  const caller = callerFor(scenario.caller, side, deps.llm, settings.model, abort.signal);
  let callerError: string | null = null;
  let acting = false;
  const act = (move: () => Promise<void> | void) => {
    if (side.over || acting) return;
    acting = true;
    void (async () => {
      try {
        await move();
      } catch (err) {
        if (!side.over) {
          callerError = `the simulated caller's LLM failed: ${(err as Error).message}`;
          side.callerHangsUp();
        }
      } finally {
        acting = false;
      }
    })();
  };
  if (textLeg) textLeg.onAssistantLine = (text) => caller.heard(text);
  watcher.onTurn = () => {
    // On the audio line the caller heard the turn's words (what the pipeline said and played).
    const said = watcher.turns.at(-1)?.assistantText ?? '';
    if (!textLeg && said !== '') caller.heard(said);
    act(() => caller.yourTurn());
  };
  toolbox.onKeysWanted = () => caller.keysWanted();

  const session = new CallSession(
    settings,
    { leg, llm: deps.llm, tools: new MockTools(scenario.mocks, requests, abort.signal), clock, log, turns: new TurnTracker(watcher, clock), builtins: toolbox, knowledge, ...(voice ? { voice } : {}) },
    { onAnswered: () => (settings.waitForCustomer ? act(() => caller.yourTurn()) : undefined) },
  );
  const limitMs = Math.min(deps.runTimeoutMs ?? DEFAULT_RUN_TIMEOUT_MS, assistant.max_duration * 1000 + 5_000);
  const limit = setTimeout(() => session.stop(`the test run took longer than ${Math.round(limitMs / 1000)} s`), limitMs);
  let result;
  try {
    result = await session.run();
  } finally {
    clearTimeout(limit);
    abort.abort();
  }
  if (callerError) return { ...errorRun(index, repeat, callerError, started), endStatus: result.status, transcript: transcriptLines(result.transcript) };

  const extracts = assistant.post_call_schema.length > 0 || assistant.post_call_evaluation;
  const post = extracts
    ? await runPostCall({
        callId: 0,
        postCallSchema: assistant.post_call_schema,
        postCallEvaluation: assistant.post_call_evaluation,
        record: false,
        model: settings.model,
        temperature: settings.temperature,
        variables: settings.variables,
        result,
        llm: deps.llm,
        rates: { carrierPerMinute: 0, platformPerMinute: 0 },
        log,
      })
    : null;
  const facts: RunFacts = {
    status: result.status,
    transcript: result.transcript,
    toolRequests: orderedRequests(result.messages, requests),
    turns: watcher.turns.map(timingOf),
    variables: post ? post.evaluation : null,
  };
  const judge = deps.judge ?? llmJudge(deps.llm, settings.model);
  const assertions: AssertionResult[] = [];
  for (const e of scenario.expect) assertions.push(await checkExpectation(e, facts, judge));
  return {
    scenario: index,
    repeat,
    status: assertions.some((a) => a.outcome === 'failed') ? 'failed' : 'passed',
    endStatus: result.status,
    transcript: transcriptLines(result.transcript),
    toolRequests: facts.toolRequests,
    turns: facts.turns,
    assertions,
    variables: facts.variables ?? {},
    error: null,
    durationMs: Math.round(performance.now() - started),
  };
}

/** A scenario's runs summed up against its pass_rate. */
export function scenarioResult(scenario: Scenario, index: number, runs: RunResult[]): ScenarioResult {
  const passedRuns = runs.filter((r) => r.status === 'passed').length;
  const passRate = runs.length === 0 ? 0 : passedRuns / runs.length;
  const errored = runs.find((r) => r.status === 'error');
  // Half a percent of tolerance: 2 of 3 runs meet a pass_rate written as 0.67.
  const met = passRate >= scenario.pass_rate - 0.005;
  const status: RunStatus = errored && passedRuns === 0 ? 'error' : met ? 'passed' : 'failed';
  const firstFailure = runs.flatMap((r) => r.assertions.filter((a) => a.outcome === 'failed').map((a) => ({ r, a })))[0];
  const rate = `${passedRuns} of ${runs.length} run(s) passed (pass_rate ${scenario.pass_rate})`;
  const summary =
    status === 'error'
      ? errored!.error!
      : status === 'passed'
        ? rate
        : `${rate}; ${firstFailure ? `line ${firstFailure.a.line}: ${firstFailure.a.message}` : (errored?.error ?? 'no run passed')}`;
  return { index, name: scenario.name, file: scenario.file, line: scenario.line, status, runs, passedRuns, passRate, requiredPassRate: scenario.pass_rate, summary };
}

/** Runs every scenario `repeat` times, `concurrency` runs at once, and sums the results up. */
export async function runScenarios(scenarios: readonly Scenario[], assistant: TestAssistant, deps: RunnerDeps, options: RunOptions = {}): Promise<SuiteResult> {
  const started = performance.now();
  const tasks = scenarios.flatMap((s, index) => Array.from({ length: s.repeat }, (_, repeat) => ({ s, index, repeat })));
  const runs: RunResult[][] = scenarios.map(() => []);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length && !options.signal?.aborted) {
      const { s, index, repeat } = tasks[next++]!;
      let run: RunResult;
      try {
        run = await runOnce(s, assistant, deps, index, repeat);
      } catch (err) {
        deps.log.error({ err, test: s.name }, 'a test run failed unexpectedly');
        run = errorRun(index, repeat, `the run failed: ${(err as Error).message}`, performance.now());
      }
      runs[index]!.push(run);
      options.onRun?.(run);
    }
  };
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 4, tasks.length || 1));
  await Promise.all(Array.from({ length: concurrency }, worker));
  const results = scenarios.map((s, i) => scenarioResult(s, i, runs[i]!.sort((a, b) => a.repeat - b.repeat)));
  const count = (status: RunStatus) => results.filter((r) => r.status === status).length;
  const [passed, failed, errored] = [count('passed'), count('failed'), count('error')];
  return {
    status: errored > 0 ? 'error' : failed > 0 ? 'failed' : 'passed',
    assistant: { id: assistant.id, name: assistant.name, version: assistant.version },
    scenarios: results,
    total: results.length,
    passed,
    failed,
    errored,
    durationMs: Math.round(performance.now() - started),
  };
}
