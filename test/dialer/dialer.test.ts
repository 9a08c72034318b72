/**
 * The dialer against a real database with a fake clock and a fake call engine: windows,
 * limits, retries and their spacing, secondary contacts, goal-incomplete and voicemail
 * retries, completion, stop/start, idempotent settlement, concurrent dialers.
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Dialer } from '../../src/dialer/dialer.js';
import { connect, type Database } from '../../src/db/pool.js';
import { calls, campaigns, leads, secondaryContacts } from '../../src/db/schema.js';
import { createLogger } from '../../src/logger.js';
import { insertAssistant, insertCampaign, insertLead, insertPhoneNumber } from '../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';
import { FakeCalls, type FakeOutcome } from './fake-calls.js';

let t: TestService;
const log = createLogger('silent');
const MIN = 60_000;

beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());
// Each test owns its campaigns; none may be dialed by the next test's dialer.
afterEach(async () => {
  await t.service.ctx.database.db.update(campaigns).set({ status: 'stopped' }).where(eq(campaigns.status, 'in-progress'));
});

interface Setup {
  user: TestUser;
  campaignId: number;
  assistantId: number;
  fake: FakeCalls;
  dialer: Dialer;
  clock: { now: Date; advance(ms: number): void; set(iso: string): void };
}

async function setup(
  campaign: Partial<typeof campaigns.$inferInsert> = {},
  opts: { userMax?: number; db?: Database } = {},
): Promise<Setup> {
  const user = await t.createUser(opts.userMax ? { max_calls_in_parallel: opts.userMax } : {});
  const phone = await insertPhoneNumber(t, user.id);
  const assistant = await insertAssistant(t, user.id, { phoneNumberId: phone.id });
  const c = await insertCampaign(t, user.id, assistant.id, { status: 'in-progress', ...campaign });
  const clock = {
    now: new Date('2026-03-06T15:00:00Z'),
    advance(ms: number) {
      this.now = new Date(this.now.getTime() + ms);
    },
    set(iso: string) {
      this.now = new Date(iso);
    },
  };
  const db = (opts.db ?? t.service.ctx.database).db;
  const fake = new FakeCalls(db);
  const dialer = new Dialer({ db, log, calls: () => fake, now: () => clock.now, sweepIntervalMs: 0, reconcileEverySweeps: 1_000_000 });
  return { user, campaignId: c.id, assistantId: assistant.id, fake, dialer, clock };
}

const db = () => t.service.ctx.database.db;

async function callsOf(campaignId: number) {
  return db().select().from(calls).where(eq(calls.campaignId, campaignId)).orderBy(asc(calls.id));
}
async function liveOf(campaignId: number) {
  return db().select().from(calls).where(and(eq(calls.campaignId, campaignId), eq(calls.status, 'initiated'))).orderBy(asc(calls.id));
}
async function lead(id: number) {
  const [row] = await db().select().from(leads).where(eq(leads.id, id));
  return row;
}
async function campaignStatus(id: number) {
  const [row] = await db().select({ status: campaigns.status }).from(campaigns).where(eq(campaigns.id, id));
  return row.status;
}
/** Finishes the campaign's only live call with `outcome` and settles it like the event would. */
async function finishOnly(s: Setup, outcome: FakeOutcome, evaluation?: Record<string, unknown>) {
  const live = await liveOf(s.campaignId);
  expect(live).toHaveLength(1);
  await s.fake.finish(live[0].id, outcome, { evaluation });
  const result = await s.dialer.onCallFinished(live[0].id);
  await s.dialer.idle();
  return { call: live[0], result };
}

