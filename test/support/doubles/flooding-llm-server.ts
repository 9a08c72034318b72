/**
 * The flooding LLM's process (started by flooding-llm.ts): an OpenAI-compatible
 * `POST /v1/chat/completions` that answers `text/event-stream` and then writes as fast as the
 * socket takes it, for as long as the client reads — never finishing the reply. It runs in a
 * process of its own so the flood's CPU is not charged to the event loop under test.
 *
 * What it sends is chosen by the request's system prompt:
 * - `flood:text` (the default): endless valid chunks, each `data: {…"delta":{"content":"…"}}` + blank line;
 * - `flood:garbage`: `data: ` and then endless bytes without a single line break;
 * - `flood:empty`: endless valid chunks with empty deltas (no characters, only bytes).
 * Writes honour backpressure (`write()` false → wait for `drain`), i.e. the flood is exactly
 * as fast as the reader drains the socket. Prints `port <n>` once listening.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const BLOCK = 64 * 1024;

function block(unit: string): Buffer {
  return Buffer.from(unit.repeat(Math.ceil(BLOCK / unit.length)));
}

const blocks = {
  text: block(`data: ${JSON.stringify({ id: 'chatcmpl-flood', object: 'chat.completion.chunk', created: 0, model: 'flood', choices: [{ index: 0, delta: { content: 'and so on ' }, finish_reason: null }] })}\n\n`),
  empty: block(`data: ${JSON.stringify({ id: 'chatcmpl-flood', object: 'chat.completion.chunk', created: 0, model: 'flood', choices: [{ index: 0, delta: {}, finish_reason: null }] })}\n\n`),
  garbage: block('garbage without a line break; '),
};

let requests = 0;
let bytesSent = 0;

const server = http.createServer((req, res) => {
  if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) return void res.writeHead(404).end();
  const parts: Buffer[] = [];
  req.on('data', (c: Buffer) => parts.push(c));
  req.on('end', () => {
    requests++;
    let system = '';
    try {
      system = String(JSON.parse(Buffer.concat(parts).toString('utf8'))?.messages?.[0]?.content ?? '');
    } catch {
      /* no JSON: text flood */
    }
    const mode = system.includes('flood:garbage') ? 'garbage' : system.includes('flood:empty') ? 'empty' : 'text';
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (mode === 'garbage') res.write('data: ');
    const chunk = blocks[mode];
    const pump = () => {
      while (!res.destroyed) {
        bytesSent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
    };
    res.on('close', () => res.removeAllListeners('drain'));
    pump();
  });
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`port ${(server.address() as AddressInfo).port}\n`);
});
// Asked over stdin: how much was sent (the test reports it).
process.stdin.on('data', () => process.stdout.write(`stats ${JSON.stringify({ requests, bytesSent })}\n`));
process.stdin.on('end', () => process.exit(0));
