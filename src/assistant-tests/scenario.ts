/**
 * Test scenarios of an assistant: a YAML (or JSON) document as the user writes it, checked and
 * turned into `Scenario` values the runner takes. One file may hold one scenario (a mapping),
 * a list of them (a sequence), or several YAML documents (`---`).
 *
 *   name, mode (text|audio), variables, repeat, pass_rate,
 *   caller: {script: [{say}|{keys}]}  or  {persona, goal, facts?, max_turns?, model?},
 *   mocks: {tool: {status, body, delay_ms}},
 *   expect: [{tool_called}, {tool_not_called}, {builtin_called}, {status}, {variables},
 *            {transcript_contains}, {transcript_absent}, {max_turns}, {turn_latency_ms}, {judge}]
 *
 * Every refusal names the line it is about (1-based) and the reason: YAML syntax, unknown
 * keys, wrong types, a malformed /regex/. `validateAgainstAssistant` (assistant-checks.ts) adds
 * what needs the assistant: a mock or an expectation naming a tool it does not have.
 */
import { LineCounter, parseAllDocuments, isMap, isPair, isScalar, isSeq, type Document, type Node } from 'yaml';
import { z } from 'zod';
import { CALL_STATUSES } from '../calls/state-machine.js';
import { BUILTIN_TYPES, type BuiltinType } from './builtins.js';

export type Path = (string | number)[];

export interface ScenarioError {
  /** 1-based line in the file; 0 when the problem has no place in it (e.g. an empty file). */
  line: number;
  message: string;
}

const END_STATUSES = CALL_STATUSES.filter((s) => !['initiated', 'ringing', 'in-progress'].includes(s)) as [string, ...string[]];

// ---------------------------------------------------------------- the document's shape

const mockSchema = z.strictObject({
  status: z.int().min(100).max(599).default(200),
  body: z.unknown().default(null),
  delay_ms: z.int().min(0).max(60_000).default(0),
});

