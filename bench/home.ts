/**
 * Home page benchmark: GET /api/user/results for an account with 100,000 calls (and ~240,000
 * stored turns) over the last 90 days, next to another account's 20,000, on PostgreSQL. The
 * service runs as `npm start` runs it (dist/main.js, its own process); requests go through
 * its HTTP port one at a time, signed in as the busy account: per period (30 and 90 days, all
 * calls; 30 days of one assistant) the first request after the start (cold: the endpoint's
 * first use in the process, after one GET /api/user/me) and then BENCH_REQUESTS more (warm), p50 and p95.
 * Target: every figure under 300 ms.
 *
 *   npx tsx bench/home.ts               # external PostgreSQL (BENCH_DATABASE_URL, else TEST_DATABASE_URL,
 *                                       # else postgres://postgres@127.0.0.1:5432/test), a database created and dropped here
 *   npx tsx bench/home.ts --embedded    # an embedded PostgreSQL in a temporary folder
 *   npm run bench home
 *
 * Settings: BENCH_CALLS (100000), BENCH_OTHER_CALLS (20000), BENCH_REQUESTS (20).
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { benchDatabase, printTable, settingsNote, spawnService, type Row } from './lib.js';
import { seed } from './home/seed.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 100_000);
const OTHER_CALLS = Number(process.env.BENCH_OTHER_CALLS ?? 20_000);
const REQUESTS = Math.max(2, Number(process.env.BENCH_REQUESTS ?? 20));
const TARGET_MS = 300;
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const self = fileURLToPath(import.meta.url);

export const settings = settingsNote();

const day = (back: number) => new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];

interface Answer {
  totals: { calls: number; answer_rate: number | null; latency: { turns: number; p50_ms: number | null } };
  days: unknown[];
  assistants: { id: number }[];
}

async function timed(url: string, token: string): Promise<{ ms: number; body: Answer }> {
  const started = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as Answer;
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
  return { ms, body };
}

export async function run(opts: { embedded?: boolean } = {}): Promise<Row[]> {
  const embedded = opts.embedded ?? (process.argv.includes('--embedded') || process.env.BENCH_CALLS_DB === 'embedded');
  const db = await benchDatabase(embedded, 'sb_bench_home');
  const rows: Row[] = [];
  try {
    const seeded = await seed(db.url, CALLS, OTHER_CALLS);
    console.log(`seeded ${CALLS.toLocaleString('en')} + ${OTHER_CALLS.toLocaleString('en')} calls and ${seeded.turns.toLocaleString('en')} turns on ${db.name} PostgreSQL in ${seeded.seconds} s`);
    const svc = await spawnService({ DATABASE_URL: db.url, ADMIN_TOKEN });
    try {
      // The process's first request (its first database connections, the auth path) is not this endpoint's cost.
      await timed(`${svc.url}/api/user/me`, seeded.token);
      const base = `${svc.url}/api/user/results?timezone=Europe/Berlin&date_to=${day(0)}`;
      const all90 = await timed(`${base}&date_from=${day(89)}`, seeded.token);
      const assistantId = all90.body.assistants[0].id;
      const periods = [
        { name: '30 days', url: `${base}&date_from=${day(29)}` },
        { name: '90 days', url: `${base}&date_from=${day(89)}` },
        { name: '30 days, one assistant', url: `${base}&date_from=${day(29)}&assistant_id=${assistantId}` },
      ];
      // The other account's calls are not in the busy one's results.
      if (all90.body.totals.calls > CALLS) throw new Error(`the account counts ${all90.body.totals.calls} calls, more than its ${CALLS}`);
      const verdict = (ms: number) => `< ${TARGET_MS} ms: ${ms < TARGET_MS ? 'met' : 'MISSED'}`;
      for (const p of periods) {
        const cold = p.name === '90 days' ? all90 : await timed(p.url, seeded.token);
        const times: number[] = [];
        for (let i = 0; i < REQUESTS; i++) times.push((await timed(p.url, seeded.token)).ms);
        times.sort((a, b) => a - b);
        const t = cold.body.totals;
        const what = `${t.calls.toLocaleString('en')} calls, ${t.latency.turns.toLocaleString('en')} replies, ${cold.body.days.length} days`;
        rows.push(
          { measure: `results, ${p.name} (${what}): first request`, value: `${Math.round(cold.ms)} ms`, target: verdict(cold.ms) },
          { measure: `results, ${p.name}: p50 of ${REQUESTS}`, value: `${Math.round(percentile(times, 0.5))} ms`, target: verdict(percentile(times, 0.5)) },
          { measure: `results, ${p.name}: p95 of ${REQUESTS}`, value: `${Math.round(percentile(times, 0.95))} ms`, target: verdict(percentile(times, 0.95)) },
        );
      }
    } finally {
      await svc.stop();
    }
  } finally {
    await db.cleanup();
  }
  return rows;
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === self) {
  const rows = await run();
  printTable(`Home page: results of an account with ${CALLS.toLocaleString('en')} calls`, rows, settings);
  process.exit(0);
}
