/**
 * Tools in a test call are answered by the scenario's mocks, never by their real endpoints:
 * `MockTools` is the session's ToolExecutor for mid-call tools (a tool without a mock gets an
 * error answer, not a request), `TestToolbox` runs the assistant's built-ins on the test line
 * (transfers are simulated there, keys recorded) and answers the ones that would reach a
 * vendor (the calendar) from mocks too. Every request is kept, with its arguments.
 */
import { BuiltinToolbox, type BuiltinContext, type BuiltinResult } from '../calls/builtin-tools/index.js';
import type { MidCallTool, ToolOutcome } from '../calls/tool-runner.js';
import type { ToolExecutor } from '../calls/session-types.js';
import type { StoredBuiltinTool } from '../db/schema.js';
import { builtinTypeOf, type BuiltinType } from './builtins.js';
import type { Mock } from './scenario.js';

export interface ToolRequest {
  /** The function the model called (a mid-call tool's name, or a built-in's, e.g. `transfer-call`). */
  name: string;
  /** The built-in type behind it, null for a mid-call tool. */
  builtin: BuiltinType | null;
  /** The arguments as the model sent them (an object; the raw text when it was not JSON). */
  arguments: Record<string, unknown> | string;
  /** Answered by the scenario's mock. */
  mocked: boolean;
  ok: boolean;
  status: number | null;
  /** What the model read back. */
  response: unknown;
  durationMs: number;
}

export const NOT_MOCKED = 'not answered: the scenario has no mock for this tool, and a test never calls its real endpoint';
/** Built-ins that would reach a vendor or another line: answered only by a mock in a test. */
const VENDOR_BUILTINS = new Set<BuiltinType>(['calendar_integration']);

export function parseArguments(text: string): Record<string, unknown> | string {
  try {
    const value: unknown = text.trim() === '' ? {} : JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : text;
  } catch {
    return text;
  }
}

function parseContent(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/** A mock's answer as the tool runner would give the model a real one: `{status, body}`. */
async function mockOutcome(mock: Mock, signal: AbortSignal): Promise<ToolOutcome> {
  const started = performance.now();
  await sleep(mock.delay_ms, signal);
  const ok = mock.status >= 200 && mock.status < 300;
  return { ok, status: mock.status, content: JSON.stringify({ status: mock.status, body: mock.body }), durationMs: Math.round(performance.now() - started) };
}

export class MockTools implements ToolExecutor {
  constructor(
    private readonly mocks: Record<string, Mock>,
    private readonly requests: ToolRequest[],
    private readonly signal: AbortSignal,
  ) {}

  async run(tool: MidCallTool, argumentsJson: string): Promise<ToolOutcome> {
    const mock = this.mocks[tool.name];
    const outcome: ToolOutcome = mock
      ? await mockOutcome(mock, this.signal)
      : { ok: false, error: NOT_MOCKED, content: JSON.stringify({ error: NOT_MOCKED }), durationMs: 0 };
    this.requests.push({
      name: tool.name,
      builtin: null,
      arguments: parseArguments(argumentsJson),
      mocked: mock !== undefined,
      ok: outcome.ok,
      status: outcome.status ?? null,
      response: parseContent(outcome.content),
      durationMs: outcome.durationMs,
    });
    return outcome;
  }
}

export class TestToolbox extends BuiltinToolbox {
  /** Told when the assistant starts waiting for the caller's keys (collect_keypad). */
  onKeysWanted: () => void = () => undefined;

  constructor(
    items: readonly StoredBuiltinTool[],
    ctx: BuiltinContext,
    private readonly mocks: Record<string, Mock>,
    private readonly requests: ToolRequest[],
    private readonly signal: AbortSignal,
  ) {
    super(items, ctx);
  }

  override async run(name: string, argumentsJson: string): Promise<BuiltinResult> {
    const started = performance.now();
    const type = builtinTypeOf(name);
    const mock = this.mocks[name];
    let result: BuiltinResult;
    if (mock) {
      const outcome = await mockOutcome(mock, this.signal);
      result = { ok: outcome.ok, content: outcome.content };
    } else if (type && VENDOR_BUILTINS.has(type) && this.has(name)) {
      result = { ok: false, content: JSON.stringify({ error: NOT_MOCKED }) };
    } else {
      if (type === 'collect_keypad' && this.has(name)) queueMicrotask(() => this.onKeysWanted());
      result = await super.run(name, argumentsJson);
    }
    this.requests.push({
      name,
      builtin: type,
      arguments: parseArguments(argumentsJson),
      mocked: mock !== undefined,
      ok: result.ok,
      status: null,
      response: parseContent(result.content),
      durationMs: Math.round(performance.now() - started),
    });
    return result;
  }
}
