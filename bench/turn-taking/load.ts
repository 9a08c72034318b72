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
 * Settings: BENCH_TURN_N (200; quick 20), BENCH_TURN_LOAD_SECONDS (30; quick 10),
 * BENCH_TURN_DOUBLES_NICE (19: the doubles' process at the lowest priority; on a machine busy
 * with other work they may then fall behind the calls, which end: lower it, e.g. 0),
 * BENCH_TURN_DOUBLES_CPUS (e.g. `1`: the doubles confined to these CPUs with taskset, so the
 * service shares the other cores only with itself — as with a carrier and vendors elsewhere).
 * Diagnosis: BENCH_TURN_PROFILE=<file.cpuprofile> writes a CPU profile of the service's main
 * thread over the measured window (open it in Chrome DevTools or summarise it with
 * bench/cpuprofile-top.ts); BENCH_TURN_LOG=<file> keeps the service's log.
 */
import { spawn, spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { sharedVadRunner } from '../../src/audio/vad/silero.js';
import { fullProcess } from '../../src/compose.js';
import { startService } from '../../src/service.js';
import { benchDatabase, benchLogger, root } from '../lib.js';
import type { LoadFigures } from './figures.js';
import { ADMIN_TOKEN, benchConfig, httpApi, setUpLine } from './harness.js';

const QUICK = process.argv.includes('--quick') || process.env.BENCH_TURN_QUICK === '1';
const CALLS = Number(process.env.BENCH_TURN_N ?? (QUICK ? 20 : 200));
const SECONDS = Number(process.env.BENCH_TURN_LOAD_SECONDS ?? (QUICK ? 10 : 30));
const PUBLIC = 'https://sb.example';
const PROFILE = process.env.BENCH_TURN_PROFILE;

/**
 * CPU time (ms) the main thread — the event loop — has used (Linux: its /proc task entry; the
 * process's figure also holds the VAD and Smart Turn workers and libuv's pool). Null elsewhere.
 */
function mainThreadCpuMs(): number | null {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the line, in clock ticks (USER_HZ: 100 on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

/** The service log's size once what was logged so far is written. */
async function logSize(logs: { log: { flush(cb?: (err?: Error) => void): void }; file: string }): Promise<number> {
  await new Promise<void>((resolve) => logs.log.flush(() => resolve()));
  return fs.statSync(logs.file).size;
}

/**
 * Error lines the service logged between two sizes of its log: a call whose turns fail (e.g. the
 * LLM double, starved of CPU, answering nothing for 15 s) is still live but no longer the workload
 * the figure claims, so the row fails unless there are none.
 */
function errorsLogged(file: string, from: number, to: number): { count: number; top: string } {
  if (to <= from) return { count: 0, top: '' };
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.alloc(to - from);
  fs.readSync(fd, buf, 0, buf.length, from);
  fs.closeSync(fd);
  const messages = new Map<string, number>();
  let count = 0;
  for (const line of buf.toString('utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string };
      if ((entry.level ?? 0) < 50) continue;
      count++;
      messages.set(entry.msg ?? '', (messages.get(entry.msg ?? '') ?? 0) + 1);
    } catch {
      // a line cut at the window's edge
    }
  }
  const top = [...messages].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([m, n]) => `${n}× ${m}`).join('; ');
  return { count, top };
}

/** Starts the inspector's CPU profiler in this thread; the returned function stops it and writes the profile. */
async function startProfile(file: string): Promise<() => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    fs.writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

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
    os.setPriority(child.pid!, Number(process.env.BENCH_TURN_DOUBLES_NICE ?? 19));
  } catch {
    // Not allowed here: measured at equal priority.
  }
  if (process.env.BENCH_TURN_DOUBLES_CPUS) {
    // Diagnosis: confine the doubles (every thread) to these CPUs, so the figure shows the service
    // without the doubles' work on the cores it runs on.
    spawnSync('taskset', ['-a', '-p', '-c', process.env.BENCH_TURN_DOUBLES_CPUS, String(child.pid)], { stdio: 'ignore' });
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
    const stopProfile = PROFILE ? await startProfile(PROFILE) : null;
    const logFrom = await logSize(logs);
    const delay = monitorEventLoopDelay({ resolution: 1 });
    // Garbage-collection pauses in the window (a pause stops the event loop too).
    const gcPauses: number[] = [];
    const gcWatch = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) gcPauses.push(entry.duration);
    });
    gcWatch.observe({ entryTypes: ['gc'] });
    const vad = await sharedVadRunner();
    const vad0 = { ...vad.stats };
    const cpu0 = process.cpuUsage();
    const main0 = mainThreadCpuMs();
    const t0 = performance.now();
    delay.enable();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    delay.disable();
    gcWatch.disconnect();
    const cpu = process.cpuUsage(cpu0);
    const main1 = mainThreadCpuMs();
    const wall = performance.now() - t0;
    const liveAtEnd = engine.activeCalls();
    const failures = errorsLogged(logs.file, logFrom, await logSize(logs));
    await stopProfile?.();
    const [load1] = os.loadavg();
    return {
      calls: CALLS,
      live: Math.min(live, liveAtEnd),
      p50: delay.percentile(50) / 1e6,
      p99: delay.percentile(99) / 1e6,
      max: delay.max / 1e6,
      seconds: wall / 1000,
      cpuPerCall: ((cpu.user + cpu.system) / 1000 / wall / CALLS) * 100,
      mainThreadCpuPerCall: main0 === null || main1 === null ? null : ((main1 - main0) / wall / CALLS) * 100,
      errors: failures.count,
      vad: { batchesPerSecond: (vad.stats.inferences - vad0.inferences) / (wall / 1000), windowsPerBatch: (vad.stats.windows - vad0.windows) / Math.max(1, vad.stats.inferences - vad0.inferences) },
      gc: { pauses: gcPauses.length, totalMs: gcPauses.reduce((a, b) => a + b, 0), maxMs: Math.max(0, ...gcPauses) },
      under: `defaults; ${CALLS} concurrent English conversations of the corpus at real pace (Twilio + vendor doubles in a second process at nice ${process.env.BENCH_TURN_DOUBLES_NICE ?? 19}${process.env.BENCH_TURN_DOUBLES_CPUS ? ` on CPU ${process.env.BENCH_TURN_DOUBLES_CPUS}` : ''}, 0 ms); ${live} live at the window's start, ${liveAtEnd} at its end; ${failures.count} errors logged in the window${failures.count ? ` (${failures.top})` : ''}; load average ${load1!.toFixed(1)} on ${os.cpus().length} cores (shared with other work)`,
    };
  } finally {
    doubles.child.stdin!.end();
    await Promise.race([service.close(), new Promise((r) => setTimeout(r, 30_000))]);
    if (process.env.BENCH_TURN_LOG) {
      logs.log.flush?.();
      fs.copyFileSync(logs.file, process.env.BENCH_TURN_LOG);
    }
    logs.close();
    doubles.child.kill();
    await database.cleanup();
  }
}

const figures = await measure();
process.stdout.write(`${JSON.stringify(figures)}\n`);
process.exit(0);
