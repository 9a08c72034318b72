/**
 * `/metrics` after a small sandbox campaign with webhooks: the call, dialer and webhook
 * counters equal what the database says happened; HTTP requests are counted by route
 * pattern; the scrape needs the admin token or METRICS_TOKEN.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullProcess } from '../../src/compose.js';
import { leads } from '../../src/db/schema.js';
import { readCampaign, waitFor } from '../dialer/checks.js';
import { insertAssistant, insertCampaign, insertPhoneNumber } from '../support/fixtures.js';
import { parseExposition, total, type Sample } from '../support/prometheus.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { ADMIN_TOKEN, startTestService, type TestService, type TestUser } from '../support/service.js';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
let t: TestService;
let user: TestUser;
let receiver: Receiver;

beforeAll(async () => {
  t = await startTestService({
    parts: fullProcess,
    env: { SANDBOX_TIME_SCALE: '0.01', ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '0.2,0.2', METRICS_TOKEN },
  });
  user = await t.createUser({ max_calls_in_parallel: 10 });
  // The first delivery fails once (a retry), every other one is accepted.
  receiver = await startReceiver((_req, n) => (n === 0 ? { status: 503 } : { status: 200, body: '{"ok":true}' }));
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

async function scrape(token: string): Promise<{ status: number; samples: Sample[]; type?: string }> {
  const res = await t.service.app.inject({ method: 'GET', url: '/metrics', headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.statusCode, samples: res.statusCode === 200 ? parseExposition(res.body) : [], type: res.headers['content-type'] as string };
}

async function query<T>(text: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: t.databaseUrl });
  await c.connect();
  try {
    return (await c.query(text, values)).rows as T[];
  } finally {
    await c.end();
  }
}

describe('/metrics', () => {
  it('answers only the admin token and METRICS_TOKEN', async () => {
    expect((await scrape('')).status).toBe(401);
    expect((await scrape(user.token)).status).toBe(401);
    expect((await scrape('metrics-token-wrong-0123456789')).status).toBe(401);
    const withAdmin = await scrape(ADMIN_TOKEN);
    expect(withAdmin.status).toBe(200);
    expect(withAdmin.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect((await scrape(METRICS_TOKEN)).status).toBe(200);
  });

  it('counts calls, claims, lead outcomes and webhook attempts exactly as they happened', async () => {
    const phone = await insertPhoneNumber(t, user.id);
    const assistant = await insertAssistant(t, user.id, {
      phoneNumberId: phone.id,
      endCallOnVoicemail: true,
      isWebhookActive: true,
      webhookUrl: `${receiver.url}/hook`,
      sendWebhookOnlyOnCompleted: false, // every call's result, so every call is one delivery
    });
    const campaign = await insertCampaign(t, user.id, assistant.id, { maxCallsInParallel: 4, maxRetries: 2, retryInterval: 0 });
    // Converse, converse, busy (retried), no-answer (retried), failed (retried), voicemail, hangs up.
    const suffixes = ['10', '20', '91', '92', '93', '94', '95'];
    await t.service.ctx.database.db.insert(leads).values(
      suffixes.map((s, i) => ({ userId: user.id, campaignId: campaign.id, phoneNumber: `+4915123450${i}${s}`, variables: {} })),
    );
    const before = (await scrape(ADMIN_TOKEN)).samples;
    expect(total(before, 'switchboard_calls_finished_total')).toBe(0);

    expect((await user.post('/api/user/campaigns/update-status', { campaign_id: campaign.id, action: 'start' })).status).toBe(200);
    await waitFor('the campaign to complete', async () => (await readCampaign(t.databaseUrl, campaign.id)).leads.every((l) => l.status !== 'created'), 60_000);
    const report = await readCampaign(t.databaseUrl, campaign.id);
    // Every call's webhook delivered (one of them on its second attempt).
    await waitFor(
      'every webhook delivered',
      async () => (await query<{ n: number }>(`select count(distinct call_id)::int as n from webhook_deliveries where status_code = 200`))[0].n === report.calls.length,
      30_000,
    );

    const s = (await scrape(METRICS_TOKEN)).samples;
    // Calls by final status, as recorded.
    const byStatus = await query<{ status: string; n: number }>(`select status, count(*)::int as n from calls group by status`);
    expect(report.calls.length).toBeGreaterThan(suffixes.length); // retries happened
    for (const { status, n } of byStatus) expect(total(s, 'switchboard_calls_finished_total', { status }), status).toBe(n);
    expect(total(s, 'switchboard_calls_finished_total')).toBe(report.calls.length);
    expect(total(s, 'switchboard_dialer_claims_total')).toBe(report.calls.length);
    expect(total(s, 'switchboard_dialer_leads_settled_total')).toBe(report.calls.length);
    expect(total(s, 'switchboard_dialer_leads_settled_total', { outcome: 'retry' })).toBe(report.calls.length - suffixes.length);
    expect(total(s, 'switchboard_calls_live')).toBe(0);
    expect(total(s, 'switchboard_dialer_backlog')).toBe(0);
    // Webhooks: one attempt per logged delivery, by outcome.
    const attempts = await query<{ ok: boolean; n: number }>(`select status_code = 200 as ok, count(*)::int as n from webhook_deliveries group by 1`);
    const delivered = attempts.find((a) => a.ok)?.n ?? 0;
    const failed = attempts.find((a) => !a.ok)?.n ?? 0;
    expect(delivered).toBe(report.calls.length);
    expect(failed).toBe(1);
    expect(total(s, 'switchboard_webhook_attempts_total', { outcome: 'delivered' })).toBe(delivered);
    expect(total(s, 'switchboard_webhook_attempts_total', { outcome: 'retry' })).toBe(failed);
    expect(total(s, 'switchboard_webhook_attempts_total')).toBe(receiver.received.length);
    expect(total(s, 'switchboard_webhook_pending_retries')).toBe(0);
  }, 90_000);

  it('counts HTTP requests by route pattern and status, with latency histograms', async () => {
    const before = (await scrape(ADMIN_TOKEN)).samples;
    const route = { method: 'GET', route: '/api/user/calls/:id' };
    const ok = (await user.get('/api/user/calls?per_page=1')).body.data[0].id as number;
    await user.get(`/api/user/calls/${ok}`);
    await user.get(`/api/user/calls/${ok}`);
    await user.get('/api/user/calls/999999');
    const s = (await scrape(ADMIN_TOKEN)).samples;
    const delta = (name: string, labels: Record<string, string>) => total(s, name, labels) - total(before, name, labels);
    expect(delta('switchboard_http_requests_total', { ...route, status: '200' })).toBe(2);
    expect(delta('switchboard_http_requests_total', { ...route, status: '404' })).toBe(1);
    expect(delta('switchboard_http_request_duration_seconds_count', { ...route, status: '200' })).toBe(2);
    expect(total(s, 'switchboard_http_request_duration_seconds_bucket', { ...route, status: '200', le: '+Inf' })).toBe(2);
    // No series per raw path.
    expect(s.some((x) => x.labels.route?.includes(String(ok)))).toBe(false);
  });

  it('reports event-loop delay, pool usage and voice turn stages', async () => {
    t.service.ctx.services.metrics!.turnStage('llm_first_token', 420);
    const s = (await scrape(ADMIN_TOKEN)).samples;
    expect(s.some((x) => x.name === 'nodejs_eventloop_lag_seconds')).toBe(true);
    expect(s.some((x) => x.name === 'nodejs_eventloop_lag_p99_seconds')).toBe(true);
    expect(total(s, 'switchboard_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
    expect(total(s, 'switchboard_db_pool_max')).toBe(5);
    expect(total(s, 'switchboard_voice_turn_stage_seconds_count', { stage: 'llm_first_token' })).toBe(1);
    expect(total(s, 'switchboard_voice_turn_stage_seconds_bucket', { stage: 'llm_first_token', le: '0.5' })).toBe(1);
    expect(total(s, 'switchboard_voice_turn_stage_seconds_bucket', { stage: 'llm_first_token', le: '0.3' })).toBe(0);
  });
});
