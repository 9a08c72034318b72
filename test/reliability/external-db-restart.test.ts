/**
 * The external database restarted under a running service (issue 15). A throw-away
 * PostgreSQL 15 cluster of its own (initdb + pg_ctl, run as `postgres`: the server refuses
 * root) on a free port; the real entry point (`src/main.ts`) runs on it through DATABASE_URL.
 * The cluster is stopped (fast, then immediate mode) and started again while the service runs:
 * `/ready` turns 503 and `/health` stays 200 (the process recovers by itself, see the README),
 * API requests fail with a clean 503 rather than a 500, and after the restart `/ready` is 200
 * again within seconds with no restart of the service, the data from before is there, a sandbox
 * call that was live through the outage ends with a final status, and new calls complete. The
 * log holds no endless stream of error lines: at most a bounded few per outage.
 *
 * Needs PostgreSQL 15's server binaries and root (for `runuser -u postgres`); skipped elsewhere.
 * Runs once, in the embedded project (the cluster is its own, not the run's database).
 * @one-database: it runs on a PostgreSQL 15 cluster of its own, the same in either test project.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMain, stopMain, type MainProcess } from '../support/main-process.js';
import { canRunCluster, startCluster, type PgCluster } from '../support/pg-cluster.js';
import { waitUntil } from '../support/receiver.js';

const canRun = canRunCluster();
const ADMIN_TOKEN = 'restart-admin-token-0123456789abcdef';
const LIVE = ['initiated', 'ringing', 'in-progress'];

let cluster: PgCluster | undefined;
let main: MainProcess | undefined;

beforeAll(async () => {
  if (canRun) cluster = await startCluster('sb-extpg-');
});

afterAll(async () => {
  if (main && main.child.exitCode === null && main.child.signalCode === null) main.child.kill('SIGKILL');
  cluster?.remove();
});

async function api(method: string, url: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${main!.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed };
}

const status = async (p: string) => (await fetch(`${main!.url}${p}`)).status;
const errorLines = () => main!.stdout().split('\n').filter((l) => /"level":(50|60)/.test(l));

describe.runIf(canRun)('the external database restarted under a running service', () => {
  it.each(['fast', 'immediate'] as const)('%s stop: /ready 503 and /health 200 while it is away, 200 again after, nothing lost', async (mode) => {
    main ??= await startMain({
      DATABASE_URL: cluster!.url,
      ADMIN_TOKEN,
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      SANDBOX_TIME_SCALE: '0.99',
      RATE_LIMIT_PER_MINUTE: '0',
    });
    const email = `restart-${mode}@example.test`;
    const user = await api('POST', '/api/admin/users', ADMIN_TOKEN, { name: `Restart ${mode}`, email });
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    const token: string = user.body.token;
    const assistant = await api('POST', '/api/user/assistant', token, { assistant_name: `Kept ${mode}`, voice_id: 1, calls_direction: 'make', initial_message: 'Hello there.' });
    expect(assistant.status, JSON.stringify(assistant.body)).toBe(201);
    const assistantId: number = assistant.body.data.id;
    const call = await api('POST', '/api/user/make_call', token, { phone_number: '+4915123456710', assistant_id: assistantId });
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const callId: number = call.body.call_id;
    await waitUntil(async () => (await api('GET', `/api/user/calls/${callId}`, token)).body.status === 'in-progress', 30_000, 'the call in progress');
    const errorsBefore = errorLines().length;

    cluster!.stop(mode);
    await waitUntil(async () => (await status('/ready')) === 503, 15_000, '/ready 503');
    expect(await status('/health')).toBe(200);
    // Requests needing the database fail cleanly while it is away: a 503 in the simple shape.
    const during = await api('GET', '/api/user/assistants', token);
    expect(during.status, JSON.stringify(during.body)).toBe(503);
    expect(during.body).toEqual({ message: expect.any(String) });
    // The live call goes on without the database (its transitions and record wait for it).
    await new Promise((r) => setTimeout(r, 3000));

    cluster!.start();
    const back = Date.now();
    await waitUntil(async () => (await status('/ready')) === 200, 30_000, '/ready 200 after the restart');
    const readyAfterMs = Date.now() - back;
    expect(readyAfterMs).toBeLessThan(15_000);
    expect(await status('/health')).toBe(200);

    // Nothing lost: the user, the assistant, the call record; and the call did not stay live.
    expect((await api('GET', '/api/user/me', token)).status).toBe(200);
    const kept = await api('GET', '/api/user/assistants?per_page=100', token);
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(JSON.stringify(kept.body)).toContain(`Kept ${mode}`);
    await waitUntil(async () => !LIVE.includes((await api('GET', `/api/user/calls/${callId}`, token)).body.status), 90_000, 'the call in flight to end');
    const ended = (await api('GET', `/api/user/calls/${callId}`, token)).body;
    expect(['completed', 'ended']).toContain(ended.status);

    // New work succeeds: a call placed now completes.
    const next = await api('POST', '/api/user/make_call', token, { phone_number: '+4915123456720', assistant_id: assistantId });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    await waitUntil(async () => (await api('GET', `/api/user/calls/${next.body.call_id}`, token)).body.status === 'completed', 60_000, 'a new call to complete');

    // No storm: a handful of error lines for the outage at most, none once it is over.
    const outageErrors = errorLines().slice(errorsBefore);
    expect(outageErrors.length, outageErrors.join('\n')).toBeLessThanOrEqual(10);
    const settled = errorLines().length;
    await new Promise((r) => setTimeout(r, 3000));
    expect(errorLines().slice(settled)).toEqual([]);
  }, 240_000);

  it('the service still stops cleanly afterwards', async () => {
    expect(await stopMain(main!.child)).toBe(0);
  }, 60_000);
});
