/**
 * An OpenAI-compatible chat-completions client (`POST {LLM_BASE_URL}/chat/completions`):
 * streamed (server-sent events) completions with function calling, and JSON-schema
 * structured answers for post-call extraction. Works with any server that speaks the
 * protocol (OpenAI, vLLM, Ollama, LM Studio, LiteLLM, ...).
 */
import { failureDetail } from '../openai-url.js';
import { LlmError, type ChatMessage, type Completion, type CompletionRequest, type ExtractionRequest, type LlmProvider, type ToolCall } from './types.js';

export interface OpenAiOptions {
  baseUrl: string;
  apiKey?: string;
  /** Whole-request limit (default 30 s). */
  timeoutMs?: number;
  /** Longest pause between two streamed chunks (default 15 s). */
  idleTimeoutMs?: number;
}

export class OpenAiCompatibleLlm implements LlmProvider {
  readonly label = 'openai-compatible';
  readonly standIn = false;
  private readonly url: string;

  constructor(private readonly opts: OpenAiOptions) {
    this.url = `${opts.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  }

  async complete(req: CompletionRequest): Promise<Completion> {
    const body: Record<string, unknown> = {
      model: req.model,
      temperature: req.temperature,
      messages: req.messages,
      stream: true,
    };
    if (req.tools.length > 0) {
      body.tools = req.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
      body.tool_choice = 'auto';
    }
    return this.withTimeout(req.signal, async (signal, touch) => {
      const res = await this.post(body, signal);
      const type = res.headers.get('content-type') ?? '';
      if (!type.includes('text/event-stream')) {
        // A server that ignored `stream: true` answers one JSON completion.
        const json = (await res.json().catch(() => null)) as { choices?: { message?: WireMessage }[] } | null;
        const message = json?.choices?.[0]?.message;
        if (!message) throw new LlmError('LLM answered without a completion');
        const text = message.content ?? '';
        if (text) req.onText?.(text);
        return { text, toolCalls: (message.tool_calls ?? []).map((c, i) => ({ id: c.id ?? `call_${i}`, name: c.function?.name ?? '', arguments: c.function?.arguments ?? '' })) };
      }
      return readStream(res, req.onText, touch);
    });
  }

  async extract(req: ExtractionRequest): Promise<Record<string, unknown>> {
    const body = {
      model: req.model,
      temperature: req.temperature,
      messages: req.messages,
      stream: false,
      response_format: { type: 'json_schema', json_schema: { name: 'call_evaluation', strict: true, schema: req.schema } },
    };
    return this.withTimeout(req.signal, async (signal) => {
      const res = await this.post(body, signal);
      const json = (await res.json().catch(() => null)) as { choices?: { message?: WireMessage }[] } | null;
      const content = json?.choices?.[0]?.message?.content;
      if (typeof content !== 'string') throw new LlmError('LLM answered without content');
      let parsed: unknown;
      try {
        parsed = JSON.parse(stripFence(content));
      } catch {
        throw new LlmError('LLM answered with text that is not JSON');
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new LlmError('LLM answered with JSON that is not an object');
      return parsed as Record<string, unknown>;
    });
  }

  private async post(body: unknown, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream, application/json' };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    let res: Response;
    try {
      res = await fetch(this.url, { method: 'POST', headers, body: JSON.stringify(body), signal });
    } catch (err) {
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new LlmError('LLM request aborted');
      throw new LlmError(`LLM request failed: ${(err as Error).message}`);
    }
    if (!res.ok) {
      const detail = await failureDetail(res);
      throw new LlmError(`LLM request failed with status ${res.status}${detail ? `: ${detail}` : ''}`, res.status);
    }
    return res;
  }

  /** Runs `fn` under the caller's signal, a whole-request timeout and an idle timeout. */
  private async withTimeout<T>(outer: AbortSignal | undefined, fn: (signal: AbortSignal, touch: () => void) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const total = this.opts.timeoutMs ?? 30_000;
    const idle = this.opts.idleTimeoutMs ?? 15_000;
    const abort = (reason: Error) => controller.abort(reason);
    const totalTimer = setTimeout(() => abort(new LlmError(`LLM request timed out after ${total} ms`)), total);
    let idleTimer = setTimeout(() => abort(new LlmError(`LLM sent nothing for ${idle} ms`)), idle);
    const touch = () => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => abort(new LlmError(`LLM sent nothing for ${idle} ms`)), idle);
    };
    const onOuter = () => abort(new LlmError('LLM request cancelled'));
    if (outer?.aborted) onOuter();
    outer?.addEventListener('abort', onOuter, { once: true });
    try {
      return await fn(controller.signal, touch);
    } catch (err) {
      if (controller.signal.aborted && controller.signal.reason instanceof Error) throw controller.signal.reason;
      throw err;
    } finally {
      clearTimeout(totalTimer);
      clearTimeout(idleTimer);
      outer?.removeEventListener('abort', onOuter);
    }
  }
}

interface WireMessage {
  content?: string | null;
  tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[];
}

interface WireChunk {
  choices?: { delta?: { content?: string | null; tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[] } }[];
  error?: { message?: string };
}

async function readStream(res: Response, onText: ((delta: string) => void) | undefined, touch: () => void): Promise<Completion> {
  if (!res.body) throw new LlmError('LLM answered without a body');
  const decoder = new TextDecoder();
  let buffer = '';
  let text = '';
  let done = false;
  const calls = new Map<number, ToolCall>();
  const handle = (data: string) => {
    if (data === '[DONE]') {
      done = true;
      return;
    }
    let chunk: WireChunk;
    try {
      chunk = JSON.parse(data) as WireChunk;
    } catch {
      throw new LlmError('LLM sent a malformed stream chunk');
    }
    if (chunk.error) throw new LlmError(`LLM stream error: ${chunk.error.message ?? 'unknown'}`);
    const delta = chunk.choices?.[0]?.delta;
    if (!delta) return;
    if (delta.content) {
      text += delta.content;
      onText?.(delta.content);
    }
    for (const part of delta.tool_calls ?? []) {
      const index = part.index ?? 0;
      const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name += part.function.name;
      if (part.function?.arguments) call.arguments += part.function.arguments;
      calls.set(index, call);
    }
  };
  for await (const piece of res.body as unknown as AsyncIterable<Uint8Array>) {
    touch();
    buffer += decoder.decode(piece, { stream: true });
    let cut: number;
    while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const event = buffer.slice(0, cut);
      buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, '');
      const data = event
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) handle(data);
      if (done) break;
    }
    if (done) break;
  }
  if (!done && buffer.trim().startsWith('data:')) handle(buffer.trim().slice(5).trim());
  const toolCalls = [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([i, c]) => ({ ...c, id: c.id || `call_${i}` }));
  return { text, toolCalls };
}

function stripFence(content: string): string {
  const m = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(content);
  return m ? m[1] : content;
}

export type { ChatMessage };
