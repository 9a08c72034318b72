/**
 * Mid-call tools: the tool's `schema` becomes an LLM function's JSON-schema parameters; a
 * call of that function becomes a real HTTP request to the tool's endpoint with the tool's
 * method (arguments as the query string for GET/DELETE, a JSON body otherwise), headers and
 * timeout. The (size-capped) answer, or the error, is what the LLM reads next. Requests go
 * through the outbound guard (src/lib/outbound.ts): private targets only with
 * ALLOW_PRIVATE_TARGETS, link-local/metadata never.
 */
import type { Logger } from 'pino';
import type { ToolHeader, ToolParam } from '../db/schema.js';
import { BlockedTargetError, OutboundTimeoutError, outboundRequest } from '../lib/outbound.js';
import type { ToolSpec } from '../providers/llm/types.js';
import type { CallTools, ToolOutcome } from '../voice/ports.js';

export interface MidCallTool {
  id: number;
  name: string;
  description: string;
  endpoint: string;
  method: string;
  /** Seconds. */
  timeout: number;
  headers: ToolHeader[];
  schema: ToolParam[];
}

/** What a run came to: the voice pipeline's port type (src/voice/ports.ts). */
export type { ToolOutcome };

/** Response bytes of a tool answer passed on to the LLM. */
export const TOOL_RESPONSE_LIMIT = 16 * 1024;

export function toolFunction(tool: MidCallTool): ToolSpec {
  const properties: Record<string, unknown> = {};
  for (const p of tool.schema) properties[p.name] = { type: p.type, description: p.description };
  return {
    name: tool.name,
    description: tool.description,
    parameters: { type: 'object', properties, required: tool.schema.map((p) => p.name), additionalProperties: false },
  };
}

function parseArguments(text: string, tool: MidCallTool): Record<string, unknown> {
  const trimmed = text.trim();
  const value: unknown = trimmed === '' ? {} : JSON.parse(trimmed);
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new SyntaxError('arguments must be a JSON object');
  const args = value as Record<string, unknown>;
  if (tool.schema.length === 0) return args;
  const out: Record<string, unknown> = {};
  for (const p of tool.schema) if (p.name in args) out[p.name] = args[p.name];
  return out;
}

function asQueryValue(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/**
 * Mid-call tools as the voice pipeline's port (src/voice/ports.ts): looked up by name when
 * the model calls one, so a map changed in place (another assistant's tools) is seen at once.
 */
export function callTools(
  tools: ReadonlyMap<string, MidCallTool> | readonly MidCallTool[],
  executor: { run(tool: MidCallTool, argumentsJson: string, log?: Logger): Promise<ToolOutcome> },
  log?: Logger,
): CallTools {
  const byName = Array.isArray(tools) ? new Map(tools.map((t) => [t.name, t])) : (tools as ReadonlyMap<string, MidCallTool>);
  return {
    has: (name) => byName.has(name),
    run: (name, argumentsJson) => executor.run(byName.get(name)!, argumentsJson, log),
  };
}

export class ToolRunner {
  constructor(private readonly opts: { allowPrivate: boolean; log: Logger; maxResponseBytes?: number }) {}

  async run(tool: MidCallTool, argumentsJson: string, log: Logger = this.opts.log): Promise<ToolOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let args: Record<string, unknown>;
    try {
      args = parseArguments(argumentsJson, tool);
    } catch (err) {
      return this.failure(log, tool, `invalid arguments: ${(err as Error).message}`, elapsed());
    }
    const method = tool.method.toUpperCase();
    let url: URL;
    try {
      url = new URL(tool.endpoint);
    } catch {
      return this.failure(log, tool, 'the tool endpoint is not a valid URL', elapsed());
    }
    const headers: Record<string, string> = {};
    for (const h of tool.headers) headers[h.name] = h.value;
    let body: string | undefined;
    if (method === 'GET' || method === 'DELETE') {
      for (const [k, v] of Object.entries(args)) url.searchParams.set(k, asQueryValue(v));
    } else {
      body = JSON.stringify(args);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'accept')) headers.accept = 'application/json';
    try {
      const res = await outboundRequest({
        url: url.toString(),
        method,
        headers,
        body,
        timeoutMs: tool.timeout * 1000,
        maxResponseBytes: this.opts.maxResponseBytes ?? TOOL_RESPONSE_LIMIT,
        allowPrivate: this.opts.allowPrivate,
      });
      let parsed: unknown = res.body;
      try {
        parsed = res.body === '' ? null : JSON.parse(res.body);
      } catch {
        /* keep the text */
      }
      const ok = res.status >= 200 && res.status < 300;
      log.info({ tool: tool.name, status: res.status, durationMs: res.durationMs }, 'mid-call tool answered');
      return {
        ok,
        status: res.status,
        content: JSON.stringify({ status: res.status, body: parsed, ...(res.truncated ? { truncated: true } : {}) }),
        durationMs: res.durationMs,
      };
    } catch (err) {
      const message =
        err instanceof OutboundTimeoutError
          ? `the tool did not answer within ${tool.timeout} seconds`
          : err instanceof BlockedTargetError
            ? `the tool endpoint is not allowed (${err.message})`
            : `the request failed: ${(err as Error).message}`;
      return this.failure(log, tool, message, elapsed());
    }
  }

  private failure(log: Logger, tool: MidCallTool, error: string, durationMs: number): ToolOutcome {
    log.warn({ tool: tool.name, error }, 'mid-call tool failed');
    return { ok: false, error, content: JSON.stringify({ error }), durationMs };
  }
}
