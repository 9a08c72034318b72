/**
 * Retention benchmark (issue 15): pruning the webhook delivery log of a large table while the
 * delivery keeps writing to it. BENCH_DELIVERIES rows (default 1,000,000; four attempts per
 * message, over 10,000 calls): half of them 40 days old and finished, half from the last
 * day, and 1 % of the old messages with a retry still planned in pg-boss (kept). Meanwhile one
 * writer inserts single attempt rows as the delivery's flush does, and its latency is measured.
 *
 *   npx tsx bench/retention.ts              # external PostgreSQL (BENCH_DATABASE_URL, else TEST_DATABASE_URL,
 *                                           # else postgres://postgres@127.0.0.1:5432/test), in a fresh database
 *   npx tsx bench/retention.ts --embedded   # an embedded PostgreSQL in a temporary folder
 *   npm run bench retention                 # through the harness (BENCH_RETENTION_DB=embedded for embedded)
 *
 * Targets: no prune statement holds its rows longer than 500 ms, and the writer's p99 stays
 * under 50 ms while the prune runs (batches of 1,000 rows, keyset-paged; see decisions.md).
 */
import { fileURLToPath } from 'node:url';
import PgBoss from 'pg-boss';
import pg from 'pg';
import { createUser } from '../src/accounts/users.js';
import { loadConfig } from '../src/config.js';
import { runMigrations } from '../src/db/migrate.js';
import { connect } from '../src/db/pool.js';
import { jobQueueOptions } from '../src/service.js';
import { DELIVER_QUEUE } from '../src/webhooks/messages.js';
import { pruneWebhookDeliveries } from '../src/webhooks/retention.js';
import { benchDatabase, printTable, type Row } from './lib.js';

const ROWS = Number(process.env.BENCH_DELIVERIES ?? 1_000_000);
const ATTEMPTS = 4;
const TARGET_BATCH_MS = 500;
const TARGET_WRITER_P99_MS = 50;

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function seed(url: string): Promise<{ old: number; pendingRows: number }> {
  const messages = Math.floor(ROWS / ATTEMPTS);
  // Two messages per call (its post-call and inbound webhooks).
  const CALLS = Math.ceil(messages / 2);
  await runMigrations(url);
  const database = connect(url, { max: 2 });
  let userId: number;
  try {
    userId = (await createUser(database.db, { name: 'Bench', email: 'bench-retention@example.test' })).user.id;
  } finally {
    await database.close();
  }
  // pg-boss's schema and the deliver queue, as a running process has them.
  const boss = new PgBoss({ connectionString: url, max: 2, ...jobQueueOptions(loadConfig({})) });
  boss.on('error', () => undefined);
  await boss.start();
  await boss.createQueue(DELIVER_QUEUE);
  await boss.stop({ graceful: false, wait: true });

  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    // A bulk import: the call list's per-row counter trigger is off meanwhile (the counters
    // do not matter here; the database is dropped afterwards).
    await c.query('ALTER TABLE calls DISABLE TRIGGER calls_counts_insert');
    await c.query(`
      INSERT INTO calls (user_id, assistant_name, type, status, duration, assistant_phone_number, client_phone_number, created_at, updated_at)
      SELECT $1, 'Bench', 'outbound', 'completed', 60, '+4930123456', '+4915123456789', now() - interval '40 days', now()
      FROM generate_series(1, ${CALLS})`,
      [userId],
    );
    await c.query('ALTER TABLE calls ENABLE TRIGGER calls_counts_insert');
    const oldMessages = Math.floor(messages / 2);
    // Message m: old (40 days) for m < oldMessages, else within the last day; attempts in order.
    await c.query(`
      INSERT INTO webhook_deliveries (call_id, user_id, message_id, kind, url, attempt, status_code, duration_ms, error, created_at)
      SELECT (SELECT min(id) FROM calls) + (m % ${CALLS}), $1, 'msg_bench_' || m, 'post_call', 'https://hooks.example.test/x', a,
        CASE WHEN a = ${ATTEMPTS} THEN 200 ELSE 500 END, 120, CASE WHEN a = ${ATTEMPTS} THEN NULL ELSE 'HTTP 500' END,
        CASE WHEN m < ${oldMessages} THEN now() - interval '40 days' ELSE now() - interval '20 hours' END + make_interval(secs => a * 300)
      FROM generate_series(0, ${messages - 1}) m, generate_series(1, ${ATTEMPTS}) a
      ORDER BY m, a`,
      [userId],
    );
    // 1 % of the old messages wait for a fifth attempt (the job record.ts would have planned).
    const pending = await c.query(`
      INSERT INTO pgboss.job (name, id, data, state, start_after)
      SELECT $1, substr(encode(sha256(convert_to('msg_bench_' || m || ':' || ${ATTEMPTS + 1}, 'UTF8')), 'hex'), 1, 32)::uuid,
        jsonb_build_object('messageId', 'msg_bench_' || m), 'created', now() + interval '1 hour'
      FROM generate_series(0, ${oldMessages - 1}) m WHERE m % 100 = 0`,
      [DELIVER_QUEUE],
    );
    await c.query('VACUUM ANALYZE webhook_deliveries');
    return { old: oldMessages * ATTEMPTS, pendingRows: (pending.rowCount ?? 0) * ATTEMPTS };
  } finally {
    await c.end();
  }
}