describe('dialing', () => {
  it('dials due leads only inside the window (America/New_York, before and after the March change), with the lead variables', async () => {
    const s = await setup({ timezone: 'America/New_York', allowedHoursStartTime: '09:00', allowedHoursEndTime: '17:00', maxCallsInParallel: 3 });
    const l1 = await insertLead(t, s.user.id, s.campaignId, { phoneNumber: '+4915100000001', variables: { customer_name: 'Ada' } });
    const l2 = await insertLead(t, s.user.id, s.campaignId, { phoneNumber: '+4915100000002', variables: { customer_name: 'Bob' } });

    s.clock.set('2026-03-06T13:59:00Z'); // Friday 08:59 EST
    await s.dialer.sweep();
    expect(await callsOf(s.campaignId)).toHaveLength(0);

    s.clock.set('2026-03-06T14:00:00Z'); // 09:00 EST
    await s.dialer.sweep();
    const placed = await callsOf(s.campaignId);
    expect(placed).toHaveLength(2);
    const byLead = new Map(placed.map((c) => [c.leadId, c]));
    expect(byLead.get(l1.id)).toMatchObject({ assistantId: s.assistantId, clientPhoneNumber: '+4915100000001', variables: { customer_name: 'Ada' }, type: 'outbound', secondaryContactId: null });
    expect(byLead.get(l2.id)).toMatchObject({ clientPhoneNumber: '+4915100000002', variables: { customer_name: 'Bob' } });
    expect((await lead(l1.id)).currentCallId).toBe(byLead.get(l1.id)!.id);
    expect(s.fake.started.sort()).toEqual(placed.map((c) => c.id).sort());

    // Both busy: retried after 60 minutes. Monday after the change, 08:59 EDT (12:59Z) is
    // still closed although it is 13:59 in EST terms; 09:00 EDT (13:00Z) opens.
    await s.fake.finish(byLead.get(l1.id)!.id, 'busy');
    await s.fake.finish(byLead.get(l2.id)!.id, 'busy');
    await s.dialer.onCallFinished(byLead.get(l1.id)!.id);
    await s.dialer.onCallFinished(byLead.get(l2.id)!.id);
    s.clock.set('2026-03-09T12:59:00Z');
    await s.dialer.sweep();
    expect(await liveOf(s.campaignId)).toHaveLength(0);
    s.clock.set('2026-03-09T13:00:00Z');
    await s.dialer.sweep();
    expect(await liveOf(s.campaignId)).toHaveLength(2);
  });

  it('dials an overnight window (22:00–06:00) from the evening of an allowed day into the next morning', async () => {
    const s = await setup({ allowedHoursStartTime: '22:00', allowedHoursEndTime: '06:00', allowedDays: ['friday'], retryInterval: 10, maxRetries: 3 });
    const l = await insertLead(t, s.user.id, s.campaignId);
    s.clock.set('2026-03-06T21:59:00Z'); // Friday 21:59
    await s.dialer.sweep();
    expect(await callsOf(s.campaignId)).toHaveLength(0);
    s.clock.set('2026-03-07T05:40:00Z'); // Saturday 05:40: still Friday's night
    await s.dialer.sweep();
    expect(await liveOf(s.campaignId)).toHaveLength(1);
    await finishOnly(s, 'no-answer');
    s.clock.set('2026-03-07T06:00:00Z'); // due at 05:50, but the window closed at 06:00
    await s.dialer.sweep();
    expect(await liveOf(s.campaignId)).toHaveLength(0);
    s.clock.set('2026-03-13T22:00:00Z'); // next Friday 22:00
    await s.dialer.sweep();
    expect(await liveOf(s.campaignId)).toHaveLength(1);
    expect((await lead(l.id)).attempts).toBe(1);
  });

  it('never exceeds the campaign max_calls_in_parallel; a freed slot dials the next lead at once', async () => {
    const s = await setup({ maxCallsInParallel: 2 });
    for (let i = 0; i < 5; i++) await insertLead(t, s.user.id, s.campaignId, { phoneNumber: `+491510000010${i}` });
    await s.dialer.sweep();
    await s.dialer.sweep();
    let live = await liveOf(s.campaignId);
    expect(live).toHaveLength(2);
    await s.fake.finish(live[0].id, 'completed');
    s.dialer.onSlotFreed(s.user.id, s.campaignId); // what the database NOTIFY triggers
    await s.dialer.idle();
    live = await liveOf(s.campaignId);
    expect(live).toHaveLength(2);
    expect(await callsOf(s.campaignId)).toHaveLength(3);
  });

  it("never exceeds the user's max_calls_in_parallel across campaigns and make_call", async () => {
    const s = await setup({ maxCallsInParallel: 5 }, { userMax: 3 });
    const other = await insertCampaign(t, s.user.id, s.assistantId, { status: 'in-progress', maxCallsInParallel: 5 });
    for (let i = 0; i < 4; i++) {
      await insertLead(t, s.user.id, s.campaignId, { phoneNumber: `+491510000020${i}` });
      await insertLead(t, s.user.id, other.id, { phoneNumber: `+491510000030${i}` });
    }
    const direct = await s.fake.placeCall({ userId: s.user.id, assistantId: s.assistantId, to: '+4915100000399' });
    await s.dialer.sweep();
    await s.dialer.sweep();
    const [{ n }] = (await db().execute(sql`select count(*)::int as n from calls where user_id = ${s.user.id} and status = 'initiated'`)).rows as { n: number }[];
    expect(n).toBe(3);
    // The make_call call ends: one slot, taken by a campaign.
    await s.fake.finish(direct.callId, 'completed');
    s.dialer.onSlotFreed(s.user.id, null);
    await s.dialer.idle();
    const [{ m }] = (await db().execute(sql`select count(*)::int as m from calls where user_id = ${s.user.id} and status = 'initiated' and campaign_id is not null`)).rows as { m: number }[];
    expect(m).toBe(3);
  });

  it('places no calls for an inactive assistant, and resumes when it is active again', async () => {
    const s = await setup();
    await insertLead(t, s.user.id, s.campaignId);
    await db().execute(sql`update assistants set status = 'inactive' where id = ${s.assistantId}`);
    await s.dialer.sweep();
    expect(await callsOf(s.campaignId)).toHaveLength(0);
    await db().execute(sql`update assistants set status = 'active' where id = ${s.assistantId}`);
    await s.dialer.sweep();
    expect(await callsOf(s.campaignId)).toHaveLength(1);
  });

  it('never puts a lead in two calls at once, with two dialers on separate pools racing', async () => {
    const second = connect(t.databaseUrl, { max: 4 });
    try {
      const s = await setup({ maxCallsInParallel: 7 });
      const d2 = new Dialer({ db: second.db, log, calls: () => s.fake, now: () => s.clock.now, sweepIntervalMs: 0 });
      for (let i = 0; i < 20; i++) await insertLead(t, s.user.id, s.campaignId, { phoneNumber: `+49151000004${String(i).padStart(2, '0')}` });
      await Promise.all([s.dialer.sweep(), d2.sweep(), s.dialer.dialCampaign(s.campaignId), d2.dialCampaign(s.campaignId), d2.sweep()]);
      const live = await liveOf(s.campaignId);
      expect(live).toHaveLength(7);
      expect(new Set(live.map((c) => c.leadId)).size).toBe(7);
      await d2.stop();
    } finally {
      await second.close();
    }
  });
});

