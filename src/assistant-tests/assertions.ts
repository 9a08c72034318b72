/**
 * A run's facts checked against a scenario's expectations. Each result names its outcome
 * (`passed`, `failed`, or `skipped` — a judge with no LLM to ask — never counted as passed),
 * the expected and the actual value, and a sentence saying both.
 *
 * Values compare leniently where a model's wording varies: a text equals another ignoring case
 * and surrounding space, a number equals its decimal text, an object matches when it holds
 * every expected field (a subset), a list when each item matches in order.
 */
import type { LlmProvider } from '../providers/llm/types.js';
import { BUILTIN_FUNCTIONS } from './builtins.js';
import type { ToolRequest } from './mocks.js';
import { compilePattern, type Expectation } from './scenario.js';

export type Outcome = 'passed' | 'failed' | 'skipped';

export interface AssertionResult {
  kind: Expectation['kind'];
  line: number;
  outcome: Outcome;
  expected: unknown;
  actual: unknown;
  message: string;
}

export interface TurnTiming {
  position: number;
  kind: string;
  callerText: string | null;
  assistantText: string;
  /** Milliseconds from the caller's line (or the turn's start) to the assistant's first line; null when it said nothing. */
  latencyMs: number | null;
}

/** What a finished run shows, as the assertions read it. */
export interface RunFacts {
  status: string;
  transcript: string;
  toolRequests: ToolRequest[];
  turns: TurnTiming[];
  /** The post-call extraction (null: the assistant extracts nothing). */
  variables: Record<string, unknown> | null;
}

/** Decides a `judge` criterion; null when there is no LLM to ask. */
export type Judge = (criterion: string, facts: RunFacts) => Promise<{ passed: boolean; reason: string } | null>;

const show = (v: unknown) => JSON.stringify(v);

/** Whether `actual` matches `expected` (see the header for the rules). */
export function matches(expected: unknown, actual: unknown): boolean {
  if (expected === null || expected === undefined) return actual === null || actual === undefined;
  if (typeof expected === 'string') {
    if (typeof actual !== 'string' && typeof actual !== 'number' && typeof actual !== 'boolean') return false;
    return String(actual).trim().toLowerCase() === expected.trim().toLowerCase();
  }
  if (typeof expected === 'number') {
    const n = typeof actual === 'number' ? actual : typeof actual === 'string' && actual.trim() !== '' ? Number(actual) : NaN;
    return n === expected;
  }
  if (typeof expected === 'boolean') return actual === expected || actual === String(expected);
  if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => matches(e, actual[i]));
  if (typeof expected === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual)) return false;
    return Object.entries(expected as Record<string, unknown>).every(([k, v]) => matches(v, (actual as Record<string, unknown>)[k]));
  }
  return false;
}

/** Nearest-rank percentile of `values` (0 < p ≤ 100). */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function callsText(calls: readonly ToolRequest[]): string {
  return calls.length === 0 ? 'no tool was called' : `the calls were ${calls.map((c) => `${c.name}(${show(c.arguments)})`).join(', ')}`;
}

