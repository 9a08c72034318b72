/**
 * A local OpenAI-compatible chat-completions server (`POST /v1/chat/completions`, VOICE.md A4).
 *
 * Two ways to script it:
 * - `on(lastUserMessage, ...rounds)`: answers keyed on the last user message; round N is the
 *   answer after N assistant messages following it (a tool call, then the text after its
 *   result). Streamed requests get server-sent events the way OpenAI sends them: a role chunk,
 *   content split at token-ish boundaries, tool calls with `id`/`name` first and `arguments` in
 *   pieces (two calls interleaved by `index`), `finish_reason`, a usage chunk when asked for,
 *   `[DONE]`. Non-streamed requests (post-call extraction) get one JSON completion.
 * - `answer(...handlers)`: a queue of raw handlers, used before any script (exact wire control).
 *
 * `GET /v1/models` answers OpenAI's model list (with the same key check).
 *
 * Knobs: per-token delay, hanging after N chunks, dropping the connection after N chunks, an
 * error status, the required key. Every request is recorded (`received`). A history that breaks
 * OpenAI's pairing of `tool_calls` and `tool` results is refused with OpenAI's 400, as the real
 * server does, so every test that talks to the double checks it.
 */
import type http from 'node:http';
import { argsText, ScriptedDouble, type Reply, type ScriptedToolCall } from './script.js';
import { readBody } from './server.js';

export type { Reply, ScriptedToolCall };

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: any;
}

export type Handler = (req: Received, res: http.ServerResponse) => void;

export interface ChatKnobs {
  /** Delay between streamed chunks. */
  tokenDelayMs: number;
  /** Stop sending (but keep the connection open) after this many chunks. */
  hangAfterChunks: number | null;
  /** Destroy the connection after this many chunks. */
  dropAfterChunks: number | null;
  /** Answer every request with this HTTP status and an OpenAI error body. */
  failWith: number | null;
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey: string | null;
}

export class ChatDouble extends ScriptedDouble {
  readonly received: Received[] = [];
  readonly knobs: ChatKnobs = { tokenDelayMs: 0, hangAfterChunks: null, dropAfterChunks: null, failWith: null, apiKey: null };
  private queue: Handler[] = [];
  private extraction: Record<string, unknown> | null = null;
  private decider: ((body: any) => Reply | null) | null = null;

  constructor(knobs: Partial<ChatKnobs> = {}) {
    super();
    Object.assign(this.knobs, knobs);
  }

  /** LLM_BASE_URL for this double (with `/v1`). */
  get baseUrl(): string {
    return `${this.server.origin('http')}/v1`;
  }

  /** Raw handlers, answered in order before any script. */
  answer(...handlers: Handler[]): this {
    this.queue.push(...handlers);
    return this;
  }

  /**
   * Answers decided from the whole request (e.g. the system prompt a test changes), before any
   * script; null falls through to the scripts.
   */
  decide(fn: (body: any) => Reply | null): this {
    this.decider = fn;
    return this;
  }

  /** The object non-streamed requests (post-call extraction) get. */
  extract(values: Record<string, unknown>): this {
    this.extraction = values;
    return this;
  }

