/**
 * Crash test (issue 7 "Must show"): a service process is SIGKILLed in the middle of a
 * campaign and started again. The restarted process's recovery ends the dead process's live
 * calls (`ended`, with the call-finished event), the dialer settles their leads, and the
 * campaign finishes: every lead final, no contact over max_retries attempts, no lead in two
 * calls at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leads } from '../../src/db/schema.js';
import { insertAssistant, insertCampaign, insertPhoneNumber } from '../support/fixtures.js';
import { createTestDatabase, dropTestDatabase, startTestService, type TestService } from '../support/service.js';
import { attemptsPerContact, leadsWithOverlappingCalls, maxConcurrent, readCampaign, waitFor } from './checks.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
let url: string;
let t: TestService;
const children: ChildProcess[] = [];

function startChild(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'crash-child.ts')], {
    cwd: root,
    env: { ...process.env, CRASH_DATABASE_URL: url, SANDBOX_TIME_SCALE: '0.05' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c) => {
      out += c;
      if (out.includes('READY')) resolve(child);
    });
    child.stderr!.on('data', (c) => (out += c));
    child.once('exit', (code) => reject(new Error(`child exited (${code}) before it was ready:\n${out}`)));
  });
}

async function query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  url = await createTestDatabase();
  t = await startTestService({ databaseUrl: url });
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await t?.close();
  await dropTestDatabase(url);
});

const SUFFIXES = ['10', '20', '30', '40', '91', '92', '94', '95'];

describe('a crash mid-campaign', () => {
  it('loses no lead and never exceeds max_retries after a SIGKILL and a restart', async () => {
    const user = await t.createUser();
    const phone = await insertPhoneNumber(t, user.id);
    const assistant = await insertAssistant(t, user.id, { phoneNumberId: phone.id, endCallOnVoicemail: true });
    // retry_interval 0 (bypassing the API's minimum) so retries happen within the test.
    const campaign = await insertCampaign(t, user.id, assistant.id, { maxCallsInParallel: 5, maxRetries: 2, retryInterval: 0, retryOnVoicemail: true });
    await t.service.ctx.database.db.insert(leads).values(
      Array.from({ length: 60 }, (_, i) => ({
        userId: user.id,
        campaignId: campaign.id,
        phoneNumber: `+4917${String(200000 + i).padStart(7, '0')}${SUFFIXES[i % SUFFIXES.length]}`,
      })),
    );

    const first = await startChild();
    expect((await user.post('/api/user/campaigns/update-status', { campaign_id: campaign.id, action: 'start' })).status).toBe(200);
    // Kill it while calls are live, a good way into the campaign.
    const liveAtKill = await waitFor(
      'calls in flight mid-campaign',
      async () => {
        const [r] = await query<{ total: number; live: number }>(
          `select count(*)::int as total, count(*) filter (where status in ('initiated','ringing','in-progress'))::int as live
             from calls where campaign_id = $1`,
          [campaign.id],
        );
        return r.total >= 15 && r.live >= 2 ? r.live : null;
      },
      60_000,
      20,
    );
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const [{ stuck }] = await query<{ stuck: number }>(
      `select count(*)::int as stuck from calls where campaign_id = $1 and status in ('initiated','ringing','in-progress')`,
      [campaign.id],
    );
    expect(stuck).toBeGreaterThan(0); // the dead process left live calls behind
    expect(liveAtKill).toBeGreaterThan(0);

    const second = await startChild();
    await waitFor(
      'the campaign to complete after the restart',
      async () => (await query<{ status: string }>('select status from campaigns where id = $1', [campaign.id]))[0].status === 'completed',
      110_000,
      500,
    );
    second.kill('SIGTERM');

    const report = await readCampaign(url, campaign.id);
    expect(report.leads.filter((l) => l.status === 'created')).toEqual([]);
    expect(report.leads.every((l) => l.current_call_id === null && l.attempts <= 2)).toBe(true);
    for (const [key, n] of attemptsPerContact(report.calls)) expect(n, key).toBeLessThanOrEqual(2);
    expect(report.calls.every((c) => c.end !== null)).toBe(true);
    expect(leadsWithOverlappingCalls(report.calls)).toEqual([]);
    expect(maxConcurrent(report.calls)).toBeLessThanOrEqual(5);
    // The calls the crash cut off were ended by the service and counted as attempts.
    const ended = report.calls.filter((c) => c.status === 'ended');
    expect(ended.length).toBeGreaterThanOrEqual(stuck);
    for (const c of ended) {
      const lead = report.leads.find((l) => l.id === c.lead_id)!;
      expect(lead.attempts).toBeGreaterThanOrEqual(1);
    }
  }, 180_000);
});
