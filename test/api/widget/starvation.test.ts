/**
 * Issue 27 item 3: a public widget key must not starve its owner. A browser call takes one of the
 * owner's parallel slots when its page connects, not when its token is handed out; a key's calls
 * hold at most its share of the owner's limit (WIDGET_KEY_SHARE, 50 %), a visitor address at most
 * WIDGET_CALLS_PER_ADDRESS (2) at once; tokens never used are pruned once their call has ended.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { callEnginePart } from '../../../src/calls/index.js';
import { pruneWebCallTokens } from '../../../src/calls/recovery.js';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

const ORIGIN = 'https://shop.example.com';
let t: TestService;

beforeAll(async () => {
  t = await startTestService({ parts: [callEnginePart], listen: true });
}, 60_000);
afterAll(() => t?.close());

async function ownerWithKey(maxCalls?: number): Promise<{ owner: TestUser; assistantId: number; key: string }> {
  const owner = await t.createUser(maxCalls === undefined ? {} : { max_calls_in_parallel: maxCalls });
  const assistantId = (await insertAssistant(t, owner.id, { initialMessage: 'Hello.' })).id;
  const created = await owner.post(`/api/user/assistants/${assistantId}/widget-keys`, { allowed_origins: [ORIGIN] });
  expect(created.status).toBe(201);
  return { owner, assistantId, key: created.body.data.key };
}

const visit = (key: string, ip: string) =>
  t.service.app.inject({
    method: 'POST',
    url: '/widget/calls',
    remoteAddress: ip,
    headers: { 'content-type': 'application/json', origin: ORIGIN },
    payload: JSON.stringify({ key, mode: 'text' }),
  });

/** Opens a call's media socket: its first message (`ready` when the call runs), or the close code when refused. */
function connect(mediaPath: string): Promise<{ ws: WebSocket; ready: boolean; code?: number }> {
  const ws = new WebSocket(`${t.service.url!.replace(/^http/, 'ws')}${mediaPath}`);
  return new Promise((resolve, reject) => {
    ws.once('message', (data) => resolve({ ws, ready: JSON.parse(String(data)).type === 'ready' }));
    ws.once('close', (code) => resolve({ ws, ready: false, code }));
    ws.once('error', reject);
  });
}

async function hangUp(ws: WebSocket, callId: number): Promise<void> {
  const closed = new Promise((r) => ws.once('close', r));
  ws.send(JSON.stringify({ type: 'hangup' }));
  await closed;
  await t.service.ctx.services.callEngine!.whenFinished(callId);
}

describe('widget calls and the owner’s parallel slots', () => {
  it('replayed: 14 never-connecting widget calls from 2 addresses; the owner’s make_call still succeeds at once', async () => {
    const { owner, assistantId, key } = await ownerWithKey(); // the default limit, 10
    const answers = [];
    for (let i = 0; i < 14; i++) answers.push(await visit(key, i % 2 ? '198.51.100.1' : '198.51.100.2'));
    const statuses = answers.map((a) => a.statusCode);
    // Two at once per address; the rest are told to come back (429 + Retry-After), never a 5xx.
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    expect(answers.find((a) => a.statusCode === 429)!.headers['retry-after']).toBe('10');
    const waiting = await t.service.ctx.database.pool.query("SELECT count(*)::int AS n FROM calls WHERE user_id = $1 AND type = 'web' AND status = 'initiated'", [owner.id]);
    expect(waiting.rows[0].n).toBe(4);

    const started = Date.now();
    const call = await owner.post('/api/user/make_call', { phone_number: '+4915123456700', assistant_id: assistantId });
    expect(call.status).toBe(200);
    // At once: no waiting for a slot (milliseconds; the bound leaves room for a loaded CI machine).
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('takes the slot when the page connects: refused (4429, token kept) while the owner’s calls fill the limit, accepted once one ends', async () => {
    const { owner, assistantId, key } = await ownerWithKey(2);
    const waiting = await visit(key, '198.51.100.10');
    expect(waiting.statusCode).toBe(200);
    // The owner's own two calls (dashboard browser calls, connected) fill the limit of 2: the
    // waiting widget call does not count against them.
    const own = [];
    for (let i = 0; i < 2; i++) {
      const res = await owner.post('/api/user/web-calls', { assistant_id: assistantId, mode: 'text' });
      expect(res.status).toBe(200);
      const page = await connect(res.body.media_path);
      expect(page.ready).toBe(true);
      own.push({ page, callId: res.body.call_id as number });
    }
    // Full: a third of the owner's is refused at once, and so is the visitor connecting now.
    expect((await owner.post('/api/user/web-calls', { assistant_id: assistantId, mode: 'text' })).status).toBe(429);
    const refused = await connect(waiting.json().media_path);
    expect(refused).toMatchObject({ ready: false, code: 4429 });
    // One of the owner's ends: the visitor's same token connects.
    await hangUp(own[0]!.page.ws, own[0]!.callId);
    const accepted = await connect(waiting.json().media_path);
    expect(accepted.ready).toBe(true);
    // And a token spent is spent.
    expect(await connect(waiting.json().media_path)).toMatchObject({ ready: false, code: 4401 });
    await hangUp(accepted.ws, waiting.json().call_id);
    await hangUp(own[1]!.page.ws, own[1]!.callId);
  });

  it('holds a key to its share (half of 4 = 2 at once) and an address to 2 at once; another owner’s key and the same address there are not counted', async () => {
    const { key } = await ownerWithKey(4);
    const other = await ownerWithKey(10);
    expect((await visit(key, '198.51.100.20')).statusCode).toBe(200);
    expect((await visit(key, '198.51.100.21')).statusCode).toBe(200);
    // The key's share is full (2 of the owner's 4), whichever address asks.
    expect((await visit(key, '198.51.100.22')).statusCode).toBe(429);
    // Another owner's key (share 5 of 10) is its own: the same addresses are welcome there, two at once each.
    expect((await visit(other.key, '198.51.100.20')).statusCode).toBe(200);
    expect((await visit(other.key, '198.51.100.20')).statusCode).toBe(200);
    expect((await visit(other.key, '198.51.100.20')).statusCode).toBe(429);
    expect((await visit(other.key, '198.51.100.21')).statusCode).toBe(200);
  });
});

describe('tokens never used', () => {
  it('are pruned once their call has ended; live calls keep theirs', async () => {
    const { owner, key } = await ownerWithKey();
    const ended = (await visit(key, '198.51.100.30')).json();
    const live = (await visit(key, '198.51.100.31')).json();
    const { pool } = t.service.ctx.database;
    // Both tokens expired two minutes ago; only the first call has ended (as a page that never came does).
    await pool.query("UPDATE web_call_tokens SET expires_at = now() - interval '2 minutes' WHERE call_id = ANY($1)", [[ended.call_id, live.call_id]]);
    await pool.query("UPDATE calls SET status = 'failed', ended_at = now() WHERE id = $1", [ended.call_id]);
    await pruneWebCallTokens(pool);
    const left = await pool.query('SELECT call_id FROM web_call_tokens w JOIN calls c ON c.id = w.call_id WHERE c.user_id = $1', [owner.id]);
    expect(left.rows.map((r) => r.call_id)).toEqual([live.call_id]);
  });
});
