/**
 * Call engine benchmark (issue 6): 1,000 concurrent sandbox calls in one process at
 * SANDBOX_TIME_SCALE=1 (real ring time and speaking pace), each a full conversation on the
 * offline LLM stand-in with one real mid-call tool request to a local endpoint, post-call
 * processing and the final record + event transaction. Measures the event-loop delay
 * (perf_hooks.monitorEventLoopDelay sampling every 10 ms; reported as the lateness beyond the
 * 10 ms interval) over the whole run and the memory per
 * live call (heap + external + array buffers after GC, all calls live vs. before).
 * Target: event-loop delay p99 < 20 ms.
 *
 *   npx tsx bench/calls-concurrency.ts              # embedded PostgreSQL in a temporary folder
 *   npx tsx bench/calls-concurrency.ts --external   # a fresh database on BENCH_DATABASE_URL / TEST_DATABASE_URL
 *   npm run bench calls-concurrency
 *
 * Settings: BENCH_LIVE_CALLS (1000). Bounded: the calls last ~8 s each; the run gives up after 120 s.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createUser } from '../src/accounts/users.js';
import { callEnginePart } from '../src/calls/index.js';
import { loadConfig } from '../src/config.js';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { assistants, assistantTools, tools } from '../src/db/schema.js';
import { createLogger } from '../src/logger.js';
import { startService } from '../src/service.js';
import { benchLogger, freshExternalDatabase, printTable, root, settingsNote, tempDir, type Row } from './lib.js';

const CALLS = Number(process.env.BENCH_LIVE_CALLS ?? 1000);
const USERS = 50;
/** Placement concurrency (like 50 API clients). */
const PLACERS = 50;
/** monitorEventLoopDelay samples every RESOLUTION ms and records the whole interval; the delay is the excess. */
const RESOLUTION = 10;
const self = fileURLToPath(import.meta.url);

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

function memory(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external + m.arrayBuffers;
}

