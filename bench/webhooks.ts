/**
 * Webhook delivery throughput: N "call finished" events (default 10,000) delivered to a
 * local receiver, on PostgreSQL. Reports deliveries per second (first emit → last receipt)
 * and the latency from emit to receipt (p50/p99). Target: ≥ 500 deliveries/s.
 *
 *   npx tsx bench/webhooks.ts                  # embedded PostgreSQL in a temporary folder
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/webhooks.ts
 *                                              # a fresh database on that server, dropped after
 *   BENCH_WEBHOOKS=2000 npx tsx bench/webhooks.ts   # fewer deliveries
 *
 * Two runs: "steady" emits from 16 concurrent emitters, one transaction per event (calls
 * ending one by one; the emit cost is part of the measured time); "burst" commits all N
 * events in one transaction (N calls ending at once), which measures the delivery alone.
 *
 * Only the webhook background part runs (no call engine), so the numbers are the delivery's.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { createUser } from '../src/accounts/users.js';
import { executorOf } from '../src/calls/events.js';
import { loadConfig } from '../src/config.js';
import { assistants, calls } from '../src/db/schema.js';
import { benchLogger, settingsNote } from './lib.js';
import { startService } from '../src/service.js';
import { webhookDeliveryPart } from '../src/webhooks/background.js';

export interface BenchRow {
  benchmark: string;
  metric: string;
  value: number;
  unit: string;
  target?: string;
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export type BenchMode = 'steady' | 'burst';

/** One run of `mode` (see the file's comment). */
export async function runOnce(
  mode: BenchMode,
  opts: { count?: number; serverUrl?: string; log?: (line: string) => void } = {},
): Promise<BenchRow[]> {
  const count = opts.count ?? Number(process.env.BENCH_WEBHOOKS ?? 10_000);
  const serverUrl = opts.serverUrl ?? process.env.BENCH_DATABASE_URL;
  const say = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));

  // ---- receiver: records the receipt time per call id
  const receivedAt = new Map<number, number>();
  let onAll: () => void = () => undefined;
  const allReceived = new Promise<void>((resolve) => (onAll = resolve));
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = performance.now();
      const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number }).id;
      if (!receivedAt.has(id)) receivedAt.set(id, now);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
      if (receivedAt.size >= count) onAll();
    });
  });
  receiver.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  // ---- database: a fresh one on the given server, or an embedded server in a temp folder
  const dataDir = serverUrl ? undefined : await mkdtemp(path.join(os.tmpdir(), 'switchboard-bench-webhooks-'));
  if (dataDir) await chmod(dataDir, 0o755); // the embedded server may run as another user
  const dbName = `bench_webhooks_${randomBytes(4).toString('hex')}`;
  if (serverUrl) await adminQuery(serverUrl, `CREATE DATABASE "${dbName}"`);
  const config = loadConfig({
    ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef',
    ALLOW_PRIVATE_TARGETS: 'true',
    ...(dataDir ? { DATA_DIR: dataDir } : {}),
  });
  const logs = benchLogger(config.LOG_LEVEL);
  const service = await startService({
    config,
    databaseUrl: serverUrl ? withDatabase(serverUrl, dbName) : undefined,
    listen: false,
    parts: [webhookDeliveryPart],
    log: logs.log,
  });

  try {
    const { db, pool } = service.ctx.database;
    const events = service.ctx.services.callEvents!;
    const { user } = await createUser(db, { name: 'Bench', email: `bench-${dbName}@example.test` });
    const [assistant] = await db
      .insert(assistants)
      .values({ userId: user.id, name: 'Bench assistant', type: 'outbound', voiceId: 1, isWebhookActive: true, webhookUrl: receiverUrl })
      .returning();

    // ---- N finished calls (a realistic transcript of ~1 KB each)
    const transcript = Array.from({ length: 12 }, (_, i) => (i % 2 ? 'Customer: ' : 'AI: ') + 'Thanks for calling, how can I help you today?').join('\n');
    const callIds: number[] = [];
    for (let i = 0; i < count; i += 1000) {
      const rows = await db
        .insert(calls)
        .values(
          Array.from({ length: Math.min(1000, count - i) }, (_, j) => ({
            userId: user.id,
            assistantId: assistant.id,
            assistantName: assistant.name,
            type: 'outbound',
            status: 'completed',
            duration: 60 + ((i + j) % 120),
            assistantPhoneNumber: '+4930123456',
            clientPhoneNumber: `+49151${String(1_000_000 + i + j).padStart(8, '0')}`,
            transcript,
            variables: { customer_name: `Customer ${i + j}` },
            evaluation: { status: true, summary: 'Appointment booked' },
            answeredBy: 'human',
            endedAt: new Date().toISOString(),
          })),
        )
        .returning({ id: calls.id });
      callIds.push(...rows.map((r) => r.id));
    }
    say(`webhooks bench (${mode}): ${count} calls inserted; emitting "call finished" events`);

    // ---- emit. steady: 16 emitters, one transaction per event (as calls end one by one);
    //      burst: every event in one transaction (N calls ending at once: pure delivery rate)
    const emittedAt = new Map<number, number>();
    const started = performance.now();
    if (mode === 'burst') {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const executor = executorOf(client);
        for (const callId of callIds) await events.emit(executor, { callId, userId: user.id });
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      const committed = performance.now();
      for (const callId of callIds) emittedAt.set(callId, committed);
    } else {
      const executor = executorOf(pool);
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < callIds.length) {
            const callId = callIds[next++];
            emittedAt.set(callId, performance.now());
            await events.emit(executor, { callId, userId: user.id });
          }
        }),
      );
    }
    const emitDone = performance.now();
    const firstEmit = Math.min(...emittedAt.values());
    say(`webhooks bench (${mode}): emitted in ${((emitDone - started) / 1000).toFixed(2)} s; waiting for receipts`);

    const sampler = process.env.BENCH_DEBUG
      ? setInterval(async () => {
          const { rows } = await pool.query("SELECT name, state, count(*)::int AS n FROM pgboss.job GROUP BY 1, 2 ORDER BY 1, 2");
          say(`${Math.round(performance.now() - started)} ms received=${receivedAt.size} ${rows.map((r) => `${r.name}/${r.state}=${r.n}`).join(' ')}`);
        }, 1000)
      : undefined;
    const timeout = setTimeout(() => onAll(), Math.max(120_000, count * 20));
    await allReceived;
    clearTimeout(timeout);
    if (sampler) clearInterval(sampler);
    const lastReceipt = Math.max(...receivedAt.values());
    const received = receivedAt.size;

    // every attempt logged
    const logStart = performance.now();
    let logged = 0;
    for (;;) {
      const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM webhook_deliveries');
      logged = Number(rows[0].n);
      if (logged >= received || performance.now() - logStart > 30_000) break;
      await new Promise((r) => setTimeout(r, 100));
    }

    const latencies = [...receivedAt.entries()].map(([id, at]) => at - emittedAt.get(id)!).sort((a, b) => a - b);
    const seconds = (lastReceipt - firstEmit) / 1000;
    const b = `webhooks (${mode}, ${serverUrl ? 'external' : 'embedded'} PostgreSQL)`;
    const rows: BenchRow[] = [
      { benchmark: b, metric: 'deliveries received', value: received, unit: 'count', target: `${count}` },
      { benchmark: b, metric: 'attempts logged', value: logged, unit: 'count', target: `${count}` },
      { benchmark: b, metric: 'throughput (first emit → last receipt)', value: Math.round(received / seconds), unit: 'deliveries/s', target: '>= 500' },
      { benchmark: b, metric: 'emit rate', value: Math.round(count / ((emitDone - started) / 1000)), unit: 'events/s' },
      { benchmark: b, metric: 'latency p50 (emit → receipt)', value: Math.round(percentile(latencies, 50)), unit: 'ms' },
      { benchmark: b, metric: 'latency p99 (emit → receipt)', value: Math.round(percentile(latencies, 99)), unit: 'ms' },
      { benchmark: b, metric: 'load average (1 min) at the end', value: Number(os.loadavg()[0].toFixed(2)), unit: `${os.cpus().length} CPUs` },
    ];
    return rows;
  } finally {
    await service.close();
    logs.close();
    await new Promise<void>((resolve) => {
      receiver.closeAllConnections();
      receiver.close(() => resolve());
    });
    if (serverUrl) await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
    if (dataDir) await rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

export const settings = settingsNote({ ALLOW_PRIVATE_TARGETS: 'true (the receiver is on 127.0.0.1)' });

/** Both modes, one after the other (`npm run bench` collects these rows). */
export async function run(opts: { count?: number; serverUrl?: string; log?: (line: string) => void } = {}): Promise<BenchRow[]> {
  const steady = await runOnce('steady', opts);
  const burst = await runOnce('burst', opts);
  return [...steady, ...burst];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  run()
    .then((rows) => {
      console.table(rows.map((r) => ({ benchmark: r.benchmark, metric: r.metric, value: r.value, unit: r.unit, target: r.target ?? '' })));
      process.exit(0);
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
