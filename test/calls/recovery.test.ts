/**
 * Crash recovery: live calls whose owning process is dead are ended (`ended`) with their
 * call-finished event; calls of live processes are left alone.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../src/calls/index.js';
import { HEARTBEAT_GAP_MS, HeartbeatWatch, recoverOrphans, STALE_AFTER_SECONDS } from '../../src/calls/recovery.js';
import { freePort } from '../../src/db/embedded.js';
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
    await recoverOrphans({ pool, log, events: t.service.ctx.services.callEvents, instanceId: me, running: new Set(), canJudgeOthers: true });
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
    expect(await recoverOrphans({ pool, log, events: t.service.ctx.services.callEvents, instanceId: me, running: new Set(), canJudgeOthers: true })).toBe(0);
  });

  it('ends orphans in batches: a call whose update fails stays for the next pass, the others of its batch end', async () => {
    const { pool } = t.service.ctx.database;
    const me = t.service.ctx.instanceId;
    const ids = [await insert('in-progress', null), await insert('ringing', null), await insert('initiated', null)];
    const failing = ids[1];
    // A real failure inside the database, for this one call only.
    await pool.query(`CREATE FUNCTION test_refuse_call_update() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'refused for the test'; END; $$ LANGUAGE plpgsql`);
    await pool.query(`CREATE TRIGGER test_refuse_call_update BEFORE UPDATE ON calls FOR EACH ROW
      WHEN (OLD.id = ${failing}) EXECUTE FUNCTION test_refuse_call_update()`);
    try {
      await recoverOrphans({ pool, log, events: t.service.ctx.services.callEvents, instanceId: me, running: new Set(), canJudgeOthers: true });
      expect((await statusOf(ids[0])).status).toBe('ended');
      expect((await statusOf(failing)).status).toBe('ringing');
      expect((await statusOf(ids[2])).status).toBe('ended');
    } finally {
      await pool.query('DROP TRIGGER test_refuse_call_update ON calls');
      await pool.query('DROP FUNCTION test_refuse_call_update()');
    }
    // Only the ended calls' events went out (the failed one's was rolled back with it).
    await expect.poll(() => events.filter((e) => ids.includes(e.callId)).map((e) => e.callId).sort((a, b) => a - b), { timeout: 10_000 }).toEqual([ids[0], ids[2]]);
    await recoverOrphans({ pool, log, events: t.service.ctx.services.callEvents, instanceId: me, running: new Set(), canJudgeOthers: true });
    expect((await statusOf(failing)).status).toBe('ended');
    await expect.poll(() => events.filter((e) => e.callId === failing).length, { timeout: 10_000 }).toBe(1);
  });

  it('does not end a call this process is running', async () => {
    const me = t.service.ctx.instanceId;
    const id = await insert('in-progress', me, 300);
    const { pool } = t.service.ctx.database;
    await recoverOrphans({ pool, log, instanceId: me, running: new Set([id]), canJudgeOthers: true });
    expect((await statusOf(id)).status).toBe('in-progress');
  });

  it('runs at start-up of another instance on the same database', async () => {
    const { pool } = t.service.ctx.database;
    await pool.query(`INSERT INTO instances (id, heartbeat_at) VALUES ('crashed', now() - interval '1 hour')`);
    const id = await insert('ringing', 'crashed');
    const second = await startTestService({ parts: [callEnginePart], databaseUrl: t.databaseUrl });
    try {
      await expect.poll(async () => (await statusOf(id)).status, { timeout: 25_000, interval: 200 }).toBe('ended');
      // Both instances keep a heartbeat.
      const { rows } = await pool.query(`SELECT id FROM instances WHERE heartbeat_at > now() - interval '15 seconds'`);
      expect(rows.map((r) => r.id)).toEqual(expect.arrayContaining([t.service.ctx.instanceId, second.service.ctx.instanceId]));
    } finally {
      await second.close();
    }
  }, 40_000);

  it("leaves other instances' calls alone while this process cannot judge them; its own orphans are still ended", async () => {
    const { pool } = t.service.ctx.database;
    await pool.query(`INSERT INTO instances (id, heartbeat_at) VALUES ('stale-after-outage', now() - interval '1 minute')`);
    const me = t.service.ctx.instanceId;
    const theirs = await insert('in-progress', 'stale-after-outage');
    const mine = await insert('ringing', me, 120);
    await recoverOrphans({ pool, log, instanceId: me, running: new Set(), canJudgeOthers: false });
    expect((await statusOf(theirs)).status).toBe('in-progress');
    expect((await statusOf(mine)).status).toBe('ended');
    await recoverOrphans({ pool, log, instanceId: me, running: new Set(), canJudgeOthers: true });
    expect((await statusOf(theirs)).status).toBe('ended');
  });

  it("judges no one while the sweeper's own heartbeat row is old (the database stalled under it)", async () => {
    const { pool } = t.service.ctx.database;
    await pool.query(
      `INSERT INTO instances (id, heartbeat_at) VALUES ('owner-during-stall', now() - interval '1 minute'), ('stalled-judge', now() - interval '20 seconds')`,
    );
    const theirs = await insert('in-progress', 'owner-during-stall');
    await recoverOrphans({ pool, log, instanceId: 'stalled-judge', running: new Set(), canJudgeOthers: true });
    expect((await statusOf(theirs)).status).toBe('in-progress');
    await pool.query(`UPDATE instances SET heartbeat_at = now() WHERE id = 'stalled-judge'`);
    await recoverOrphans({ pool, log, instanceId: 'stalled-judge', running: new Set(), canJudgeOthers: true });
    expect((await statusOf(theirs)).status).toBe('ended');
  });
});

describe('HeartbeatWatch', () => {
  it('may judge others only after beats without a gap for the stale window; a failure or a gap starts it over', async () => {
    let now = 0;
    const watch = new HeartbeatWatch(t.databaseUrl, 'watch-test', () => now);
    try {
      const beatAt = async (ms: number) => {
        now = ms;
        await watch.beat();
      };
      expect(watch.canJudgeOthers()).toBe(false);
      for (let ms = 0; ms < STALE_AFTER_SECONDS * 1000; ms += 5_000) await beatAt(ms);
      expect(watch.canJudgeOthers()).toBe(false);
      await beatAt(STALE_AFTER_SECONDS * 1000);
      expect(watch.canJudgeOthers()).toBe(true);
      // Its row is really written (on its own connection).
      const { rows } = await t.service.ctx.database.pool.query(`SELECT heartbeat_at > now() - interval '5 seconds' AS fresh FROM instances WHERE id = 'watch-test'`);
      expect(rows).toEqual([{ fresh: true }]);
      // No recent beat: not any more.
      now += HEARTBEAT_GAP_MS + 1;
      expect(watch.canJudgeOthers()).toBe(false);
      // A beat after that gap starts the window over.
      await beatAt(now);
      expect(watch.canJudgeOthers()).toBe(false);
      const restart = now;
      for (let ms = restart + 5_000; ms <= restart + STALE_AFTER_SECONDS * 1000; ms += 5_000) await beatAt(ms);
      expect(watch.canJudgeOthers()).toBe(true);
    } finally {
      await watch.close();
    }

    // Its own connection: a beat goes through while every connection of the shared pool is taken.
    const { pool } = t.service.ctx.database;
    const held = await Promise.all(Array.from({ length: pool.options.max! }, () => pool.connect()));
    const ownConnection = new HeartbeatWatch(t.databaseUrl, 'watch-busy-pool');
    try {
      expect(pool.waitingCount + pool.idleCount).toBe(0);
      await ownConnection.beat();
    } finally {
      for (const c of held) c.release();
      await ownConnection.close();
    }

    // A failed beat (no database there) takes the right away at once.
    const port = await freePort();
    let failingNow = 0;
    const unreachable = new HeartbeatWatch(`postgres://postgres@127.0.0.1:${port}/none`, 'watch-unreachable', () => failingNow);
    try {
      await expect(unreachable.beat()).rejects.toThrow();
      failingNow = 60_000;
      expect(unreachable.canJudgeOthers()).toBe(false);
    } finally {
      await unreachable.close();
    }
  });
});