export async function checkExpectation(e: Expectation, facts: RunFacts, judge: Judge): Promise<AssertionResult> {
  const result = (outcome: Outcome, expected: unknown, actual: unknown, message: string): AssertionResult => ({ kind: e.kind, line: e.line, outcome, expected, actual, message });
  const verdict = (ok: boolean) => (ok ? 'passed' : 'failed');
  switch (e.kind) {
    case 'tool_called': {
      const calls = facts.toolRequests.filter((r) => r.builtin === null && r.name === e.name);
      const expected = e.arguments ? { name: e.name, arguments: e.arguments } : { name: e.name };
      const actual = calls.map((c) => c.arguments);
      if (calls.length === 0) return result('failed', expected, actual, `expected ${e.name} to be called${e.arguments ? ` with ${show(e.arguments)}` : ''}; it was not called (${callsText(facts.toolRequests)})`);
      if (!e.arguments) return result('passed', expected, actual, `${e.name} was called ${calls.length} time(s)`);
      const hit = calls.find((c) => matches(e.arguments, c.arguments));
      if (hit) return result('passed', expected, actual, `${e.name} was called with ${show(hit.arguments)}`);
      return result('failed', expected, actual, `expected ${e.name} to be called with ${show(e.arguments)}; it was called with ${actual.map(show).join(', ')}`);
    }
    case 'tool_not_called': {
      const calls = facts.toolRequests.filter((r) => r.builtin === null && r.name === e.name);
      const actual = calls.map((c) => c.arguments);
      if (calls.length === 0) return result('passed', { name: e.name, calls: 0 }, actual, `${e.name} was not called`);
      return result('failed', { name: e.name, calls: 0 }, actual, `expected ${e.name} not to be called; it was called ${calls.length} time(s), with ${actual.map(show).join(', ')}`);
    }
    case 'builtin_called': {
      const calls = facts.toolRequests.filter((r) => r.builtin === e.type);
      const expected = e.arguments ? { type: e.type, arguments: e.arguments } : { type: e.type };
      const actual = calls.map((c) => ({ name: c.name, arguments: c.arguments }));
      const names = BUILTIN_FUNCTIONS[e.type].join(' or ');
      if (calls.length === 0) return result('failed', expected, actual, `expected the built-in ${e.type} (${names}) to be called; it was not (${callsText(facts.toolRequests)})`);
      const hit = e.arguments ? calls.find((c) => matches(e.arguments, c.arguments)) : calls[0];
      if (hit) return result('passed', expected, actual, `the built-in ${e.type} was called (${hit.name}${e.arguments ? ` with ${show(hit.arguments)}` : ''})`);
      return result('failed', expected, actual, `expected the built-in ${e.type} to be called with ${show(e.arguments)}; it was called with ${calls.map((c) => show(c.arguments)).join(', ')}`);
    }
    case 'status':
      return result(verdict(facts.status === e.status), e.status, facts.status, facts.status === e.status ? `the call ended ${facts.status}` : `expected the call to end ${e.status}; it ended ${facts.status}`);
    case 'variables': {
      if (facts.variables === null) return result('failed', e.values, null, 'expected post-call variables; the assistant extracts none');
      const actual = Object.fromEntries(Object.keys(e.values).map((k) => [k, facts.variables![k] ?? null]));
      const wrong = Object.entries(e.values).filter(([k, v]) => !matches(v, facts.variables![k]));
      if (wrong.length === 0) return result('passed', e.values, actual, `post-call variables ${show(actual)}`);
      return result('failed', e.values, actual, wrong.map(([k, v]) => `expected ${k} = ${show(v)}; extracted ${show(facts.variables![k] ?? null)}`).join('; '));
    }
    case 'transcript_contains':
    case 'transcript_absent': {
      const { regex, literal } = compilePattern(e.pattern);
      const what = literal ? show(e.pattern) : e.pattern;
      const line = facts.transcript.split('\n').find((l) => regex.test(l)) ?? null;
      const found = line === null ? null : (regex.exec(line)?.[0] ?? line);
      if (e.kind === 'transcript_contains') {
        return line !== null
          ? result('passed', e.pattern, found, `the transcript contains ${what} ("${line}")`)
          : result('failed', e.pattern, null, `expected the transcript to contain ${what}; no line does`);
      }
      return line === null
        ? result('passed', e.pattern, null, `the transcript does not contain ${what}`)
        : result('failed', e.pattern, found, `expected the transcript not to contain ${what}; found ${show(found)} in "${line}"`);
    }
    case 'max_turns': {
      const n = facts.turns.length;
      return result(verdict(n <= e.turns), e.turns, n, n <= e.turns ? `the call took ${n} turn(s) (at most ${e.turns})` : `expected at most ${e.turns} turn(s); the call took ${n}`);
    }
    case 'turn_latency_ms': {
      const replies = facts.turns.filter((t) => t.kind === 'reply' && t.latencyMs !== null).map((t) => t.latencyMs!);
      const expected = { ...(e.p50 !== undefined ? { p50: e.p50 } : {}), ...(e.p95 !== undefined ? { p95: e.p95 } : {}) };
      if (replies.length === 0) return result('failed', expected, null, 'expected reply latencies; the assistant answered no caller turn');
      const actual = { ...(e.p50 !== undefined ? { p50: percentile(replies, 50) } : {}), ...(e.p95 !== undefined ? { p95: percentile(replies, 95) } : {}), replies: replies.length };
      const over = (['p50', 'p95'] as const).filter((p) => e[p] !== undefined && actual[p]! > e[p]!);
      if (over.length === 0) return result('passed', expected, actual, `reply latency ${(['p50', 'p95'] as const).filter((p) => e[p] !== undefined).map((p) => `${p} ${actual[p]} ms`).join(', ')} over ${replies.length} turn(s)`);
      return result('failed', expected, actual, over.map((p) => `expected ${p} ≤ ${e[p]} ms; it was ${actual[p]} ms`).join('; ') + ` (${replies.length} reply turn(s))`);
    }
    case 'judge': {
      let decided: Awaited<ReturnType<Judge>>;
      try {
        decided = await judge(e.criterion, facts);
      } catch (err) {
        return result('failed', e.criterion, null, `the judge could not decide: ${(err as Error).message}`);
      }
      if (!decided) return result('skipped', e.criterion, null, 'skipped: no LLM is configured to judge (set LLM_BASE_URL)');
      return result(verdict(decided.passed), e.criterion, { passed: decided.passed, reason: decided.reason }, decided.reason);
    }
  }
}

/** A judge on `llm` (`model`): null when the LLM is the offline stand-in, which understands nothing. */
export function llmJudge(llm: LlmProvider, model: string): Judge {
  return async (criterion, facts) => {
    if (llm.standIn) return null;
    const tools = facts.toolRequests.map((r) => `- ${r.name}(${show(r.arguments)}) → ${show(r.response)}`);
    const answer = await llm.extract({
      model,
      temperature: 0,
      signal: AbortSignal.timeout(30_000),
      schema: {
        type: 'object',
        properties: {
          passed: { type: 'boolean', description: 'Whether the call meets the criterion.' },
          reason: { type: 'string', description: 'One sentence saying why, citing what was said or done.' },
        },
        required: ['passed', 'reason'],
        additionalProperties: false,
      },
      messages: [
        {
          role: 'system',
          content: 'You review a finished phone call between an AI assistant and a caller against one criterion. Decide strictly from the transcript and the tool calls; answer passed (true or false) and a one-sentence reason.',
        },
        { role: 'user', content: `Criterion: ${criterion}\n\nTranscript:\n${facts.transcript || '(empty)'}\n\nTool calls:\n${tools.join('\n') || '(none)'}\n\nThe call ended with status ${facts.status}.` },
      ],
    });
    if (typeof answer.passed !== 'boolean') throw new Error('the judge answered without a verdict');
    const reason = typeof answer.reason === 'string' && answer.reason.trim() !== '' ? answer.reason.trim() : answer.passed ? 'The criterion is met.' : 'The criterion is not met.';
    return { passed: answer.passed, reason };
  };
}
