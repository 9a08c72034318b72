/**
 * The offline stand-in for an LLM (CONTRACT §9), used when no LLM_BASE_URL is configured.
 * It understands nothing; it follows a fixed, deterministic plan so that a call runs end to
 * end: (the engine speaks the initial message,) then it calls each mid-call tool once with
 * arguments built from the tool's schema — the call's variable of the same name, else a
 * typed sample value — and finally closes the call with the end-call tool.
 */
import type { Completion, CompletionRequest, ExtractionRequest, JsonSchema, LlmProvider } from './types.js';

export const STAND_IN_NOTE = '[offline stand-in: no LLM configured]';
export const STAND_IN_GREETING = 'Hello, this is an automated assistant.';
export const STAND_IN_CLOSING = 'Thank you for your time. Goodbye!';

export class OfflineStandInLlm implements LlmProvider {
  readonly label = 'offline stand-in';
  readonly standIn = true;
  readonly transcriptNote = STAND_IN_NOTE;

  constructor(private readonly endCallTool: string) {}

  async complete(req: CompletionRequest): Promise<Completion> {
    const spoken = req.messages.some((m) => m.role === 'assistant' && typeof m.content === 'string' && m.content !== '');
    const called = new Set<string>();
    let callCount = 0;
    for (const m of req.messages) {
      if (m.role !== 'assistant') continue;
      for (const c of m.tool_calls ?? []) {
        called.add(c.function.name);
        callCount++;
      }
    }
    if (!spoken && callCount === 0) return this.say(req, STAND_IN_GREETING);
    const next = req.tools.find((t) => t.name !== this.endCallTool && !called.has(t.name));
    const variables = req.standInContext?.variables ?? {};
    if (next) {
      return { text: '', toolCalls: [{ id: `standin_${callCount + 1}`, name: next.name, arguments: JSON.stringify(argumentsFor(next.parameters, variables)) }] };
    }
    const canEnd = req.tools.some((t) => t.name === this.endCallTool);
    const done = this.say(req, STAND_IN_CLOSING);
    if (canEnd) done.toolCalls.push({ id: `standin_${callCount + 1}`, name: this.endCallTool, arguments: '{}' });
    return done;
  }

  async extract(req: ExtractionRequest): Promise<Record<string, unknown>> {
    const ctx = req.standInContext ?? { variables: {}, goalMet: false, summary: '' };
    const out: Record<string, unknown> = {};
    for (const [name, prop] of Object.entries(properties(req.schema))) {
      if (name === 'status' && prop.type === 'boolean') out[name] = ctx.goalMet;
      else if (name === 'summary' && prop.type === 'string') out[name] = ctx.summary;
      else out[name] = typedValue(prop.type, name, ctx.variables, 'extract');
    }
    return out;
  }

  private say(req: CompletionRequest, text: string): Completion {
    req.onText?.(text);
    return { text, toolCalls: [] };
  }
}

function properties(schema: JsonSchema): Record<string, { type?: string }> {
  const props = (schema as { properties?: Record<string, { type?: string }> }).properties;
  return props && typeof props === 'object' ? props : {};
}

/** Arguments for a function from its JSON schema: the variable of that name, else a sample. */
export function argumentsFor(schema: JsonSchema, variables: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(properties(schema))) out[name] = typedValue(prop.type, name, variables, 'sample');
  return out;
}

function typedValue(type: string | undefined, name: string, variables: Record<string, unknown>, mode: 'sample' | 'extract'): unknown {
  const known = Object.prototype.hasOwnProperty.call(variables, name) ? variables[name] : undefined;
  if (type === 'number' || type === 'integer') {
    const n = typeof known === 'number' ? known : typeof known === 'string' && known.trim() !== '' ? Number(known) : NaN;
    return Number.isFinite(n) ? n : mode === 'sample' ? 1 : 0;
  }
  if (type === 'boolean') {
    if (typeof known === 'boolean') return known;
    if (known === 'true' || known === 'false') return known === 'true';
    return mode === 'sample';
  }
  if (known !== undefined && known !== null) return typeof known === 'string' ? known : JSON.stringify(known);
  return mode === 'sample' ? `sample ${name.replace(/_/g, ' ')}` : '';
}
