/**
 * Twilio benchmark (issue 16): N concurrent calls (default 200) placed with make_call's engine
 * path on the Twilio carrier, through the Twilio double at real pace, in one service process:
 * REST create-call, signed status callbacks, and a media stream per call carrying 20 ms μ-law
 * frames both ways for the call's whole length. The double runs in a child process (the phone
 * network is not the service's work). Measures, in the service process, the event-loop delay
 * (monitorEventLoopDelay, lateness beyond the 10 ms sampling interval) while all calls are
 * live, and the CPU time per call (process.cpuUsage over the live window ÷ calls ÷ seconds =
 * the share of one core each call costs). Target: event-loop p99 < 20 ms at N = 200 (the voice
 * issue's target).
 *
 *   npx tsx bench/twilio.ts              # embedded PostgreSQL in a temporary folder
 *   npm run bench twilio
 *
 * Settings: BENCH_TWILIO_CALLS (200), BENCH_TWILIO_SECONDS (each call's length, 60).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createUser } from '../src/accounts/users.js';
import { addPhoneNumber } from '../src/accounts/phone-numbers.js';
import { callEnginePart } from '../src/calls/index.js';
import { loadConfig } from '../src/config.js';
import { assistants } from '../src/db/schema.js';
import { startService } from '../src/service.js';
import { benchDatabase, benchLogger, printTable, root, settingsNote, type Row } from './lib.js';

const CALLS = Number(process.env.BENCH_TWILIO_CALLS ?? 200);
const CALL_SECONDS = Number(process.env.BENCH_TWILIO_SECONDS ?? 60);
const RESOLUTION = 10;
const PUBLIC = 'https://sb.example';
const self = fileURLToPath(import.meta.url);

/** The double's process: started with the credentials, told the service's address on stdin. */
const DOUBLE_CHILD = `
  const { TwilioDouble } = await import(${JSON.stringify(new URL('../test/support/doubles/twilio.ts', import.meta.url).href)});
  let target = '';
  const double = await TwilioDouble.start({
    accountSid: process.env.AC, authToken: process.env.TOKEN, keepAudio: false,
    defaultScript: { ringMs: 500, steps: [{ pause: Number(process.env.CALL_MS) }, { hangUp: true }] },
    route: (u) => u.replace('wss://sb.example', target.replace('http', 'ws')).replace('https://sb.example', target),
  });
  process.stdout.write(double.url + '\\n');
  process.stdin.on('data', (c) => { target = String(c).trim(); });
`;

async function startDouble(accountSid: string, authToken: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', DOUBLE_CHILD], {
    cwd: root,
    env: { ...process.env, AC: accountSid, TOKEN: authToken, CALL_MS: String(CALL_SECONDS * 1000) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (c) => resolve(String(c).trim()));
    child.once('exit', (code) => reject(new Error(`the Twilio double exited (${code})`)));
  });
  return { child, url };
}

