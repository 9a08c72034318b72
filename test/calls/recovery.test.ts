/**
 * Crash recovery: live calls whose owning process is dead are ended (`ended`) with their
 * call-finished event; calls of live processes are left alone.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../src/calls/index.js';
import { recoverOrphans } from '../../src/calls/recovery.js';
import type { CallFinished } from '../../src/calls/events.js';
import { calls } from '../../src/db/schema.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService } from '../support/service.js';

const log = pino({ level: 'silent' });
let t: TestService;
let userId: number;
let assistantId: number;
const events: CallFinished[] = [];

beforeAll(async () => {
  t = await startTestService({ parts: [callEnginePart] });
  await t.service.ctx.services.callEvents!.subscribe('test-call-finished', async (e) => void events.push(e), { pollingIntervalSeconds: 0.5 });
  userId = (await t.createUser()).id;
  assistantId = (await insertAssistant(t, userId)).id;
});
afterAll(() => t.close());

async function insert(status: string, owner: string | null, updatedAgoSec = 0) {
  const [row] = await t.service.ctx.database.db
    .insert(calls)
    .values({
      userId,
      assistantId,
      assistantName: 'A',
      type: 'outbound',
      status,
      clientPhoneNumber: '+4915123456700',
      ownerInstance: owner,
      updatedAt: new Date(Date.now() - updatedAgoSec * 1000).toISOString(),
    })
    .returning();
  return row.id;
}

async function statusOf(id: number) {
  const { rows } = await t.service.ctx.database.pool.query('SELECT status, ended_at FROM calls WHERE id = $1', [id]);
  return rows[0];
}

describe('recoverOrphans', () => {
  it('ends live calls of dead or unknown owners and of no owner, with their events; leaves live owners alone', async () => {
    const { pool } = t.service.ctx.database;
    await pool.query(`INSERT INTO instances (id, heartbeat_at) VALUES ('dead', now() - interval '1 minute'), ('alive', now())`);
    const me = t.service.ctx.instanceId;
    const orphans = [
      await insert('in-progress', 'dead'),
      await insert('ringing', 'ghost'),
      await insert('initiated', null),
      await insert('initiated', me, 120), // ours, but not running and untouched for two minutes
    ];
    const kept = [await insert('in-progress', 'alive'), await insert('initiated', me), await insert('completed', 'dead')];
    await recoverOrphans({ pool, log, events: t.service.ctx.services.callEvents, instanceId: me, running: new Set() });
    for (const id of orphans) {
      const row = await statusOf(id);
      expect(row.status, String(id)).toBe('ended');
      expect(row.ended_at).not.toBeNull();
    }
    expect((await statusOf(kept[0])).status).toBe('in-progress');
    expect((await statusOf(kept[1])).status).toBe('initiated');
    expect((await statusOf(kept[2])).status).toBe('completed');
    await expect.poll(() => events.map((e) => e.callId).sort((a, b) => a - b), { timeout: 10_000 }).toEqual(orphans);
    expect(events.every((e) => e.userId === userId)).toBe(true);
    // A second sweep finds nothing to do and emits nothing more.
    expect(await recoverOrphans({ pool, log, events: t.service.ctx.services.callEvents, instanceId: me, running: new Set() })).toBe(0);
  });

  it('does not end a call this process is running', async () => {
    const me = t.service.ctx.instanceId;
    const id = await insert('in-progress', me, 300);
    const { pool } = t.service.ctx.database;
    await recoverOrphans({ pool, log, instanceId: me, running: new Set([id]) });
    expect((await statusOf(id)).status).toBe('in-progress');
  });

  it('runs at start-up of another instance on the same database', async () => {
    const { pool } = t.service.ctx.database;
    await pool.query(`INSERT INTO instances (id, heartbeat_at) VALUES ('crashed', now() - interval '1 hour')`);
    const id = await insert('ringing', 'crashed');
    const second = await startTestService({ parts: [callEnginePart], databaseUrl: t.databaseUrl });
    try {
      await expect.poll(async () => (await statusOf(id)).status, { timeout: 8_000, interval: 200 }).toBe('ended');
      // Both instances keep a heartbeat.
      const { rows } = await pool.query(`SELECT id FROM instances WHERE heartbeat_at > now() - interval '15 seconds'`);
      expect(rows.map((r) => r.id)).toEqual(expect.arrayContaining([t.service.ctx.instanceId, second.service.ctx.instanceId]));
    } finally {
      await second.close();
    }
  });
});
