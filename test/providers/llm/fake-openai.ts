/**
 * A local HTTP server that speaks the OpenAI chat-completions protocol, scripted per test:
 * each request is answered by the next handler in the queue.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: any;
}

export type Handler = (req: Received, res: http.ServerResponse) => void;

export class FakeOpenAi {
  readonly received: Received[] = [];
  private queue: Handler[] = [];
  private server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      const received = { headers: req.headers, body: text ? JSON.parse(text) : null };
      this.received.push(received);
      const handler = this.queue.shift();
      if (!handler || req.url !== '/v1/chat/completions') {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'no scripted answer' } }));
        return;
      }
      handler(received, res);
    });
  });
  baseUrl = '';

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  answer(...handlers: Handler[]): this {
    this.queue.push(...handlers);
    return this;
  }
}

/** Server-sent events of chat-completion chunks, then `[DONE]`. */
export function sse(chunks: unknown[], opts: { gapMs?: number; done?: boolean } = {}): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const lines = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`);
    if (opts.done !== false) lines.push('data: [DONE]\n\n');
    let i = 0;
    const next = () => {
      if (i >= lines.length) return void res.end();
      res.write(lines[i++]);
      if (opts.gapMs) setTimeout(next, opts.gapMs);
      else next();
    };
    next();
  };
}

export const textChunks = (...parts: string[]) => parts.map((p) => ({ choices: [{ index: 0, delta: { content: p } }] }));

/** Tool-call deltas the way OpenAI streams them: id and name first, the arguments in pieces. */
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
