/** Shared helpers of the webhook tests: a local receiver, call rows, the finished event. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { executorOf } from '../../src/calls/events.js';
import { calls } from '../../src/db/schema.js';
import type { TestService } from '../support/service.js';

export interface Received {
  at: number;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Answer {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Decides the answer to the n-th request (0-based) on a path. */
  answer: (req: Received, n: number) => Answer;
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(answer: Receiver['answer'] = () => ({ status: 200, body: '{"ok":true}' })): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: Received = { at: Date.now(), path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const n = received.filter((r) => r.path === rec.path).length;
      received.push(rec);
      const a = receiver.answer(rec, n);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(a.status ?? 200, { 'content-type': 'application/json', ...a.headers });
        res.end(a.body ?? '');
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}`,
    received,
    answer,
    async waitFor(count, timeoutMs = 10_000) {
      await waitUntil(() => received.length >= count, timeoutMs, `${count} webhook request(s), got ${received.length}`);
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}

export async function waitUntil(cond: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return;
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type CallInsert = typeof calls.$inferInsert;

/** A finished call row (status completed unless overridden). */
export async function insertCall(t: TestService, userId: number, assistantId: number | null, overrides: Partial<CallInsert> = {}) {
  const [row] = await t.service.ctx.database.db
    .insert(calls)
    .values({
      userId,
      assistantId,
      assistantName: 'Test assistant',
      type: 'outbound',
      status: 'completed',
      duration: 42,
      assistantPhoneNumber: '+4930123456',
      clientPhoneNumber: '+4915123456789',
      transcript: 'AI: Hello\nCustomer: Hi',
      variables: { customer_name: 'Ada' },
      evaluation: { status: true, summary: 'Booked a demo' },
      answeredBy: 'human',
      endedAt: '2026-11-22 10:31:02.5+00',
      createdAt: '2026-11-22 10:30:00.123456+00',
      ...overrides,
    })
    .returning();
  return row;
}

/** Emits the engine's "call finished" event, as the engine does at the end of a call. */
export async function emitFinished(t: TestService, callId: number, userId: number): Promise<void> {
  const events = t.service.ctx.services.callEvents;
  if (!events) throw new Error('no call event bus installed');
  await events.emit(executorOf(t.service.ctx.database.pool), { callId, userId });
}

/** The rows of a call's delivery log, through the API. */
export async function deliveryLog(client: { get(url: string): Promise<{ status: number; body: any }> }, callId: number) {
  const res = await client.get(`/api/user/calls/${callId}/webhook-deliveries`);
  if (res.status !== 200) throw new Error(`delivery log: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { id: number; message_id: string; kind: string; attempt: number; url: string; status_code: number | null; duration_ms: number | null; error: string | null; created_at: string }[];
}