  protected override onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    void this.handle(req, res);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const text = (await readBody(req)).toString('utf8');
    let body: any = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      return void json(400, { error: { message: 'body is not JSON' } })({ headers: req.headers, body: text }, res);
    }
    const received = { headers: req.headers, body };
    this.received.push(received);
    const listing = req.method === 'GET' && req.url === '/v1/models';
    if (!listing && (req.method !== 'POST' || req.url !== '/v1/chat/completions')) return void json(404, { error: { message: 'not found' } })(received, res);
    if (this.knobs.apiKey && req.headers.authorization !== `Bearer ${this.knobs.apiKey}`) {
      return void json(401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } })(received, res);
    }
    // OpenAI's model list, as every OpenAI-compatible server serves it (what trying a key asks for).
    if (listing) return void json(200, { object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model', created: 1721172741, owned_by: 'system' }] })(received, res);
    if (this.knobs.failWith) return void json(this.knobs.failWith, { error: { message: `failing with ${this.knobs.failWith} (test knob)` } })(received, res);
    const unpaired = toolPairingError(body?.messages);
    if (unpaired) return void json(400, { error: unpaired })(received, res);
    const queued = this.queue.shift();
    if (queued) return queued(received, res);
    const reply = this.replyFor(body);
    if (!reply) {
      return void json(500, { error: { message: `no scripted answer for ${JSON.stringify(lastUserMessage(body))}` } })(received, res);
    }
    if (body?.stream !== true) {
      const values = reply.json ?? this.extraction;
      const message = values
        ? { role: 'assistant', content: JSON.stringify(values) }
        : { role: 'assistant', content: reply.text ?? null, tool_calls: reply.toolCalls?.length ? wireToolCalls(reply.toolCalls) : undefined };
      return void json(200, { id: 'chatcmpl-double', object: 'chat.completion', model: body?.model, choices: [{ index: 0, message, finish_reason: reply.toolCalls?.length ? 'tool_calls' : 'stop' }] })(received, res);
    }
    const chunks = replyChunks(reply, body?.model ?? 'double');
    if (body?.stream_options?.include_usage) chunks.push(usageChunk(body, reply));
    streamChunks(chunks, this.knobs)(received, res);
  }

  private replyFor(body: any): Reply | null {
    if (body?.stream !== true && this.extraction && body?.response_format) return { json: this.extraction };
    const decided = this.decider?.(body);
    if (decided) return decided;
    const last = lastUserMessage(body);
    const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
    const lastUserIndex = messages.map((m) => m?.role).lastIndexOf('user');
    const round = messages.slice(lastUserIndex + 1).filter((m) => m?.role === 'assistant').length;
    return this.script.replyFor(last, round);
  }
}

/**
 * OpenAI's rule for function results, with its error body: an assistant message with
 * `tool_calls` must be followed, at once, by one `tool` message per call id, and a `tool` message
 * must answer a call of the assistant message before it.
 */
