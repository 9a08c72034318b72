/**
 * Two service instances (each with its own pool, call engine and dialer) on one PostgreSQL
 * database run one campaign of 300 leads through the sandbox carrier at
 * SANDBOX_TIME_SCALE=0.01 (CONTRACT §5, issue 7 "Must show").
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullProcess } from '../../src/compose.js';
import { leads, secondaryContacts } from '../../src/db/schema.js';
import { insertAssistant, insertCampaign, insertPhoneNumber } from '../support/fixtures.js';
import { createTestDatabase, dropTestDatabase, startTestService, type TestService } from '../support/service.js';
import { attemptsPerContact, leadsWithOverlappingCalls, maxConcurrent, readCampaign, waitFor } from './checks.js';

const env = { SANDBOX_TIME_SCALE: '0.01' };
let url: string;
let a: TestService;
let b: TestService;

beforeAll(async () => {
  url = await createTestDatabase();
  a = await startTestService({ databaseUrl: url, parts: fullProcess, env });
  b = await startTestService({ databaseUrl: url, parts: fullProcess, env });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
  await dropTestDatabase(url);
});

/** Sandbox outcome by the last two digits: 91 busy, 92 no-answer, 93 failed, 94 voicemail, 95 hangs up. */
const SUFFIXES = ['10', '20', '30', '40', '50', '91', '92', '93', '94', '95'];

describe('one campaign, two instances', () => {
  it('calls 300 leads with at most 5 calls at once, no lead in two calls, every lead final', async () => {
    const user = await a.createUser({ max_calls_in_parallel: 20 });
    const phone = await insertPhoneNumber(a, user.id);
    // end_call_on_voicemail: the engine's voicemail greeting otherwise runs until max_duration (unscaled).
    const assistant = await insertAssistant(a, user.id, { phoneNumberId: phone.id, endCallOnVoicemail: true });
    // retry_interval 0 bypasses the API's 10-minute minimum so retries happen within the test.
    const campaign = await insertCampaign(a, user.id, assistant.id, { maxCallsInParallel: 5, maxRetries: 2, retryInterval: 0, retryOnVoicemail: true });
    const db = a.service.ctx.database.db;
    const rows = Array.from({ length: 300 }, (_, i) => ({
      userId: user.id,
      campaignId: campaign.id,
      phoneNumber: `+4915${String(100000 + i).padStart(7, '0')}${SUFFIXES[i % 10]}`,
      variables: { customer_name: `Lead ${i}` },
    }));
    const inserted = await db.insert(leads).values(rows).returning({ id: leads.id, phoneNumber: leads.phoneNumber });
    // Some busy leads have a secondary contact that answers.
    const busy = inserted.filter((l) => l.phoneNumber.endsWith('91')).slice(0, 10);
    await db.insert(secondaryContacts).values(busy.map((l) => ({ leadId: l.id, position: 0, phoneNumber: `+49160${l.id.toString().padStart(7, '0')}10` })));

    const started = await user.post('/api/user/campaigns/update-status', { campaign_id: campaign.id, action: 'start' });
    expect(started.body).toMatchObject({ success: true, data: { status: 'in-progress' } });

    const t0 = Date.now();
    await waitFor(
      'the campaign to complete',
      async () => {
        const done = (await user.get('/api/user/campaigns')).body.find((c: { id: number; status: string }) => c.id === campaign.id)?.status === 'completed';
        if (process.env.DIALER_TEST_DEBUG) {
          const r = await readCampaign(url, campaign.id);
          const st: Record<string, number> = {};
          for (const l of r.leads) st[l.status + (l.current_call_id ? '+call' : '')] = (st[l.status + (l.current_call_id ? '+call' : '')] ?? 0) + 1;
          const cs: Record<string, number> = {};
          for (const c of r.calls) cs[c.status] = (cs[c.status] ?? 0) + 1;
          console.log(Math.round((Date.now() - t0) / 1000), JSON.stringify(st), JSON.stringify(cs));
        }
        return done;
      },
      170_000,
      process.env.DIALER_TEST_DEBUG ? 3000 : 500,
    );
    const report = await readCampaign(url, campaign.id);
    expect(report.leads).toHaveLength(300);
    expect(report.leads.filter((l) => l.status === 'created')).toEqual([]);
    expect(report.leads.every((l) => l.current_call_id === null)).toBe(true);
    expect(report.calls.every((c) => c.end !== null)).toBe(true);
    expect(leadsWithOverlappingCalls(report.calls)).toEqual([]);
    expect(maxConcurrent(report.calls)).toBeLessThanOrEqual(5);
    expect(maxConcurrent(report.calls)).toBeGreaterThanOrEqual(2); // it did run in parallel
    for (const [key, n] of attemptsPerContact(report.calls)) expect(n, key).toBeLessThanOrEqual(2);

    // Outcomes by number: answered ones complete, the never-connecting ones used both attempts.
    const byId = new Map(report.leads.map((l) => [l.id, l]));
    for (const l of inserted) {
      const lead = byId.get(l.id)!;
      const suffix = l.phoneNumber.slice(-2);
      if (['10', '20', '30', '40', '50', '95'].includes(suffix)) expect(lead, l.phoneNumber).toMatchObject({ status: 'completed', attempts: 1 });
      else if (busy.some((x) => x.id === l.id)) expect(lead).toMatchObject({ status: 'completed', attempts: 2 });
      else expect(lead, l.phoneNumber).toMatchObject({ status: 'reached-max-retries', attempts: 2 });
    }
    // Both instances dialed.
    const dialedA = a.service.ctx.services.dialer!.dialed;
    const dialedB = b.service.ctx.services.dialer!.dialed;
    expect(dialedA + dialedB).toBe(report.calls.length);
    expect(Math.min(dialedA, dialedB)).toBeGreaterThan(0);
    // Both learned of freed slots from the database NOTIFY (not only from their sweeps).
    expect(a.service.ctx.services.dialer!.notified).toBeGreaterThan(0);
    expect(b.service.ctx.services.dialer!.notified).toBeGreaterThan(0);
    const sec = await db.select().from(secondaryContacts).where(eq(secondaryContacts.leadId, busy[0].id));
    expect(sec[0]).toMatchObject({ status: 'completed', attempts: 1 });
  }, 200_000);
});
