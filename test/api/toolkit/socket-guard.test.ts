/**
 * Issue 27 item 2, in one process: the WebSockets' start deadline, heartbeat and caps on
 * unproven sockets (per process, per address), on the real routes (Twilio's media stream, the
 * browser call's socket). The same under a 1,024-descriptor limit, with 2,000 sockets:
 * test/reliability/idle-sockets.test.ts.
 */
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { callEnginePart } from '../../../src/calls/index.js';
import { isDatabaseUnavailable } from '../../../src/db/unavailable.js';
import { isOutOfDescriptors } from '../../../src/lib/descriptors.js';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService } from '../../support/service.js';

let t: TestService;
let ws: string;

beforeAll(async () => {
  t = await startTestService({
    parts: [callEnginePart],
    listen: true,
    env: { WS_START_TIMEOUT: '1', WS_HEARTBEAT_INTERVAL: '0.3', WS_PENDING_MAX: '6', WS_PENDING_PER_ADDRESS: '3' },
  });
  ws = t.service.url!.replace(/^http/, 'ws');
}, 60_000);
afterAll(() => t?.close());

type Outcome =
  | { kind: 'open'; socket: WebSocket; closed: Promise<{ code: number; at: number }> }
  | { kind: 'refused'; status: number; retryAfter: string | undefined; body: string };

/** Opens a socket from `localAddress` (any 127.x address is this machine); resolves once it is open or refused. */
function open(path: string, localAddress = '127.0.0.1', options: WebSocket.ClientOptions = {}): Promise<Outcome> {
  const socket = new WebSocket(`${ws}${path}`, { localAddress, ...options });
  const closed = new Promise<{ code: number; at: number }>((r) => socket.on('close', (code) => r({ code, at: Date.now() })));
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ kind: 'open', socket, closed }));
    socket.once('unexpected-response', (_req, res: IncomingMessage) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ kind: 'refused', status: res.statusCode!, retryAfter: res.headers['retry-after'] as string | undefined, body }));
    });
    socket.once('error', (err) => reject(err));
  });
}

const MEDIA = '/carriers/twilio/media';
const opened = (o: Outcome) => {
  if (o.kind !== 'open') throw new Error(`refused: ${JSON.stringify(o)}`);
  return o;
};

describe('unproven WebSockets', () => {
  it('closes a media stream that sends no start (and one that only says connected) by the deadline, 1008', async () => {
    const started = Date.now();
    const silent = opened(await open(MEDIA));
    const chatty = opened(await open(MEDIA));
    chatty.socket.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
    for (const s of [silent, chatty]) {
      const { code, at } = await s.closed;
      expect(code).toBe(1008);
      // WS_START_TIMEOUT is 1 s: not before it, and not long after.
      expect(at - started).toBeGreaterThanOrEqual(950);
      expect(at - started).toBeLessThan(4_000);
    }
  });

  it('caps them per address (3) and per process (6): the next upgrade is a 503 with Retry-After, and room returns when one closes', async () => {
    const a = await Promise.all([1, 2, 3].map(() => open(MEDIA, '127.0.0.2')));
    expect(a.map((o) => o.kind)).toEqual(['open', 'open', 'open']);
    const fourth = await open(MEDIA, '127.0.0.2');
    expect(fourth).toMatchObject({ kind: 'refused', status: 503, retryAfter: '5' });
    expect(JSON.parse((fourth as { body: string }).body)).toEqual({ message: 'Too many connections are waiting to start; please try again in a moment.' });
    // Another address has its own three, up to the process's six; then nobody gets one.
    const b = await Promise.all([1, 2, 3].map(() => open(`/web-calls/1/media?token=${'x'.repeat(30)}`, '127.0.0.3')));
    // A wrong token is refused at once (4401), so these three free their places by themselves.
    for (const o of b) expect((await opened(o).closed).code).toBe(4401);
    await new Promise((r) => setTimeout(r, 50));
    const c = await Promise.all([1, 2, 3].map(() => open(MEDIA, '127.0.0.4')));
    expect(c.map((o) => o.kind)).toEqual(['open', 'open', 'open']);
    expect(await open(MEDIA, '127.0.0.5')).toMatchObject({ kind: 'refused', status: 503 });
    opened(a[0]!).socket.terminate();
    await opened(a[0]!).closed;
    await new Promise((r) => setTimeout(r, 50));
    const again = await open(MEDIA, '127.0.0.5');
    expect(again.kind).toBe('open');
    for (const o of [...a, ...c, again]) if (o.kind === 'open') o.socket.terminate();
  });

  it('drops a socket that answers no ping by the next one, keeps one that answers', async () => {
    const deaf = opened(await open(MEDIA, '127.0.0.6', { autoPong: false }));
    const hearing = opened(await open(MEDIA, '127.0.0.6'));
    const started = Date.now();
    const { at } = await deaf.closed;
    // Pinged at the next beat (≤ 0.3 s), dropped at the one after: well before the 1 s deadline.
    expect(at - started).toBeLessThan(800);
    expect(hearing.socket.readyState).toBe(WebSocket.OPEN);
    hearing.socket.terminate();
  });
});

describe('a proven socket', () => {
  it('a browser call with its token outlives the start deadline (heartbeats keep it), and frees its place at once', async () => {
    const user = await t.createUser();
    const assistant = await insertAssistant(t, user.id, { initialMessage: 'Hello.' });
    const res = await user.post('/api/user/web-calls', { assistant_id: assistant.id });
    expect(res.status).toBe(200);
    const page = opened(await open(res.body.media_path, '127.0.0.7'));
    await new Promise((r) => page.socket.once('message', r)); // `ready`: its token was taken
    // Three strangers from the same address still fit: the call's socket is not one of them.
    const strangers = await Promise.all([1, 2, 3].map(() => open(MEDIA, '127.0.0.7')));
    expect(strangers.map((o) => o.kind)).toEqual(['open', 'open', 'open']);
    await new Promise((r) => setTimeout(r, 1_600));
    expect(page.socket.readyState).toBe(WebSocket.OPEN);
    for (const s of strangers) expect(opened(s).socket.readyState).toBe(WebSocket.CLOSED);
    page.socket.send(JSON.stringify({ type: 'hangup' }));
    await page.closed;
    await t.service.ctx.services.callEngine!.whenFinished(res.body.call_id);
  });
});

describe('descriptor exhaustion', () => {
  it('is recognised in an error and in what caused it, and counts as a passing outage for loops', () => {
    const emfile = Object.assign(new Error('connect EMFILE 127.0.0.1:5432 - Local (undefined:undefined)'), { errno: -24, code: 'EMFILE', syscall: 'connect' });
    const wrapped = new Error('Failed query: select 1', { cause: emfile });
    const enfile = Object.assign(new Error('open ENFILE'), { code: 'ENFILE', syscall: 'open' });
    for (const err of [emfile, wrapped, enfile]) expect(isOutOfDescriptors(err)).toBe(true);
    for (const err of [new Error('x'), Object.assign(new Error('y'), { code: 'ENOENT' }), null, 'EMFILE']) expect(isOutOfDescriptors(err)).toBe(false);
    expect(isDatabaseUnavailable(wrapped)).toBe(true);
  });
});
