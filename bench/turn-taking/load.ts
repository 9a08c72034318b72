/**
 * `npm run bench turn-taking` part (g): N concurrent calls (default 200) in one service process,
 * each a conversation of the corpus at real pace on the Twilio double (callers speak, are
 * recognised, answered, talk over replies, press keys), at default assistant settings; the
 * Twilio and vendor doubles run in a process of their own (load-doubles.ts). Measured in the
 * service's process while every call is live, as bench/voice.ts measures its concurrent calls:
 * the event-loop delay (monitorEventLoopDelay, 1 ms resolution) and the CPU per call.
 * Prints the figures as one JSON line (bench/turn-taking.ts makes the row).
 *
 *   npx tsx bench/turn-taking/load.ts [--quick]
 *
 * Settings: BENCH_TURN_N (200; quick 20), BENCH_TURN_LOAD_SECONDS (30; quick 10).
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fullProcess } from '../../src/compose.js';
import { startService } from '../../src/service.js';
import { benchDatabase, benchLogger, root } from '../lib.js';
import type { LoadFigures } from './figures.js';
import { ADMIN_TOKEN, benchConfig, httpApi, setUpLine } from './harness.js';

const QUICK = process.argv.includes('--quick') || process.env.BENCH_TURN_QUICK === '1';
const CALLS = Number(process.env.BENCH_TURN_N ?? (QUICK ? 20 : 200));
const SECONDS = Number(process.env.BENCH_TURN_LOAD_SECONDS ?? (QUICK ? 10 : 30));
const PUBLIC = 'https://sb.example';

async function startDoubles() {
  // Enough items that every call still talks when the window ends (an item takes ~5–15 s).
  const items = Math.ceil((SECONDS + 40) / 5);
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench', 'turn-taking', 'load-doubles.ts')], {
    cwd: root,
    env: { ...process.env, CALLS: String(CALLS), ITEMS: String(items) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  // The doubles stand for the carrier and the vendors, which run on other machines: on a shared
  // 2-core machine they yield the CPU to the service being measured (lowest priority).
  try {
    os.setPriority(child.pid!, 19);
  } catch {
    // Not allowed here: measured at equal priority.
  }
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`the doubles exited (${code})`)));
  });
  return { child, ...(JSON.parse(line) as { twilio: { url: string; accountSid: string; authToken: string }; env: Record<string, string> }) };
}

async function measure(): Promise<LoadFigures> {
  const doubles = await startDoubles();
  const database = await benchDatabase(true, 'sb_bench_turn_load');
  const config = benchConfig({
    ...doubles.env,
    PUBLIC_BASE_URL: PUBLIC,
    TWILIO_ACCOUNT_SID: doubles.twilio.accountSid,
    TWILIO_AUTH_TOKEN: doubles.twilio.authToken,
    TWILIO_API_URL: doubles.twilio.url,
    SECRET_KEY: 'k'.repeat(40),
  });
  const logs = benchLogger(config.LOG_LEVEL);
  const service = await startService({ config, databaseUrl: database.url, listen: true, parts: fullProcess, poolSize: 20, log: logs.log });
  doubles.child.stdin!.write(`${service.url}\n`);
  try {
    const api = httpApi(service.url!, ADMIN_TOKEN);
    const line = await setUpLine(api, CALLS + 10);
    const engine = service.ctx.services.callEngine!;
    let next = 0;
    const placer = async () => {
      while (next < CALLS) {
        const i = next++;
        const res = await api('POST', '/api/user/make_call', { phone_number: `+1415557${String(i).padStart(4, '0')}`, assistant_id: line.assistants.en }, line.token);
        if (res.status !== 200) throw new Error(`make_call: ${res.status} ${JSON.stringify(res.body)}`);
      }
    };
    await Promise.all(Array.from({ length: 20 }, placer));
    const deadline = Date.now() + 90_000;
    while (engine.activeCalls() < CALLS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    // Past the greetings: the callers are talking.
    await new Promise((r) => setTimeout(r, 5000));
    const live = engine.activeCalls();
    const delay = monitorEventLoopDelay({ resolution: 1 });
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    delay.enable();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    delay.disable();
    const cpu = process.cpuUsage(cpu0);
    const wall = performance.now() - t0;
    const liveAtEnd = engine.activeCalls();
    const [load1] = os.loadavg();
    return {
      calls: CALLS,
      live: Math.min(live, liveAtEnd),
      p50: delay.percentile(50) / 1e6,
      p99: delay.percentile(99) / 1e6,
      max: delay.max / 1e6,
      seconds: wall / 1000,
      cpuPerCall: ((cpu.user + cpu.system) / 1000 / wall / CALLS) * 100,
      under: `defaults; ${CALLS} concurrent English conversations of the corpus at real pace (Twilio + vendor doubles in a second process, 0 ms); ${live} live at the window's start, ${liveAtEnd} at its end; load average ${load1!.toFixed(1)} on ${os.cpus().length} cores (shared with other work)`,
    };
  } finally {
    doubles.child.stdin!.end();
    await Promise.race([service.close(), new Promise((r) => setTimeout(r, 30_000))]);
    logs.close();
    doubles.child.kill();
    await database.cleanup();
  }
}

const figures = await measure();
process.stdout.write(`${JSON.stringify(figures)}\n`);
process.exit(0);