describe('outcomes and retries', () => {
  it('retries busy/no-answer/failed after retry_interval until max_retries, then reached-max-retries', async () => {
    const s = await setup({ maxRetries: 3, retryInterval: 10 });
    const l = await insertLead(t, s.user.id, s.campaignId);
    await s.dialer.sweep();
    const start = s.clock.now.getTime();
    const { result } = await finishOnly(s, 'busy');
    expect(result).toMatchObject({ outcome: 'retry', reason: 'busy' });
    let row = await lead(l.id);
    expect(row).toMatchObject({ status: 'created', attempts: 1, currentCallId: null });
    expect(new Date(row.nextAttemptAt!).getTime()).toBe(start + 10 * MIN);

    s.clock.advance(10 * MIN - 1000);
    await s.dialer.sweep();
    expect(await liveOf(s.campaignId)).toHaveLength(0); // not due yet
    s.clock.advance(1000);
    await s.dialer.sweep();
    await finishOnly(s, 'no-answer');
    expect((await lead(l.id)).attempts).toBe(2);

    s.clock.advance(10 * MIN);
    await s.dialer.sweep();
    const { result: last } = await finishOnly(s, 'failed');
    expect(last).toMatchObject({ outcome: 'reached-max-retries' });
    row = await lead(l.id);
    expect(row).toMatchObject({ status: 'reached-max-retries', attempts: 3, currentCallId: null });

    s.clock.advance(60 * MIN);
    await s.dialer.sweep();
    expect(await callsOf(s.campaignId)).toHaveLength(3);
    expect(await campaignStatus(s.campaignId)).toBe('completed');
  });

  it('dials the secondary contacts in order under the same rules, and completes the lead on any', async () => {
    const s = await setup({ maxRetries: 2, retryInterval: 15 });
    const l = await insertLead(t, s.user.id, s.campaignId, { phoneNumber: '+4915100000500', variables: { customer_name: 'Ada', tier: 'gold' } }, [
      { phoneNumber: '+4915100000501', variables: { customer_name: 'Ada (office)' } },
      { phoneNumber: '+4915100000502' },
    ]);
    const contacts = await db().select().from(secondaryContacts).where(eq(secondaryContacts.leadId, l.id)).orderBy(asc(secondaryContacts.position));
    const dialedNumbers: string[] = [];
    const step = async (outcome: FakeOutcome, wait: number) => {
      s.clock.advance(wait);
      await s.dialer.sweep();
      const { call, result } = await finishOnly(s, outcome);
      dialedNumbers.push(call.clientPhoneNumber);
      return { call, result };
    };
    await step('busy', 0); // primary 1/2
    const { result: r2 } = await step('no-answer', 15 * MIN); // primary 2/2 → secondary 1 at once
    expect(r2).toMatchObject({ outcome: 'next-contact' });
    // The next contact was dialed immediately (the settlement kicks the campaign).
    const live = await liveOf(s.campaignId);
    expect(live).toHaveLength(1);
    expect(live[0]).toMatchObject({ clientPhoneNumber: '+4915100000501', secondaryContactId: contacts[0].id, variables: { customer_name: 'Ada (office)', tier: 'gold' } });
    await s.fake.finish(live[0].id, 'busy');
    await s.dialer.onCallFinished(live[0].id); // secondary 1: 1/2
    dialedNumbers.push(live[0].clientPhoneNumber);
    s.clock.advance(15 * MIN - 1000);
    await s.dialer.sweep();
    expect(await liveOf(s.campaignId)).toHaveLength(0); // spacing holds for secondaries too
    const { result: r4 } = await step('failed', 1000); // secondary 1: 2/2 → secondary 2
    expect(r4).toMatchObject({ outcome: 'next-contact' });
    const [sec2call] = await liveOf(s.campaignId);
    await s.fake.finish(sec2call.id, 'completed');
    expect(await s.dialer.onCallFinished(sec2call.id)).toMatchObject({ outcome: 'completed' });
    dialedNumbers.push(sec2call.clientPhoneNumber);

    expect(dialedNumbers).toEqual(['+4915100000500', '+4915100000500', '+4915100000501', '+4915100000501', '+4915100000502']);
    expect(await lead(l.id)).toMatchObject({ status: 'completed', attempts: 2, currentCallId: null });
    const after = await db().select().from(secondaryContacts).where(eq(secondaryContacts.leadId, l.id)).orderBy(asc(secondaryContacts.position));
    expect(after.map((c) => [c.status, c.attempts])).toEqual([['reached-max-retries', 2], ['completed', 1]]);
  });

  it('reaches max retries when every contact is used up', async () => {
    const s = await setup({ maxRetries: 1 });
    const l = await insertLead(t, s.user.id, s.campaignId, {}, [{ phoneNumber: '+4915100000601' }]);
    await s.dialer.sweep();
    expect((await finishOnly(s, 'busy')).result).toMatchObject({ outcome: 'next-contact' });
    expect((await finishOnly(s, 'busy')).result).toMatchObject({ outcome: 'reached-max-retries' });
    expect(await lead(l.id)).toMatchObject({ status: 'reached-max-retries', attempts: 1 });
    expect(await campaignStatus(s.campaignId)).toBe('completed');
  });

  it('retries a connected call whose goal variable was extracted false (retry_on_goal_incomplete)', async () => {
    const s = await setup({ maxRetries: 3, retryInterval: 30, retryOnGoalIncomplete: true, goalCompletionVariable: 'booked' });
    const l = await insertLead(t, s.user.id, s.campaignId);
    await s.dialer.sweep();
    expect((await finishOnly(s, 'completed', { booked: false })).result).toMatchObject({ outcome: 'retry', reason: 'goal incomplete' });
    expect(await lead(l.id)).toMatchObject({ status: 'created', attempts: 1 });
    s.clock.advance(30 * MIN);
    await s.dialer.sweep();
    expect((await finishOnly(s, 'hangup', { booked: true })).result).toMatchObject({ outcome: 'completed' });
    expect(await lead(l.id)).toMatchObject({ status: 'completed', attempts: 2 });

    // Without retry_on_goal_incomplete the same conversation completes the lead.
    const s2 = await setup({ retryOnGoalIncomplete: false, goalCompletionVariable: 'booked' });
    const l2 = await insertLead(t, s2.user.id, s2.campaignId);
    await s2.dialer.sweep();
    await finishOnly(s2, 'completed', { booked: false });
    expect(await lead(l2.id)).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it('retries voicemail with retry_on_voicemail; without it voicemail completes the lead', async () => {
    const s = await setup({ maxRetries: 2, retryInterval: 10, retryOnVoicemail: true });
    const l = await insertLead(t, s.user.id, s.campaignId);
    await s.dialer.sweep();
    expect((await finishOnly(s, 'voicemail')).result).toMatchObject({ outcome: 'retry', reason: 'voicemail' });
    s.clock.advance(10 * MIN);
    await s.dialer.sweep();
    expect((await finishOnly(s, 'voicemail')).result).toMatchObject({ outcome: 'reached-max-retries' });
    expect(await lead(l.id)).toMatchObject({ status: 'reached-max-retries', attempts: 2 });

    const s2 = await setup({ retryOnVoicemail: false });
    const l2 = await insertLead(t, s2.user.id, s2.campaignId);
    await s2.dialer.sweep();
    expect((await finishOnly(s2, 'voicemail')).result).toMatchObject({ outcome: 'completed', reason: 'voicemail' });
    expect(await lead(l2.id)).toMatchObject({ status: 'completed' });
  });

  it('counts a call ended by the service without a conversation as an attempt, never a completion', async () => {
    const s = await setup({ maxRetries: 2, retryInterval: 10 });
    const l = await insertLead(t, s.user.id, s.campaignId);
    await s.dialer.sweep();
    expect((await finishOnly(s, 'ended-no-conversation')).result).toMatchObject({ outcome: 'retry' });
    expect(await lead(l.id)).toMatchObject({ status: 'created', attempts: 1 });
    s.clock.advance(10 * MIN);
    await s.dialer.sweep();
    expect((await finishOnly(s, 'ended-with-conversation')).result).toMatchObject({ outcome: 'completed' });
  });

  it('settles a call once: a repeated call-finished event changes nothing', async () => {
    const s = await setup({ maxRetries: 3 });
    const l = await insertLead(t, s.user.id, s.campaignId);
    await s.dialer.sweep();
    const { call } = await finishOnly(s, 'busy');
    expect(await s.dialer.onCallFinished(call.id)).toBeNull();
    expect(await s.dialer.onCallFinished(call.id)).toBeNull();
    expect((await lead(l.id)).attempts).toBe(1);
  });

  it('reconciles a lead whose call finished without an event, and releases one whose call record is gone', async () => {
    const s = await setup({ maxRetries: 3, maxCallsInParallel: 2 });
    const a = await insertLead(t, s.user.id, s.campaignId, { phoneNumber: '+4915100000701' });
    const b = await insertLead(t, s.user.id, s.campaignId, { phoneNumber: '+4915100000702' });
    await s.dialer.sweep();
    const [ca, cb] = await liveOf(s.campaignId);
    await s.fake.finish(ca.id, 'completed');
    await db().delete(calls).where(eq(calls.id, cb.id));
    const reconciler = new Dialer({ db: db(), log, calls: () => s.fake, now: () => s.clock.now, sweepIntervalMs: 0, reconcileGraceSeconds: 0 });
    await new Promise((r) => setTimeout(r, 20));
    expect(await reconciler.reconcile()).toBeGreaterThanOrEqual(2);
    const byPhone = new Map([[ca.leadId, await lead(ca.leadId!)], [b.id, await lead(b.id)]]);
    expect(byPhone.get(ca.leadId!)).toMatchObject({ status: 'completed', currentCallId: null });
    const other = ca.leadId === a.id ? b.id : a.id;
    expect(await lead(other)).toMatchObject({ status: 'created', currentCallId: null, attempts: 0 });
  });

  it('reconciles leads in batches: a lead whose settlement fails stays for the next pass, the others of its batch settle', async () => {
    const s = await setup({ maxRetries: 3, maxCallsInParallel: 3 });
    for (const n of [1, 2, 3]) await insertLead(t, s.user.id, s.campaignId, { phoneNumber: `+491510000080${n}` });
    await s.dialer.sweep();
    const live = await liveOf(s.campaignId);
    expect(live).toHaveLength(3);
    for (const c of live) await s.fake.finish(c.id, 'busy');
    const failing = live[1].leadId!;
    // A real failure inside the database, for this one lead only.
    const { pool } = t.service.ctx.database;
    await pool.query(`CREATE FUNCTION test_refuse_lead_update() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'refused for the test'; END; $$ LANGUAGE plpgsql`);
    await pool.query(`CREATE TRIGGER test_refuse_lead_update BEFORE UPDATE ON leads FOR EACH ROW
      WHEN (OLD.id = ${failing}) EXECUTE FUNCTION test_refuse_lead_update()`);
    const reconciler = new Dialer({ db: db(), log, calls: () => s.fake, now: () => s.clock.now, sweepIntervalMs: 0, reconcileGraceSeconds: 0 });
    await new Promise((r) => setTimeout(r, 20));
    try {
      await reconciler.reconcile();
      for (const c of live) {
        if (c.leadId === failing) expect(await lead(c.leadId)).toMatchObject({ currentCallId: c.id, attempts: 0 });
        else expect(await lead(c.leadId!)).toMatchObject({ status: 'created', currentCallId: null, attempts: 1 });
      }
    } finally {
      await pool.query('DROP TRIGGER test_refuse_lead_update ON leads');
      await pool.query('DROP FUNCTION test_refuse_lead_update()');
    }
    // The next pass settles it; the others are not counted twice.
    await reconciler.reconcile();
    for (const c of live) expect(await lead(c.leadId!)).toMatchObject({ status: 'created', currentCallId: null, attempts: 1 });
  });
});

describe('leads in a call (CONTRACT §4/§5)', () => {
  it('a lead in a live call can be neither deleted nor given another status; once settled it can', async () => {
    const s = await setup();
    const l = await insertLead(t, s.user.id, s.campaignId);
    await s.dialer.sweep();
    expect((await lead(l.id)).currentCallId).not.toBeNull();
    const del = await s.user.delete(`/api/user/leads/${l.id}`);
    expect(del.status).toBe(409);
    const put = await s.user.put(`/api/user/leads/${l.id}`, { status: 'completed' });
    expect(put.status).toBe(422);
    expect(put.body.errors.status).toEqual(['The status is assigned automatically and cannot be set manually.']);
    await finishOnly(s, 'busy');
    expect((await lead(l.id)).currentCallId).toBeNull();
    expect((await s.user.delete(`/api/user/leads/${l.id}`)).status).toBe(200);
  });

  it('a final status the client set after the call ended but before settlement stands; the attempt still counts', async () => {
    const s = await setup({ maxRetries: 3 });
    const l = await insertLead(t, s.user.id, s.campaignId);
    await s.dialer.sweep();
    const [call] = await liveOf(s.campaignId);
    await s.fake.finish(call.id, 'busy');
    const put = await s.user.put(`/api/user/leads/${l.id}`, { status: 'completed' });
    expect(put.status).toBe(200);
    expect(await s.dialer.onCallFinished(call.id)).toMatchObject({ outcome: 'released' });
    expect(await lead(l.id)).toMatchObject({ status: 'completed', attempts: 1, currentCallId: null });
    await s.dialer.sweep();
    expect(await callsOf(s.campaignId)).toHaveLength(1);
  });
});

describe('campaign lifecycle', () => {
  it('completes the campaign when nothing callable is left, only with mark_complete_when_no_leads', async () => {
    const s = await setup();
    await insertLead(t, s.user.id, s.campaignId);
    await s.dialer.sweep();
    await s.dialer.sweep();
    expect(await campaignStatus(s.campaignId)).toBe('in-progress'); // the lead is in its call
    await finishOnly(s, 'completed');
    expect(await campaignStatus(s.campaignId)).toBe('completed');

    const keep = await setup({ markCompleteWhenNoLeads: false });
    await insertLead(t, keep.user.id, keep.campaignId);
    await keep.dialer.sweep();
    await finishOnly(keep, 'completed');
    await keep.dialer.sweep();
    expect(await campaignStatus(keep.campaignId)).toBe('in-progress');
  });

  it('stop places no new calls while the call in flight still settles its lead; start resumes', async () => {
    const s = await setup({ maxCallsInParallel: 1 });
    const leadsIn = [];
    for (let i = 0; i < 3; i++) leadsIn.push(await insertLead(t, s.user.id, s.campaignId, { phoneNumber: `+491510000080${i}` }));
    await s.dialer.sweep();
    const [first] = await liveOf(s.campaignId);

    const stop = await s.user.post('/api/user/campaigns/update-status', { campaign_id: s.campaignId, action: 'stop' });
    expect(stop.body).toMatchObject({ data: { status: 'stopped' } });
    await s.fake.finish(first.id, 'completed');
    expect(await s.dialer.onCallFinished(first.id)).toMatchObject({ outcome: 'completed' });
    s.dialer.onSlotFreed(s.user.id, s.campaignId);
    await s.dialer.sweep();
    expect(await callsOf(s.campaignId)).toHaveLength(1);
    expect(await campaignStatus(s.campaignId)).toBe('stopped');

    const start = await s.user.post('/api/user/campaigns/update-status', { campaign_id: s.campaignId, action: 'start' });
    expect(start.body).toMatchObject({ data: { status: 'in-progress' } });
    // A new dialer (e.g. after a restart) picks the running campaign up on its first sweep.
    const restarted = new Dialer({ db: db(), log, calls: () => s.fake, now: () => s.clock.now, sweepIntervalMs: 0 });
    await restarted.sweep();
    const live = await liveOf(s.campaignId);
    expect(live).toHaveLength(1);
    expect(live[0].leadId).not.toBe(first.leadId);
  });

  it('a stopped dialer places no calls', async () => {
    const s = await setup();
    await insertLead(t, s.user.id, s.campaignId);
    await s.dialer.stop();
    await s.dialer.sweep();
    expect(await callsOf(s.campaignId)).toHaveLength(0);
  });
});
