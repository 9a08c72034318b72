/**
 * An OpenAI-compatible chat-completions client (`POST {LLM_BASE_URL}/chat/completions`):
 * streamed (server-sent events) completions with function calling, and JSON-schema
 * structured answers for post-call extraction. Works with any server that speaks the
 * protocol (OpenAI, vLLM, Ollama, LM Studio, LiteLLM, ...).
 */
import { createParser } from 'eventsource-parser';
import { BodyTooLargeError, pacer, readBodyJson, throttle } from '../bounded.js';
import { failureDetail } from '../openai-url.js';
import { LlmError, type ChatMessage, type Completion, type CompletionRequest, type ExtractionRequest, type LlmProvider, type ToolCall } from './types.js';

export interface OpenAiOptions {
  baseUrl: string;
  apiKey?: string;
  /** Whole-request limit (default 30 s). */
  timeoutMs?: number;
  /** Longest pause between two streamed chunks (default 15 s). */
  idleTimeoutMs?: number;
  /** Longest reply in characters, text and tool calls together (default 16 000); longer fails the turn. */
  maxReplyChars?: number;
  /** Longest single stream event in characters (default 256 Ki): bytes without a line break end the reply. */
  maxEventChars?: number;
  /** Most bytes read for one streamed reply, framing included (default 4 MiB). */
  maxReplyBytes?: number;
  /** Most bytes read for one whole (non-streamed) answer (default 256 KiB). */
  maxAnswerBytes?: number;
  /** Fastest a stream is read, bytes per second (default 2 MiB/s); a faster sender is slowed down by TCP. */
  maxBytesPerSecond?: number;
}

/**
 * A spoken reply is a few hundred characters; 16 000 (about 4 000 tokens, a common max_tokens)
 * leaves room for long tool arguments. The byte cap covers streams that send only framing
 * (empty deltas): 4 MiB is ~30 000 chunks, more than any honest reply of 16 000 characters; a
 * whole answer (an extraction's JSON) of more than 256 KiB is not an answer. The fastest
 * models stream ~2 000 tokens/s, ~500 KB/s of SSE: a stream is read at up to 2 MiB/s.
 */
export const LLM_LIMITS = {
  maxReplyChars: 16_000,
  maxEventChars: 256 * 1024,
  maxReplyBytes: 4 * 1024 * 1024,
  maxAnswerBytes: 256 * 1024,
  maxBytesPerSecond: 2 * 1024 * 1024,
} as const;

type StreamLimits = { -readonly [K in keyof typeof LLM_LIMITS]: number };

export class OpenAiCompatibleLlm implements LlmProvider {
  readonly label = 'openai-compatible';
  readonly standIn = false;
  private readonly url: string;
  private readonly limits: StreamLimits;

  constructor(private readonly opts: OpenAiOptions) {
    this.url = `${opts.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.limits = {
      maxReplyChars: opts.maxReplyChars ?? LLM_LIMITS.maxReplyChars,
      maxEventChars: opts.maxEventChars ?? LLM_LIMITS.maxEventChars,
      maxReplyBytes: opts.maxReplyBytes ?? LLM_LIMITS.maxReplyBytes,
      maxAnswerBytes: opts.maxAnswerBytes ?? LLM_LIMITS.maxAnswerBytes,
      maxBytesPerSecond: opts.maxBytesPerSecond ?? LLM_LIMITS.maxBytesPerSecond,
    };
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
        const json = (await this.readJson(res)) as { choices?: { message?: WireMessage }[] } | null;
        const message = json?.choices?.[0]?.message;
        if (!message) throw new LlmError('LLM answered without a completion');
        const text = message.content ?? '';
        if (text.length > this.limits.maxReplyChars) throw new LlmError(`LLM reply exceeded ${this.limits.maxReplyChars.toLocaleString('en-US')} characters`);
        if (text) req.onText?.(text);
        return { text, toolCalls: (message.tool_calls ?? []).map((c, i) => ({ id: c.id ?? `call_${i}`, name: c.function?.name ?? '', arguments: c.function?.arguments ?? '' })) };
      }
      return readStream(res, req.onText, touch, this.limits);
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
      const json = (await this.readJson(res)) as { choices?: { message?: WireMessage }[] } | null;
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

  /** A whole (non-streamed) answer, read up to its byte cap. */
  private async readJson(res: Response): Promise<unknown> {
    try {
      return await readBodyJson(res, this.limits.maxAnswerBytes, 'LLM answer');
    } catch (err) {
      if (err instanceof BodyTooLargeError) throw new LlmError(err.message);
      throw err;
    }
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

async function readStream(res: Response, onText: ((delta: string) => void) | undefined, touch: () => void, limits: StreamLimits): Promise<Completion> {
  if (!res.body) throw new LlmError('LLM answered without a body');
  let text = '';
  let chars = 0;
  let bytes = 0;
  let done = false;
  let failure: LlmError | null = null;
  const calls = new Map<number, ToolCall>();
  const grow = (added: number) => {
    chars += added;
    if (chars > limits.maxReplyChars) throw new LlmError(`LLM reply exceeded ${limits.maxReplyChars.toLocaleString('en-US')} characters`);
  };
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
      grow(delta.content.length);
      text += delta.content;
      onText?.(delta.content);
    }
    for (const part of delta.tool_calls ?? []) {
      const index = part.index ?? 0;
      const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
      if (part.id) call.id = part.id;
      if (part.function?.name) {
        grow(part.function.name.length);
        call.name += part.function.name;
      }
      if (part.function?.arguments) {
        grow(part.function.arguments.length);
        call.arguments += part.function.arguments;
      }
      calls.set(index, call);
    }
  };
  // eventsource-parser keeps a partial line as a list of pieces (linear in the bytes) and
  // refuses to hold more than one event's worth (`maxBufferSize`): bytes without a line break
  // end the reply instead of piling up.
  const parser = createParser({
    maxBufferSize: limits.maxEventChars,
    onEvent: (event) => {
      if (done || failure) return;
      try {
        handle(event.data);
      } catch (err) {
        failure = err instanceof LlmError ? err : new LlmError((err as Error).message);
      }
    },
    onError: (err) => {
      if (err.type === 'max-buffer-size-exceeded') failure ??= new LlmError(`LLM sent a stream event over ${limits.maxEventChars.toLocaleString('en-US')} characters`);
    },
  });
  const decoder = new TextDecoder();
  const pace = pacer();
  const slow = throttle(limits.maxBytesPerSecond);
  const reader = res.body.getReader();
  try {
    while (!done && !failure) {
      const { done: ended, value } = await reader.read();
      if (ended) break;
      touch();
      bytes += value.length;
      if (bytes > limits.maxReplyBytes) throw new LlmError(`LLM reply exceeded ${limits.maxReplyBytes.toLocaleString('en-US')} bytes`);
      parser.feed(decoder.decode(value, { stream: true }));
      // A flood is handled in slices (the other calls' frames and timers run between them) and
      // no faster than an honest model sends (backpressure on the socket).
      await (slow(value.length) ?? pace());
    }
    if (!done && !failure) parser.feed(`${decoder.decode()}\n\n`);
  } finally {
    // Stop reading at once (a reply cut short by a limit, or [DONE] before the server closed).
    reader.cancel().catch(() => undefined);
  }
  if (failure) throw failure;
  const toolCalls = [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([i, c]) => ({ ...c, id: c.id || `call_${i}` }));
  return { text, toolCalls };
}

function stripFence(content: string): string {
  const m = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(content);
  return m ? m[1] : content;
}

export type { ChatMessage };
