/**
 * A database outage longer than the stale window (15 s) must not make one instance end another
 * live instance's calls. Three real service processes (`src/main.ts`) on one throw-away
 * PostgreSQL 15 cluster: B runs a long sandbox call, C runs one and is SIGKILLed. The cluster is
 * stopped for longer than the stale window, so every heartbeat goes stale; when it is back, B is
 * held (SIGSTOP) for 11 s, longer than A's recovery sweep interval (10 s), as a process that is
 * slow to reconnect or whose heartbeat waits behind its busy pool would be. Before the fix A's
 * first sweep ended B's call as `ended` with an empty transcript, and B's real record was thrown
 * away. Now: B finishes its own call (`completed`, its real transcript), while C's call — C is
 * really dead — is still ended by recovery.
 *
 * Needs PostgreSQL 15's server binaries and root (for `runuser -u postgres`); skipped elsewhere.
 * Runs once, in the embedded project (the cluster is its own, not the run's database).
 * @one-database: it runs on a PostgreSQL 15 cluster of its own, the same in either test project.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMain, stopMain, type MainProcess } from '../support/main-process.js';
import { canRunCluster, startCluster, type PgCluster } from '../support/pg-cluster.js';
import { sleep, waitUntil } from '../support/receiver.js';

const canRun = canRunCluster();
const ADMIN_TOKEN = 'outage-admin-token-0123456789abcdef';
const LIVE = ['initiated', 'ringing', 'in-progress'];
/** About 35 s of speech at the sandbox's pace: B's call outlives the outage and the hold. */
const LONG_GREETING = Array.from({ length: 10 }, (_, i) => `This is sentence number ${i + 1} of a long greeting.`).join(' ');

let cluster: PgCluster | undefined;
const mains: MainProcess[] = [];
const databaseUrl = () => cluster!.url;

beforeAll(async () => {
  if (canRun) cluster = await startCluster('sb-outage-');
});

afterAll(async () => {
  for (const m of mains) {
    if (m.child.exitCode !== null || m.child.signalCode !== null) continue;
    m.child.kill('SIGCONT');
    m.child.kill('SIGKILL');
  }
  cluster?.remove();
});

async function startInstance(): Promise<MainProcess> {
  const main = await startMain({
    DATABASE_URL: databaseUrl(),
    ADMIN_TOKEN,
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    SANDBOX_TIME_SCALE: '0.99',
    RATE_LIMIT_PER_MINUTE: '0',
  });
  mains.push(main);
  return main;
}

async function api(main: MainProcess, method: string, url: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${main.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

async function query<T>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The "ended a call left behind" lines an instance logged, by call id. */
const recoveredBy = (main: MainProcess) =>
  main
    .stdout()
    .split('\n')
    .filter((l) => l.includes('ended a call left behind'))
    .map((l) => (JSON.parse(l) as { callId: number }).callId);

describe.runIf(canRun)('a database outage longer than the stale window', () => {
  it("leaves a live instance's call to that instance; a killed instance's call is still recovered", async () => {
    const a = await startInstance(); // migrates first
    const [b, c] = await Promise.all([startInstance(), startInstance()]);

    const user = await api(a, 'POST', '/api/admin/users', ADMIN_TOKEN, { name: 'Outage', email: 'outage@example.test' });
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    const token: string = user.body.token;
    const assistant = await api(a, 'POST', '/api/user/assistant', token, { assistant_name: 'Long talker', voice_id: 1, calls_direction: 'make', initial_message: LONG_GREETING });
    expect(assistant.status, JSON.stringify(assistant.body)).toBe(201);
    const place = async (on: MainProcess, number: string) => {
      const res = await api(on, 'POST', '/api/user/make_call', token, { phone_number: number, assistant_id: assistant.body.data.id });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.call_id as number;
    };
    const onB = await place(b, '+4915123456710');
    const onC = await place(c, '+4915123456720');
    const statusOf = async (id: number) => (await query<{ status: string }>('SELECT status FROM calls WHERE id = $1', [id]))[0].status;
    await waitUntil(async () => (await statusOf(onB)) === 'in-progress' && (await statusOf(onC)) === 'in-progress', 30_000, 'both calls in progress');
    const owners = await query<{ id: number; owner_instance: string }>('SELECT id, owner_instance FROM calls WHERE id = ANY($1) ORDER BY id', [[onB, onC]]);
    expect(new Set(owners.map((o) => o.owner_instance)).size).toBe(2);

    c.child.kill('SIGKILL');
    await new Promise((r) => c.child.once('exit', r));

    // Longer than the stale window: every instance's heartbeat goes stale.
    cluster!.stop();
    await sleep(18_000);

    // B is held while the database comes back, past A's next sweep.
    b.child.kill('SIGSTOP');
    cluster!.start();
    await sleep(11_000);
    expect(await statusOf(onB), "A's recovery must not end B's live call").toBe('in-progress');
    b.child.kill('SIGCONT');

    // B finishes its own call with its real record; C's call is recovered by a live instance.
    await waitUntil(async () => !LIVE.includes(await statusOf(onB)), 60_000, "B's call to end");
    const [record] = await query<{ status: string; transcript: string | null }>('SELECT status, transcript FROM calls WHERE id = $1', [onB]);
    expect(record.status).toBe('completed');
    expect(record.transcript).toContain('sentence number 10');
    await waitUntil(async () => (await statusOf(onC)) === 'ended', 30_000, "C's call recovered");
    // The log goes out in chunks, up to 200 ms after the database says so: wait for the line.
    await waitUntil(async () => [...recoveredBy(a), ...recoveredBy(b)].includes(onC), 5_000, "the recovery of C's call in a log");
    expect(recoveredBy(a)).not.toContain(onB);
    expect(recoveredBy(b)).not.toContain(onB);

    expect(await Promise.all([stopMain(a.child), stopMain(b.child)])).toEqual([0, 0]);
    // All they logged is in now: still nobody ended B's call.
    expect([...recoveredBy(a), ...recoveredBy(b)]).not.toContain(onB);
  }, 150_000);
});
