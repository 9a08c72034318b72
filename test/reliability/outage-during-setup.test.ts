/**
 * A database outage while a campaign's calls are being set up (issue 27 item 1). The real entry
 * point (`src/main.ts`) on a throw-away PostgreSQL 15 cluster runs a campaign of 20 sandbox
 * leads (max_retries 3) with a webhook to a local receiver; once every call is dialled the
 * cluster is killed (immediate stop) for 1 s, and in a second campaign for 15 s — longer than
 * the calls themselves, whose final records then wait for the database. Before the fix the
 * ringing/in-progress transitions were dropped, the final transition from `initiated` was
 * illegal and forced to `ended`, the webhooks said `ended` and the dialer scheduled the leads
 * again. Now: every call that conversed is `completed` with its `answered_at` (the time the
 * customer answered, not the time the database came back), its webhook says `completed`, every
 * lead is completed by its one call, and no call is left live.
 *
 * Needs PostgreSQL 15's server binaries and root (for `runuser -u postgres`); skipped elsewhere.
 * Runs once, in the embedded project (the cluster is its own, not the run's database). About a
 * minute (the 15 s outage, a cluster and a service process started): part of `npm test`; alone,
 * `npm run test:db-outage`.
 * @one-database: it runs on a PostgreSQL 15 cluster of its own, the same in either test project.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMain, stopMain, type MainProcess } from '../support/main-process.js';
import { canRunCluster, startCluster, type PgCluster } from '../support/pg-cluster.js';
import { sleep, startReceiver, waitUntil, type Receiver } from '../support/receiver.js';

const canRun = canRunCluster();
const ADMIN_TOKEN = 'setup-outage-admin-token-0123456789abcdef';
const LEADS = 20;

let cluster: PgCluster | undefined;
let main: MainProcess | undefined;
let receiver: Receiver | undefined;
let token = '';
let assistantId = 0;

async function api(method: string, url: string, auth: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${main!.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${auth}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

async function query<T>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: cluster!.url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  if (!canRun) return;
  cluster = await startCluster('sb-setup-outage-');
  receiver = await startReceiver();
  main = await startMain({
    DATABASE_URL: cluster.url,
    ADMIN_TOKEN,
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    // Half pace: ringing 0.15 s after dialling, answered 1.5 s later, a conversation of a few seconds.
    SANDBOX_TIME_SCALE: '0.5',
    RATE_LIMIT_PER_MINUTE: '0',
    ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1',
  });
  const user = await api('POST', '/api/admin/users', ADMIN_TOKEN, { name: 'Setup outage', email: 'setup-outage@example.test', max_calls_in_parallel: 50 });
  expect(user.status, JSON.stringify(user.body)).toBe(201);
  token = user.body.token;
  const number = await api('POST', `/api/admin/users/${user.body.data.id}/phone-numbers`, ADMIN_TOKEN, { phone_number: '+493012345678', type_label: 'Normal' });
  expect(number.status, JSON.stringify(number.body)).toBe(201);
  const assistant = await api('POST', '/api/user/assistant', token, {
    assistant_name: 'Setup outage',
    voice_id: 1,
    calls_direction: 'make',
    phone_number_id: number.body.data.id,
    initial_message: 'Hi, this is a short call.',
    is_webhook_active: true,
    send_webhook_only_on_completed: false,
    webhook_url: `${receiver.url}/hook`,
  });
  expect(assistant.status, JSON.stringify(assistant.body)).toBe(201);
  assistantId = assistant.body.data.id;
}, 120_000);

afterAll(async () => {
  if (main && main.child.exitCode === null && main.child.signalCode === null) main.child.kill('SIGKILL');
  await receiver?.close();
  cluster?.remove();
});

describe.runIf(canRun)('the database killed while 20 calls are being set up', () => {
  it.each([1_000, 15_000])('for %i ms: every conversation is recorded completed with its answer, its webhook says so, no lead is dialled again', async (outageMs) => {
    const campaign = await api('POST', '/api/user/campaigns', token, { name: `Outage ${outageMs}`, assistant_id: assistantId, max_calls_in_parallel: LEADS, max_retries: 3 });
    expect(campaign.status, JSON.stringify(campaign.body)).toBe(201);
    const campaignId: number = campaign.body.data.id;
    const leads = await api('POST', '/api/user/leads/bulk', token, {
      campaign_id: campaignId,
      leads: Array.from({ length: LEADS }, (_, i) => ({ phone_number: `+49151${outageMs === 1_000 ? 3 : 4}${1_000_000 + i * 10}` })),
    });
    expect(leads.status, JSON.stringify(leads.body)).toBe(200);
    expect(leads.body.data.created, JSON.stringify(leads.body)).toHaveLength(LEADS);
    expect((await api('POST', '/api/user/campaigns/update-status', token, { campaign_id: campaignId, action: 'start' })).status).toBe(200);

    // Every call dialled (none still `initiated`), then the database goes away mid set-up.
    let seen: unknown;
    await waitUntil(
      async () => {
        const [r] = await query<{ n: number; initiated: number }>(`SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'initiated')::int AS initiated FROM calls WHERE campaign_id = $1`, [campaignId]);
        seen = r;
        return r.n === LEADS && r.initiated === 0;
      },
      30_000,
      'every call of the campaign dialled',
    ).catch((err: Error) => {
      throw new Error(`${err.message} (last seen: ${JSON.stringify(seen)})`);
    });
    const logFrom = main!.stdout().length;
    cluster!.stop('immediate');
    await sleep(outageMs);
    cluster!.start();
    const backAt = Date.now();

    await waitUntil(
      async () => {
        const [r] = await query<{ busy: number }>(
          `SELECT (SELECT count(*)::int FROM calls WHERE campaign_id = $1 AND status IN ('initiated', 'ringing', 'in-progress'))
                + (SELECT count(*)::int FROM leads WHERE campaign_id = $1 AND current_call_id IS NOT NULL) AS busy`,
          [campaignId],
        );
        return r.busy === 0;
      },
      60_000,
      'every call ended and every lead settled',
    );
    const calls = await query<{ id: number; lead_id: number; status: string; answered_at: Date | null; ended_at: Date; transcript: string }>(
      'SELECT id, lead_id, status, answered_at, ended_at, transcript FROM calls WHERE campaign_id = $1 ORDER BY id',
      [campaignId],
    );
    const leadRows = await query<{ id: number; status: string; attempts: number }>('SELECT id, status, attempts FROM leads WHERE campaign_id = $1 ORDER BY id', [campaignId]);
    const ids = new Set(calls.map((c) => c.id));
    await waitUntil(() => new Set(hooks().filter((h) => ids.has(h.id)).map((h) => h.id)).size === LEADS, 30_000, "every call's webhook");

    // The 15 s outage surely meets the calls' transitions (else this test shows nothing); the 1 s
    // one meets them on most runs, but on a loaded machine the answers may all come after it.
    const log = main!.stdout().slice(logFrom);
    if (outageMs > 5_000) expect(log).toContain('persisting a call transition failed: the database is unavailable');
    // One call per lead, each a whole conversation recorded as such.
    expect(calls).toHaveLength(LEADS);
    expect(new Set(calls.map((c) => c.lead_id)).size).toBe(LEADS);
    for (const c of calls) {
      expect(c.transcript, `call ${c.id}`).toMatch(/^Customer:/m);
      expect({ id: c.id, status: c.status, answered: c.answered_at !== null }).toEqual({ id: c.id, status: 'completed', answered: true });
      expect(c.answered_at!.getTime()).toBeLessThan(c.ended_at.getTime());
    }
    // A 15 s outage outlasts the calls: they were answered while the database was away, and say so.
    if (outageMs > 5_000) for (const c of calls) expect(c.answered_at!.getTime(), `call ${c.id} answered before the database was back`).toBeLessThan(backAt);
    expect(leadRows.map((l) => ({ status: l.status, attempts: l.attempts }))).toEqual(leadRows.map(() => ({ status: 'completed', attempts: 1 })));
    for (const h of hooks().filter((x) => ids.has(x.id))) expect(h.status, `webhook of call ${h.id}`).toBe('completed');
  }, 120_000);

  it('the service still stops cleanly afterwards', async () => {
    expect(await stopMain(main!.child)).toBe(0);
  }, 60_000);
});

function hooks(): { id: number; status: string }[] {
  return receiver!.received.filter((r) => r.path === '/hook').map((r) => JSON.parse(r.body) as { id: number; status: string });
}