export function toolPairingError(messages: unknown): { message: string; type: string; param: string; code: null } | null {
  if (!Array.isArray(messages)) return null;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m?.role === 'tool') {
      let j = i - 1;
      while (j >= 0 && messages[j]?.role === 'tool') j--;
      const calls: any[] = messages[j]?.role === 'assistant' && Array.isArray(messages[j].tool_calls) ? messages[j].tool_calls : [];
      if (!calls.some((c) => c?.id === m.tool_call_id)) {
        return { message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", type: 'invalid_request_error', param: `messages.[${i}].role`, code: null };
      }
      continue;
    }
    if (m?.role !== 'assistant' || !Array.isArray(m.tool_calls) || m.tool_calls.length === 0) continue;
    const answered = new Set<string>();
    for (let j = i + 1; j < messages.length && messages[j]?.role === 'tool'; j++) answered.add(messages[j].tool_call_id);
    const missing = m.tool_calls.map((c: any) => c?.id).filter((id: string) => !answered.has(id));
    if (missing.length > 0) {
      return {
        message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`,
        type: 'invalid_request_error',
        param: `messages.[${i + 1}].role`,
        code: null,
      };
    }
  }
  return null;
}

function lastUserMessage(body: any): string {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const m = [...messages].reverse().find((x) => x?.role === 'user');
  return typeof m?.content === 'string' ? m.content : '';
}

function wireToolCalls(calls: ScriptedToolCall[]) {
  return calls.map((c, i) => ({ id: c.id ?? `call_${i + 1}`, type: 'function', function: { name: c.name, arguments: argsText(c) } }));
}

/** Token-ish pieces: words with their following space, long words cut in pieces of at most 4 characters. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const word of text.match(/\S+\s*|\s+/g) ?? []) {
    if (word.length <= 6) out.push(word);
    else for (let i = 0; i < word.length; i += 4) out.push(word.slice(i, i + 4));
  }
  return out;
}

/** `text` in pieces of `size` characters. */
function cut(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const chunk = (model: string, delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chatcmpl-double',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model,
  choices: [{ index: 0, delta, finish_reason: finish }],
});

/** The chunks OpenAI streams for a reply. */
export function replyChunks(reply: Reply, model = 'double'): unknown[] {
  const out: unknown[] = [chunk(model, { role: 'assistant', content: '' })];
  for (const piece of tokenize(reply.text ?? '')) out.push(chunk(model, { content: piece }));
  const calls = reply.toolCalls ?? [];
  calls.forEach((c, index) => {
    out.push(chunk(model, { tool_calls: [{ index, id: c.id ?? `call_${index + 1}`, type: 'function', function: { name: c.name, arguments: '' } }] }));
  });
  // Argument pieces of all calls interleaved, as parallel calls stream.
  const pieces = calls.map((c) => cut(argsText(c), 7));
  for (let k = 0; pieces.some((p) => k < p.length); k++) {
    pieces.forEach((p, index) => {
      if (k < p.length) out.push(chunk(model, { tool_calls: [{ index, function: { arguments: p[k] } }] }));
    });
  }
  out.push(chunk(model, {}, calls.length ? 'tool_calls' : 'stop'));
  return out;
}

function usageChunk(body: any, reply: Reply) {
  const prompt = JSON.stringify(body?.messages ?? []).length >> 2;
  const completion = tokenize(reply.text ?? '').length + (reply.toolCalls ?? []).reduce((n, c) => n + cut(argsText(c), 7).length, 0);
  return { id: 'chatcmpl-double', object: 'chat.completion.chunk', created: 1_700_000_000, model: body?.model, choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } };
}

/** Server-sent events of chunks, then `[DONE]`, under the pacing, hang and drop knobs. */
export function streamChunks(chunks: unknown[], knobs: Partial<ChatKnobs> = {}, done = true): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const lines = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`);
    if (done) lines.push('data: [DONE]\n\n');
    let i = 0;
    const next = () => {
      if (res.destroyed) return;
      if (knobs.dropAfterChunks != null && i >= knobs.dropAfterChunks) return void res.socket?.destroy();
      if (knobs.hangAfterChunks != null && i >= knobs.hangAfterChunks) return;
      if (i >= lines.length) return void res.end();
      // Next chunk once this one is handed to the socket, so a drop loses only what follows it.
      res.write(lines[i++], () => (knobs.tokenDelayMs ? setTimeout(next, knobs.tokenDelayMs) : next()));
    };
    next();
  };
}

/** Raw chunks as SSE (a handler for `answer`). */
export function sse(chunks: unknown[], opts: { gapMs?: number; done?: boolean } = {}): Handler {
  return streamChunks(chunks, { tokenDelayMs: opts.gapMs ?? 0 }, opts.done !== false);
}

export const textChunks = (...parts: string[]) => parts.map((p) => ({ choices: [{ index: 0, delta: { content: p } }] }));

/** Tool-call deltas the way OpenAI streams them: id and name first, the arguments in two pieces. */
export function toolCallChunks(calls: { id: string; name: string; args: string }[]): unknown[] {
  const out: unknown[] = [];
  calls.forEach((c, index) => {
    out.push({ choices: [{ index: 0, delta: { tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] } }] });
    const mid = Math.ceil(c.args.length / 2);
    for (const piece of [c.args.slice(0, mid), c.args.slice(mid)]) {
      out.push({ choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: piece } }] } }] });
    }
  });
  out.push({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
  return out;
}

export function json(status: number, body: unknown): Handler {
  return (_req, res) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export function extraction(values: Record<string, unknown>): Handler {
  return json(200, { choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(values) } }] });
}
