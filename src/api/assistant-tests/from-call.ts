/**
 * A finished call turned into a scripted scenario: the caller's lines as `say` steps (keys as
 * `keys`), the functions the model called as expectations (mid-call tools: `tool_called`,
 * answered by mocks so a replay never reaches the real endpoint; built-ins: `builtin_called`),
 * and the status the call ended with.
 */
import { stringify } from 'yaml';
import { builtinTypeOf } from '../../assistant-tests/builtins.js';
import { isLive } from '../../calls/state-machine.js';

const KEYPAD = /^\[keypad: ([0-9*#A-Da-d]+)\]$/;

export interface CallForScenario {
  id: number;
  status: string;
  transcript: string;
  toolCalls: { name: string; arguments: unknown }[];
}

export function callIsFinished(status: string): boolean {
  return !isLive(status);
}

/** The caller's side of a transcript, in order: what they said, and the keys they pressed. */
export function callerSteps(transcript: string): ({ say: string } | { keys: string })[] {
  const steps: ({ say: string } | { keys: string })[] = [];
  for (const line of transcript.split('\n')) {
    const m = /^Customer: (.*)$/.exec(line.trim());
    if (!m) continue;
    const text = m[1]!.trim();
    if (text === '') continue;
    const keys = KEYPAD.exec(text);
    steps.push(keys ? { keys: keys[1]! } : { say: text });
  }
  return steps;
}

/** The scenario document (YAML) of a finished call; `midCallTools`: the names of the assistant's mid-call tools. */
export function scenarioFromCall(call: CallForScenario, name: string, midCallTools: ReadonlySet<string>): string {
  const script = callerSteps(call.transcript);
  const expect: Record<string, unknown>[] = [];
  const mocks: Record<string, unknown> = {};
  const seenTools = new Set<string>();
  const seenBuiltins = new Set<string>();
  for (const c of call.toolCalls) {
    if (midCallTools.has(c.name)) {
      if (seenTools.has(c.name)) continue;
      seenTools.add(c.name);
      expect.push({ tool_called: { name: c.name } });
      mocks[c.name] = { status: 200, body: { ok: true } };
      continue;
    }
    const type = builtinTypeOf(c.name);
    if (type && type !== 'end_call' && !seenBuiltins.has(type)) {
      seenBuiltins.add(type);
      expect.push({ builtin_called: { type } });
    }
  }
  expect.push({ status: call.status });
  const doc: Record<string, unknown> = { name, mode: 'text', caller: { script: script.length > 0 ? script : [{ say: 'Hello?' }] } };
  if (Object.keys(mocks).length > 0) doc.mocks = mocks;
  doc.expect = expect;
  const header = `# Made from call ${call.id}: the caller's lines, the tools the assistant called, the status it ended with.\n` +
    (Object.keys(mocks).length > 0 ? '# Mocks answer the tools in place of their endpoints: put in what the endpoint answers.\n' : '');
  return header + stringify(doc, { lineWidth: 0 });
}