const stepSchema = z.union([
  z.strictObject({ say: z.string().trim().min(1, 'say needs the words the caller says') }),
  z.strictObject({ keys: z.string().regex(/^[0-9*#]{1,32}$/, 'keys must be 1 to 32 of 0-9, * and #') }),
]);

const callerSchema = z.strictObject({
  // An empty script: the caller hangs up at its first turn (right after the greeting).
  script: z.array(stepSchema).max(100).optional(),
  persona: z.string().trim().min(1).max(2000).optional(),
  goal: z.string().trim().min(1).max(2000).optional(),
  facts: z.record(z.string(), z.unknown()).optional(),
  max_turns: z.int().min(1).max(50).optional(),
  model: z.string().trim().min(1).max(200).optional(),
});

const scenarioSchema = z.strictObject({
  name: z.string().trim().min(1, 'name must not be empty').max(200),
  mode: z.enum(['text', 'audio']).default('text'),
  variables: z.record(z.string(), z.unknown()).default({}),
  repeat: z.int().min(1).max(100).default(1),
  pass_rate: z.number().min(0).max(1).default(1),
  caller: callerSchema,
  mocks: z.record(z.string().min(1), mockSchema).default({}),
  expect: z.array(z.unknown()).min(1, 'expect needs at least one assertion'),
});

const toolName = z.string().trim().min(1).max(100);
const argumentsSchema = z.record(z.string(), z.unknown());
const pattern = z.string().min(1, 'the text must not be empty').max(2000);

/** Each assertion kind: its value's schema and how it becomes an Expectation. */
const KINDS = {
  tool_called: z.union([toolName.transform((name) => ({ name })), z.strictObject({ name: toolName, arguments: argumentsSchema.optional() })]),
  tool_not_called: z.union([toolName.transform((name) => ({ name })), z.strictObject({ name: toolName })]),
  builtin_called: z.union([
    z.enum(BUILTIN_TYPES).transform((type) => ({ type })),
    z.strictObject({ type: z.enum(BUILTIN_TYPES), arguments: argumentsSchema.optional() }),
  ]),
  status: z.enum(END_STATUSES),
  variables: z.record(z.string(), z.unknown()).refine((v) => Object.keys(v).length > 0, 'variables needs at least one field'),
  transcript_contains: pattern,
  transcript_absent: pattern,
  max_turns: z.int().min(1).max(1000),
  turn_latency_ms: z
    .strictObject({ p50: z.number().positive().optional(), p95: z.number().positive().optional() })
    .refine((v) => v.p50 !== undefined || v.p95 !== undefined, 'turn_latency_ms needs p50 or p95'),
  judge: z.string().trim().min(1).max(2000),
} as const;

export type ExpectationKind = keyof typeof KINDS;
export const EXPECTATION_KINDS = Object.keys(KINDS) as ExpectationKind[];

export type Expectation = { line: number } & (
  | { kind: 'tool_called'; name: string; arguments?: Record<string, unknown> }
  | { kind: 'tool_not_called'; name: string }
  | { kind: 'builtin_called'; type: BuiltinType; arguments?: Record<string, unknown> }
  | { kind: 'status'; status: string }
  | { kind: 'variables'; values: Record<string, unknown> }
  | { kind: 'transcript_contains'; pattern: string }
  | { kind: 'transcript_absent'; pattern: string }
  | { kind: 'max_turns'; turns: number }
  | { kind: 'turn_latency_ms'; p50?: number; p95?: number }
  | { kind: 'judge'; criterion: string }
);

export type ScriptStep = { say: string } | { keys: string };

export type Caller =
  | { kind: 'script'; script: ScriptStep[] }
  | { kind: 'simulated'; persona: string; goal: string; facts: Record<string, unknown>; maxTurns: number; model: string | null };

export interface Mock {
  status: number;
  body: unknown;
  delay_ms: number;
}

export interface Scenario {
  name: string;
  mode: 'text' | 'audio';
  variables: Record<string, unknown>;
  repeat: number;
  pass_rate: number;
  caller: Caller;
  mocks: Record<string, Mock>;
  expect: Expectation[];
  /** Where it was written: the file and the line of its first key (0 when not from a file). */
  file: string;
  line: number;
  /** Lines of each mock's key, by tool name (for errors found later). */
  mockLines: Record<string, number>;
  /** Line of the `mode` key (the scenario's line when it has none). */
  modeLine?: number;
}

export const DEFAULT_SIMULATED_TURNS = 10;

// ---------------------------------------------------------------- patterns

const REGEX = /^\/(.+)\/([a-z]*)$/s;

/** A `transcript_*` text as a matcher: `/source/flags` is a regular expression, anything else plain text (case-insensitive). */
export function compilePattern(text: string): { regex: RegExp; literal: boolean } {
  const m = REGEX.exec(text);
  if (!m) return { regex: new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i'), literal: true };
  // g and y make test() stateful; a search over one transcript needs neither.
  return { regex: new RegExp(m[1]!, m[2]!.replace(/[gy]/g, '')), literal: false };
}

function patternProblem(text: string): string | null {
  const m = REGEX.exec(text);
  if (!m) return null;
  if (/[^dgimsuvy]/.test(m[2]!)) return `malformed regex ${text}: unknown flag in "${m[2]}" (use d, g, i, m, s, u, v or y)`;
  try {
    new RegExp(m[1]!, m[2]!);
    return null;
  } catch (err) {
    return `malformed regex ${text}: ${(err as Error).message.replace(/^Invalid regular expression: /, '')}`;
  }
}

// ---------------------------------------------------------------- checking a plain value

export interface Issue {
  path: Path;
  message: string;
  /** Point at the key itself (an unknown key), not at its value. */
  atKey?: boolean;
}

export function zodIssues(error: z.ZodError, base: Path): Issue[] {
  const out: Issue[] = [];
  for (const issue of error.issues) {
    const path = [...base, ...(issue.path as Path)];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ path: [...path, key], message: `unknown key "${key}"`, atKey: true });
    } else if (issue.code === 'invalid_union') {
      // Report the branch that got furthest (most of the value matched), else a summary.
      const branches = (issue.errors ?? []).filter((b) => b.length > 0);
      const best = branches.sort((a, b) => depth(b) - depth(a))[0];
      if (best && depth(best) > 0) out.push(...zodIssues(new z.ZodError(best), path));
      else out.push({ path, message: `${describe(path)}: ${issue.message}` });
    } else {
      out.push({ path, message: `${describe(path)}: ${issue.message}` });
    }
  }
  return out;
}

function depth(issues: readonly z.core.$ZodIssue[]): number {
  return Math.max(...issues.map((i) => i.path.length + (i.code === 'unrecognized_keys' ? 1 : 0)));
}

function describe(path: Path): string {
  if (path.length === 0) return 'the scenario';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

type Parsed = { scenario: Omit<Scenario, 'file' | 'line' | 'mockLines' | 'modeLine'> & { expectPaths: Path[] } } | { issues: Issue[] };

/** Checks one scenario as a plain value (parsed YAML, or JSON from the API); `base` prefixes the paths. */
function checkValue(value: unknown, base: Path): Parsed {
  const top = scenarioSchema.safeParse(value);
  if (!top.success) return { issues: zodIssues(top.error, base) };
  const raw = top.data;
  const issues: Issue[] = [];

  let caller: Caller | null = null;
  const c = raw.caller;
  const simulatedKeys = (['persona', 'goal', 'facts', 'max_turns', 'model'] as const).filter((k) => c[k] !== undefined);
  if (c.script && simulatedKeys.length > 0) {
    issues.push({ path: [...base, 'caller', simulatedKeys[0]!], message: `caller has a script and ${simulatedKeys.join(', ')}: use either a script or a simulated caller (persona, goal)`, atKey: true });
  } else if (c.script) {
    caller = { kind: 'script', script: c.script };
  } else if (!c.persona || !c.goal) {
    issues.push({ path: [...base, 'caller'], message: 'caller needs a script, or persona and goal for a simulated caller' });
  } else {
    caller = { kind: 'simulated', persona: c.persona, goal: c.goal, facts: c.facts ?? {}, maxTurns: c.max_turns ?? DEFAULT_SIMULATED_TURNS, model: c.model ?? null };
  }

  const expect: Expectation[] = [];
  const expectPaths: Path[] = [];
  raw.expect.forEach((item, i) => {
    const path = [...base, 'expect', i];
    if (!item || typeof item !== 'object' || Array.isArray(item)) {
      issues.push({ path, message: `expect[${i}] must be one assertion such as {status: completed} (one of ${EXPECTATION_KINDS.join(', ')})` });
      return;
    }
    const keys = Object.keys(item);
    if (keys.length !== 1) {
      issues.push({ path, message: `expect[${i}] must hold exactly one assertion, not ${keys.length === 0 ? 'none' : keys.join(' and ')}` });
      return;
    }
    const kind = keys[0]! as ExpectationKind;
    if (!(kind in KINDS)) {
      issues.push({ path: [...path, kind], message: `unknown assertion "${kind}" (one of ${EXPECTATION_KINDS.join(', ')})`, atKey: true });
      return;
    }
    const parsed = KINDS[kind].safeParse((item as Record<string, unknown>)[kind]);
    if (!parsed.success) {
      issues.push(...zodIssues(parsed.error, [...path, kind]));
      return;
    }
    const e = toExpectation(kind, parsed.data);
    if (e.kind === 'transcript_contains' || e.kind === 'transcript_absent') {
      const problem = patternProblem(e.pattern);
      if (problem) {
        issues.push({ path: [...path, kind], message: problem });
        return;
      }
    }
    expect.push(e);
    expectPaths.push(path);
  });
  if (issues.length > 0 || !caller) return { issues };
  return { scenario: { name: raw.name, mode: raw.mode, variables: raw.variables, repeat: raw.repeat, pass_rate: raw.pass_rate, caller, mocks: raw.mocks as Record<string, Mock>, expect, expectPaths } };
}

function toExpectation(kind: ExpectationKind, v: unknown): Expectation {
  const line = 0;
  switch (kind) {
    case 'tool_called': {
      const x = v as { name: string; arguments?: Record<string, unknown> };
      return { line, kind, name: x.name, ...(x.arguments ? { arguments: x.arguments } : {}) };
    }
    case 'tool_not_called':
      return { line, kind, name: (v as { name: string }).name };
    case 'builtin_called': {
      const x = v as { type: BuiltinType; arguments?: Record<string, unknown> };
      return { line, kind, type: x.type, ...(x.arguments ? { arguments: x.arguments } : {}) };
    }
    case 'status':
      return { line, kind, status: v as string };
    case 'variables':
      return { line, kind, values: v as Record<string, unknown> };
    case 'transcript_contains':
    case 'transcript_absent':
      return { line, kind, pattern: v as string };
    case 'max_turns':
      return { line, kind, turns: v as number };
    case 'turn_latency_ms':
      return { line, kind, ...(v as { p50?: number; p95?: number }) };
    case 'judge':
      return { line, kind, criterion: v as string };
  }
}

// ---------------------------------------------------------------- lines

export class Lines {
  constructor(
    private readonly doc: Document,
    private readonly counter: LineCounter,
  ) {}

  lineOf(offset: number | undefined): number {
    return offset === undefined ? 0 : this.counter.linePos(offset).line;
  }

  /** The line of the node at `path` (of its key with `atKey`); the nearest existing parent's when it is missing. */
  at(path: Path, atKey = false): number {
    let node: unknown = this.doc.contents;
    let line = this.lineOf((node as Node | null)?.range?.[0]);
    for (let i = 0; i < path.length; i++) {
      const key = path[i]!;
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(key));
        if (!pair) return line;
        const last = i === path.length - 1;
        const keyLine = this.lineOf((pair.key as Node).range?.[0]);
        if (last && atKey) return keyLine;
        node = pair.value;
        line = (node as Node | null)?.range ? this.lineOf((node as Node).range![0]) : keyLine;
      } else if (isSeq(node) && typeof key === 'number') {
        node = node.items[key];
        if (!node) return line;
        line = this.lineOf((node as Node).range?.[0]);
      } else {
        return line;
      }
    }
    return line;
  }
}

// ---------------------------------------------------------------- documents

export type DocumentResult = { scenarios: Scenario[] } | { errors: ScenarioError[] };

/**
 * Parses a scenario file (YAML or JSON): every scenario in it, or every problem found with
 * its line. `fileName` is named in each scenario (`file`) for reports.
 */
export function parseScenarioDocument(text: string, fileName: string): DocumentResult {
  const counter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  const errors: ScenarioError[] = [];
  const scenarios: Scenario[] = [];
  const list = Array.isArray(docs) ? docs : [];
  for (const doc of list) {
    if (doc.errors.length > 0) {
      for (const e of doc.errors) errors.push({ line: counter.linePos(e.pos[0]).line, message: e.message.split('\n')[0]! });
      continue;
    }
    if (doc.contents === null) continue;
    const lines = new Lines(doc, counter);
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    const items: { value: unknown; path: Path }[] = Array.isArray(value) ? value.map((v, i) => ({ value: v, path: [i] })) : [{ value, path: [] }];
    for (const item of items) {
      if (!item.value || typeof item.value !== 'object' || Array.isArray(item.value)) {
        errors.push({ line: lines.at(item.path), message: 'a scenario must be a mapping with name, caller and expect' });
        continue;
      }
      const checked = checkValue(item.value, item.path);
      if ('issues' in checked) {
        for (const issue of checked.issues) errors.push({ line: lines.at(issue.path, issue.atKey), message: issue.message });
        continue;
      }
      const { expectPaths, ...s } = checked.scenario;
      s.expect.forEach((e, i) => (e.line = lines.at(expectPaths[i]!)));
      const mockLines = Object.fromEntries(Object.keys(s.mocks).map((name) => [name, lines.at([...item.path, 'mocks', name], true)]));
      const modeLine = 'mode' in (item.value as object) ? lines.at([...item.path, 'mode'], true) : lines.at(item.path);
      scenarios.push({ ...s, file: fileName, line: lines.at(item.path), mockLines, modeLine });
    }
  }
  if (errors.length === 0 && scenarios.length === 0) errors.push({ line: 0, message: 'the file holds no scenario' });
  if (errors.length > 0) return { errors: errors.sort((a, b) => a.line - b.line) };
  return { scenarios };
}

/** A scenario given as a plain value (a JSON request body): errors name the path instead of a line. */
export function parseScenarioValue(value: unknown, name = 'scenario'): { scenario: Scenario } | { errors: { path: string; message: string }[] } {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { errors: [{ path: '', message: 'a scenario must be an object with name, caller and expect' }] };
  const checked = checkValue(value, []);
  if ('issues' in checked) return { errors: checked.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) };
  const { expectPaths: _paths, ...s } = checked.scenario;
  return { scenario: { ...s, file: name, line: 0, mockLines: {} } };
}

/** Errors as one text per line, the way the command line prints them: `file:line: message`. */
export function formatErrors(fileName: string, errors: readonly ScenarioError[]): string {
  return errors.map((e) => `${fileName}:${e.line}: ${e.message}`).join('\n');
}
