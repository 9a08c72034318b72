import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALL_STATUSES, canTransition, NOW, transitionCall, type CallStatus } from '../../src/calls/state-machine.js';
import { calls } from '../../src/db/schema.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService } from '../support/service.js';

let t: TestService;
let userId: number;
let assistantId: number;
const logged: { level: number; msg: string }[] = [];
const log = pino({ level: 'debug' }, new Writable({ write(chunk, _e, cb) { logged.push(JSON.parse(String(chunk))); cb(); } }));

beforeAll(async () => {
  t = await startTestService();
  userId = (await t.createUser()).id;
  assistantId = (await insertAssistant(t, userId)).id;
});
afterAll(() => t.close());

async function newCall(status: CallStatus = 'initiated') {
  const [row] = await t.service.ctx.database.db
    .insert(calls)
    .values({ userId, assistantId, assistantName: 'A', type: 'outbound', status, clientPhoneNumber: '+4915123456700', createdAt: '2026-01-01 00:00:00+00', updatedAt: '2026-01-01 00:00:00+00' })
    .returning();
  return row.id;
}

async function read(id: number) {
  const { rows } = await t.service.ctx.database.pool.query('SELECT status, updated_at, answered_by, answered_at, transcript FROM calls WHERE id = $1', [id]);
  return rows[0];
}

describe('the transition table', () => {
  const allowed = new Set([
    'initiated>ringing', 'initiated>busy', 'initiated>no-answer', 'initiated>failed', 'initiated>ended',
    'ringing>in-progress', 'ringing>busy', 'ringing>no-answer', 'ringing>failed', 'ringing>ended',
    'in-progress>completed', 'in-progress>ended_by_customer', 'in-progress>ended_by_assistant', 'in-progress>ended',
  ]);
  it('allows exactly the transitions of CONTRACT §6 (and ending by the service)', () => {
    for (const from of CALL_STATUSES) for (const to of CALL_STATUSES) expect(canTransition(from, to), `${from}>${to}`).toBe(allowed.has(`${from}>${to}`));
  });
});

describe('transitionCall', () => {
  it('persists each step with its fields and moves updated_at', async () => {
    const id = await newCall();
    const before = await read(id);
    expect(await transitionCall(t.service.ctx.database.pool, log, id, 'initiated', 'ringing')).toEqual({ userId });
    const ringing = await read(id);
    expect(ringing.status).toBe('ringing');
    expect(new Date(ringing.updated_at).getTime()).toBeGreaterThan(new Date(before.updated_at).getTime());
    await transitionCall(t.service.ctx.database.pool, log, id, 'ringing', 'in-progress', { answeredBy: 'human', answeredAt: NOW });
    const live = await read(id);
    expect(live).toMatchObject({ status: 'in-progress', answered_by: 'human' });
    expect(live.answered_at).not.toBeNull();
    await transitionCall(t.service.ctx.database.pool, log, id, 'in-progress', 'completed', { transcript: 'AI: hi' });
    expect(await read(id)).toMatchObject({ status: 'completed', transcript: 'AI: hi' });
  });

  it('logs and refuses an illegal transition, changing nothing', async () => {
    const id = await newCall('completed');
    logged.length = 0;
    expect(await transitionCall(t.service.ctx.database.pool, log, id, 'completed', 'in-progress')).toBeNull();
    expect(await read(id)).toMatchObject({ status: 'completed' });
    expect(logged).toContainEqual(expect.objectContaining({ level: 50, msg: 'illegal call status transition refused', from: 'completed', to: 'in-progress' }));
    const fresh = await newCall();
    expect(await transitionCall(t.service.ctx.database.pool, log, fresh, 'initiated', 'completed')).toBeNull();
    expect((await read(fresh)).status).toBe('initiated');
  });

  it('refuses when the call is no longer in the expected status (someone else moved it)', async () => {
    const id = await newCall('ringing');
    logged.length = 0;
    expect(await transitionCall(t.service.ctx.database.pool, log, id, 'initiated', 'ringing')).toBeNull();
    expect((await read(id)).status).toBe('ringing');
    expect(logged.some((l) => l.level === 40)).toBe(true);
  });
});