export async function run(): Promise<Row[]> {
  const embedded = process.argv.includes('--embedded') || process.env.BENCH_RETENTION_DB === 'embedded';
  const db = await benchDatabase(embedded, 'sb_retention');
  try {
    const seedStarted = Date.now();
    const { old, pendingRows } = await seed(db.url);
    const seedSeconds = (Date.now() - seedStarted) / 1000;

    const pool = new pg.Pool({ connectionString: db.url, max: 4 });
    const { rows: ids } = await pool.query<{ call: number; user: number }>('SELECT min(id) AS call, min(user_id) AS user FROM calls');
    let writing = true;
    const writes: number[] = [];
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const began = performance.now();
        await pool.query(
          `INSERT INTO webhook_deliveries (call_id, user_id, message_id, kind, url, attempt, status_code, duration_ms, created_at)
           VALUES ($1, $2, $3, 'post_call', 'https://hooks.example.test/x', 1, 200, 80, now())`,
          [ids[0].call, ids[0].user, `msg_writer_${i}`],
        );
        writes.push(performance.now() - began);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const batches: number[] = [];
    const started = performance.now();
    const deleted = await pruneWebhookDeliveries(pool, { retentionDays: 30, onBatch: (b) => batches.push(b.ms) });
    const seconds = (performance.now() - started) / 1000;
    writing = false;
    await writer;
    const { rows: left } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE created_at < now() - interval '30 days'`);
    await pool.end();
    if (deleted !== old - pendingRows || left[0].n !== pendingRows) {
      throw new Error(`pruned ${deleted} of ${old} old rows, ${left[0].n} old rows left; expected ${old - pendingRows} pruned and ${pendingRows} kept`);
    }
    const longest = Math.max(...batches);
    const p99 = percentile(writes, 99);
    const base = { database: db.name, rows: ROWS, seed_s: seedSeconds.toFixed(0) };
    return [
      { ...base, measure: 'old rows pruned (pending kept)', value: `${deleted} (${pendingRows} kept)`, target: `${old - pendingRows}`, met: 'yes' },
      { ...base, measure: 'prune time', value: `${seconds.toFixed(1)} s (${Math.round((deleted ?? 0) / seconds)} rows/s)`, target: '-', met: '-' },
      { ...base, measure: 'batches: p50 / p99 / longest', value: `${percentile(batches, 50).toFixed(0)} / ${percentile(batches, 99).toFixed(0)} / ${longest.toFixed(0)} ms`, target: `longest < ${TARGET_BATCH_MS} ms`, met: longest < TARGET_BATCH_MS ? 'yes' : 'no' },
      { ...base, measure: `writer inserts meanwhile (${writes.length}): p50 / p99 / max`, value: `${percentile(writes, 50).toFixed(1)} / ${p99.toFixed(1)} / ${Math.max(...writes).toFixed(1)} ms`, target: `p99 < ${TARGET_WRITER_P99_MS} ms`, met: p99 < TARGET_WRITER_P99_MS ? 'yes' : 'no' },
    ];
  } finally {
    await db.cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  printTable('Retention: pruning the webhook delivery log', await run());
  process.exit(0);
}