async function measure(external: boolean): Promise<Row[]> {
  let cleanup: () => Promise<void>;
  let url: string;
  if (external) {
    const db = await freshExternalDatabase('sb_bench_live');
    url = db.url;
    cleanup = db.drop;
  } else {
    const dir = tempDir('switchboard-bench-live-');
    const server = await startEmbeddedPostgres({ dataDir: dir, log: createLogger('warn'), ephemeral: true });
    url = server.url;
    cleanup = async () => {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    };
  }
  // The customer's tool endpoint, on loopback, in its own process (it is not the engine's work).
  const toolServer = spawn(
    process.execPath,
    ['-e', `let hits = 0;
      const server = require('node:http').createServer((req, res) => {
        if (req.url === '/hits') return res.end(String(hits));
        hits++;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"slots":["10:00","11:00"]}');
      });
      server.listen(0, '127.0.0.1', () => console.log(server.address().port));`],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const toolPort = await new Promise<number>((resolve) => toolServer.stdout.once('data', (c) => resolve(Number(String(c).trim()))));
  const toolUrl = `http://127.0.0.1:${toolPort}/slots`;

  const config = loadConfig({
    ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef',
    SANDBOX_TIME_SCALE: '1',
    ALLOW_PRIVATE_TARGETS: 'true',
  });
  const logs = benchLogger(config.LOG_LEVEL);
  const service = await startService({ config, databaseUrl: url, listen: false, parts: [callEnginePart], poolSize: 20, log: logs.log });
  try {
    const { db } = service.ctx.database;
    const engine = service.ctx.services.callEngine!;
    const owners: { userId: number; assistantId: number }[] = [];
    for (let u = 0; u < USERS; u++) {
      const { user } = await createUser(db, { name: `Bench ${u}`, email: `bench-live-${u}-${Date.now()}@example.test`, maxCallsInParallel: CALLS });
      const [tool] = await db
        .insert(tools)
        .values({ userId: user.id, name: 'check_slots', description: 'Free slots', endpoint: toolUrl, method: 'GET', timeout: 10, schema: [{ name: 'customer_name', type: 'string', description: 'Name' }] })
        .returning();
      const [a] = await db
        .insert(assistants)
        .values({
          userId: user.id,
          name: 'Bench assistant',
          type: 'outbound',
          voiceId: 1,
          languageId: 1,
          llmModelId: 1,
          initialMessage: 'Hello {{customer_name}}, this is Switchboard.',
          systemPrompt: 'You are a helpful assistant.',
          postCallSchema: [{ name: 'interested', type: 'bool', description: 'Interested?' }],
        })
        .returning();
      await db.insert(assistantTools).values({ assistantId: a.id, toolId: tool.id });
      owners.push({ userId: user.id, assistantId: a.id });
    }

    const baseline = memory();
    // The machine's own noise: the same measurement with the service idle for 3 s.
    const idle = monitorEventLoopDelay({ resolution: RESOLUTION });
    idle.enable();
    await new Promise((r) => setTimeout(r, 3_000));
    idle.disable();
    const histogram = monitorEventLoopDelay({ resolution: RESOLUTION });
    const placingHistogram = monitorEventLoopDelay({ resolution: RESOLUTION });
    histogram.enable();
    placingHistogram.enable();
    const started = performance.now();
    let peakLive = 0;
    let memoryAtPeak = 0;
    let placed = 0;
    const placing = (async () => {
      const next = async () => {
        while (placed < CALLS) {
          const i = placed++;
          const owner = owners[i % USERS];
          await engine.placeCall({ userId: owner.userId, assistantId: owner.assistantId, to: `+4915123${String(i).padStart(6, '0')}`.replace(/9[1-5]$/, '80'), variables: { customer_name: `Customer ${i}` } });
        }
      };
      await Promise.all(Array.from({ length: PLACERS }, next));
    })();
    await placing;
    placingHistogram.disable();
    const placedMs = performance.now() - started;
    // Sample the live-call count until all are done; take memory once the peak is reached.
    const deadline = Date.now() + 120_000;
    while (engine.activeCalls() > 0 && Date.now() < deadline) {
      const live = engine.activeCalls();
      if (live > peakLive) peakLive = live;
      if (live === CALLS && memoryAtPeak === 0) {
        histogram.disable();
        memoryAtPeak = memory(); // a forced GC must not count as event-loop delay
        histogram.enable();
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    await engine.drain();
    const totalMs = performance.now() - started;
    histogram.disable();
    if (memoryAtPeak === 0) memoryAtPeak = memory();
    const { rows } = await service.ctx.database.pool.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM calls GROUP BY status ORDER BY status`);
    const delay = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION);
    const ms = (ns: number) => delay(ns).toFixed(1);
    const p99 = delay(histogram.percentile(99));
    return [
      { measure: 'calls placed (stand-in LLM, 1 tool request each)', value: CALLS, target: '' },
      { measure: 'time to place all calls (s)', value: (placedMs / 1000).toFixed(1), target: '' },
      { measure: 'peak live calls in one process', value: peakLive, target: String(CALLS) },
      { measure: 'wall time until all finished (s)', value: (totalMs / 1000).toFixed(1), target: '' },
      { measure: 'final statuses', value: rows.map((r) => `${r.status} ${r.n}`).join(', '), target: `completed ${CALLS}` },
      { measure: 'tool requests received', value: await (await fetch(`http://127.0.0.1:${toolPort}/hits`)).text(), target: String(CALLS) },
      { measure: 'machine load average (1 min, at the end)', value: os.loadavg()[0].toFixed(1), target: `cores: ${os.cpus().length}` },
      { measure: 'event-loop delay p50 (ms)', value: ms(histogram.percentile(50)), target: '' },
      { measure: 'event-loop delay p99 (ms)', value: p99.toFixed(1), target: '< 20' },
      { measure: 'event-loop delay max (ms)', value: ms(histogram.max), target: '' },
      { measure: '  p99 while placing the calls (ms)', value: ms(placingHistogram.percentile(99)), target: '' },
      { measure: '  p99 of the idle service, same machine (ms)', value: ms(idle.percentile(99)), target: '' },
      { measure: 'memory per live call (KiB)', value: ((memoryAtPeak - baseline) / Math.max(1, peakLive) / 1024).toFixed(1), target: '' },
      { measure: 'p99 target met', value: p99 < 20 ? 'yes' : 'no', target: 'yes' },
      { measure: `log written at ${config.LOG_LEVEL} (KiB)`, value: Math.round(logs.bytes() / 1024), target: '' },
    ];
  } finally {
    await service.close();
    logs.close();
    toolServer.kill();
    await cleanup();
  }
}

export const settings = settingsNote({ ALLOW_PRIVATE_TARGETS: 'true (the tool server is on 127.0.0.1)' });

/** For `npm run bench`: measures in a child process, so the numbers are this workload's alone. */
export async function run(): Promise<Row[]> {
  const args = ['--import', 'tsx', self, '--json', ...(process.argv.includes('--external') ? ['--external'] : [])];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('exit', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0) return reject(new Error(`calls-concurrency benchmark failed (${code}):\n${out}`));
      resolve(JSON.parse(line) as Row[]);
    });
  });
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === self) {
  const rows = await measure(process.argv.includes('--external'));
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(rows)}\n`);
  else printTable(`${CALLS} concurrent sandbox calls in one process (SANDBOX_TIME_SCALE=1)`, rows, settings);
  process.exit(0);
}
