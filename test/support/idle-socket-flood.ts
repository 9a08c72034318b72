/**
 * A stranger's side of test/reliability/idle-sockets.test.ts, in a process of its own so that
 * its 2,000 sockets do not slow the test's own probes: opens `count` WebSockets to `url` that
 * never prove themselves (Twilio media streams that never send `start`; every tenth a browser
 * socket with a wrong token), from `addresses` local addresses, and prints one JSON line with
 * what became of each once all have ended.
 *
 *   node --import tsx test/support/idle-socket-flood.ts <url> <count> <addresses>
 */
import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';

export type FloodOutcome =
  | { kind: 'closed'; code: number; openMs: number; heldMs: number }
  | { kind: 'refused'; status: number; retryAfter?: string; ms: number }
  | { kind: 'error'; code: string };

function idleSocket(url: string, i: number, addresses: number): Promise<FloodOutcome> {
  const path = i % 10 === 9 ? `/web-calls/${i}/media?token=${'w'.repeat(32)}` : '/carriers/twilio/media';
  const started = performance.now();
  let openedAt = 0;
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}${path}`, { localAddress: `127.0.1.${(i % addresses) + 1}`, handshakeTimeout: 30_000 });
  return new Promise((resolve) => {
    socket.on('open', () => (openedAt = performance.now()));
    socket.on('close', (code) => {
      if (openedAt) resolve({ kind: 'closed', code, openMs: openedAt - started, heldMs: performance.now() - openedAt });
    });
    socket.on('unexpected-response', (_req, res: IncomingMessage) => {
      res.resume();
      resolve({ kind: 'refused', status: res.statusCode!, retryAfter: res.headers['retry-after'] as string | undefined, ms: performance.now() - started });
      socket.terminate();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (!openedAt) resolve({ kind: 'error', code: err.code ?? err.message });
    });
  });
}

async function flood(url: string, count: number, addresses: number): Promise<FloodOutcome[]> {
  const outcomes: Promise<FloodOutcome>[] = [];
  // All at once, as an attacker would: 100 every 10 ms so this process keeps up with its own side.
  for (let i = 0; i < count; i += 100) {
    for (let j = i; j < Math.min(count, i + 100); j++) outcomes.push(idleSocket(url, j, addresses));
    await new Promise((r) => setTimeout(r, 10));
  }
  return Promise.all(outcomes);
}

const [url, count, addresses] = process.argv.slice(2);
if (url) {
  const started = performance.now();
  const outcomes = await flood(url, Number(count), Number(addresses));
  process.stdout.write(`${JSON.stringify({ ms: performance.now() - started, outcomes })}\n`);
}