async function measure(): Promise<Row[]> {
  const database = await benchDatabase(true, 'sb_bench_twilio');
  const accountSid = `AC${randomBytes(16).toString('hex')}`;
  const authToken = randomBytes(16).toString('hex');
  const double = await startDouble(accountSid, authToken);
  const config = loadConfig({
    ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef',
    PORT: '0',
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: PUBLIC,
    TWILIO_ACCOUNT_SID: accountSid,
    TWILIO_AUTH_TOKEN: authToken,
    TWILIO_API_URL: double.url,
  });
  const logs = benchLogger(config.LOG_LEVEL);
  const service = await startService({ config, databaseUrl: database.url, listen: true, parts: [callEnginePart], poolSize: 20, log: logs.log });
  double.child.stdin!.write(`${service.url}\n`);
  try {
    const { db, pool } = service.ctx.database;
    const engine = service.ctx.services.callEngine!;
    const { user } = await createUser(db, { name: 'Bench', email: `bench-twilio-${Date.now()}@example.test`, maxCallsInParallel: CALLS + 10 });
    const number = await addPhoneNumber(db, { userId: user.id, phoneNumber: '+14155550100', typeLabel: 'Normal', carrier: 'twilio' }, 'US');
    const [assistant] = await db
      .insert(assistants)
      .values({
        userId: user.id,
        name: 'Bench assistant',
        type: 'outbound',
        voiceId: 1,
        languageId: 1,
        llmModelId: 1,
        phoneNumberId: number.id,
        maxDuration: CALL_SECONDS * 3,
        initialMessage: 'Hello, this is Switchboard.',
        systemPrompt: 'You are a helpful assistant.',
      })
      .returning();

    const placingStarted = performance.now();
    // 50 placers at once (like 50 API clients): placing must take far less than a call lasts.
    let next = 0;
    const placer = async () => {
      while (next < CALLS) {
        const i = next++;
        await engine.placeCall({ userId: user.id, assistantId: assistant.id, to: `+1415556${String(i).padStart(4, '0')}` });
      }
    };
    await Promise.all(Array.from({ length: 50 }, placer));
    const placedMs = performance.now() - placingStarted;
    // The live window: from every call running on its stream to the first one ending.
    const deadline = Date.now() + 60_000;
    while (engine.activeCalls() < CALLS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const live = engine.activeCalls();
    const histogram = monitorEventLoopDelay({ resolution: RESOLUTION });
    histogram.enable();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const window = Math.max(2_000, CALL_SECONDS * 1000 - 8_000);
    await new Promise((r) => setTimeout(r, window));
    const cpu = process.cpuUsage(cpu0);
    const seconds = (performance.now() - t0) / 1000;
    histogram.disable();
    const liveAtEnd = engine.activeCalls();
    const finishDeadline = Date.now() + 60_000;
    while (engine.activeCalls() > 0 && Date.now() < finishDeadline) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1000));
    const { rows } = await pool.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM calls GROUP BY status ORDER BY status`);
    const delay = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION);
    const p99 = delay(histogram.percentile(99));
    const cpuMsPerCallSecond = live > 0 ? (cpu.user + cpu.system) / 1000 / live / seconds : NaN;
    return [
      { measure: 'concurrent Twilio calls (double at real pace, 20 ms frames)', value: CALLS, target: '200' },
      { measure: 'calls running on their media stream at once', value: `${live} (still ${liveAtEnd} at the window's end)`, target: String(CALLS) },
      { measure: 'time to place all calls over REST (s)', value: (placedMs / 1000).toFixed(1), target: '' },
      { measure: 'measured live window (s)', value: seconds.toFixed(1), target: '' },
      { measure: 'event-loop delay p50 (ms)', value: delay(histogram.percentile(50)).toFixed(1), target: '' },
      { measure: 'event-loop delay p99 (ms)', value: p99.toFixed(1), target: '< 20' },
      { measure: 'event-loop delay max (ms)', value: delay(histogram.max).toFixed(1), target: '' },
      { measure: 'CPU per call (ms per second of call = ‰ of a core)', value: cpuMsPerCallSecond.toFixed(2), target: '< 200 (a fifth of a core)' },
      { measure: 'service process CPU over the window (% of one core)', value: (((cpu.user + cpu.system) / 1000 / (seconds * 1000)) * 100).toFixed(0), target: `cores: ${os.cpus().length}` },
      { measure: 'final statuses', value: rows.map((r) => `${r.status} ${r.n}`).join(', '), target: `ended_by_customer ${CALLS}` },
      { measure: 'p99 target met (with all calls live)', value: live === CALLS && p99 < 20 ? 'yes' : 'no', target: 'yes' },
      { measure: `log written at ${config.LOG_LEVEL} (KiB)`, value: Math.round(logs.bytes() / 1024), target: '' },
    ];
  } finally {
    await service.close();
    logs.close();
    double.child.kill();
    await database.cleanup();
  }
}

export const settings = settingsNote({ TWILIO_API_URL: 'the Twilio double' });

/** For `npm run bench`: measures in a child process, so the numbers are this workload's alone. */
export async function run(): Promise<Row[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', self, '--json'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`twilio benchmark failed (${code}):\n${out}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '[]') as Row[]);
    });
  });
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === self) {
  const rows = await measure();
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(rows)}\n`);
  else printTable(`${CALLS} concurrent Twilio calls in one process`, rows, settings);
  process.exit(0);
}
