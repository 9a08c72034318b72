/**
 * `npm run bench vad`: Silero VAD v5 on onnxruntime-node, in this process (inference on the
 * runner's worker thread; CPU figures are the whole process's, worker included).
 *
 * 1. Cost per window by batch size (8 kHz, 256-sample windows of real caller speech): CPU time
 *    of the process per window (robust on a shared machine) and wall time per inference.
 * 2. N calls at real pace: every call gets a 20 ms frame of 8 kHz phone audio every 20 ms
 *    (the caller fixtures, looped; one driver for all calls) through a VoiceActivityDetector,
 *    as a call's VAD stage does;
 *    measured: event-loop delay p99, CPU per call, and how late windows are scored (p99) —
 *    batched (the runner's default) and, for comparison, one inference per window.
 *    Target (issue 19): N ≥ 200 calls with event-loop p99 < 20 ms.
 */
import os from 'node:os';
import { monitorEventLoopDelay, performance as perf } from 'node:perf_hooks';
import { concat, silence } from '../src/audio/pcm.js';
import { VoiceActivityDetector } from '../src/audio/vad/detector.js';
import { SileroVadRunner } from '../src/audio/vad/silero.js';
import { fixtureAudio } from '../test/support/audio-fixtures.js';
import type { Row } from './lib.js';

const RATE = 8000;
const WINDOW = 256;
const FRAME = 160; // 20 ms at 8 kHz, a Twilio media frame
const SECONDS = Number(process.env.BENCH_VAD_SECONDS ?? 8);

/** A few seconds of conversation-like audio: speech and pauses. */
function callerAudio(): Int16Array {
  return concat([
    fixtureAudio('book-appointment', RATE),
    silence(700, RATE),
    fixtureAudio('yes-that-works', RATE),
    silence(1200, RATE),
    fixtureAudio('long-interruption', RATE),
    silence(500, RATE),
  ]);
}

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
const percentile = (xs: number[], p: number) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function costByBatch(audio: Int16Array): Promise<Row[]> {
  const rows: Row[] = [];
  for (const batch of [1, 16, 64, 200]) {
    const runner = await SileroVadRunner.load({ maxBatch: batch });
    const vads = Array.from({ length: batch }, () => runner.open(RATE));
    const steps = Math.max(20, Math.round(2000 / batch));
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let s = 0; s < steps; s++) {
      const at = ((s * WINDOW) % (audio.length - WINDOW));
      await Promise.all(vads.map((v, i) => v.probability(audio.slice((at + i * 97) % (audio.length - WINDOW), ((at + i * 97) % (audio.length - WINDOW)) + WINDOW))));
    }
    const wall = performance.now() - started;
    const used = cpuMs(process.cpuUsage(cpu));
    const windows = steps * batch;
    rows.push({
      measure: `batch of ${batch}: CPU per window (ms)`,
      value: (used / windows).toFixed(3),
      target: batch === 1 ? '' : `< batch of 1`,
    });
    rows.push({ measure: `batch of ${batch}: wall per inference (ms)`, value: (wall / steps).toFixed(2), target: '' });
    runner.close();
  }
  return rows;
}

interface PaceResult {
  loopP99: number;
  loopMax: number;
  /** Share of the time the event loop was busy (not waiting for I/O or timers). */
  utilization: number;
  cpuPerCallPct: number;
  lateP99: number;
  windows: number;
  inferences: number;
}

/** N calls, each a 20 ms frame every 20 ms, for SECONDS; windows' lateness = scored − due. */
async function atPace(n: number, maxBatch: number, audio: Int16Array, thread: 'worker' | 'main' = 'worker'): Promise<PaceResult> {
  const runner = await SileroVadRunner.load({ maxBatch, thread });
  const late: number[] = [];
  const timers: NodeJS.Timeout[] = [];
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  // One driver delivers every call's next 20 ms frame each period, the way frames of many
  // sockets arrive between two turns of the event loop; per-call timers would measure Node's
  // timer list more than the VAD.
  const calls = Array.from({ length: n }, (_, c) => {
    const model = runner.open(RATE);
    // The detector's window scoring, timed: when the window's last frame arrived → scored.
    const timed = {
      sampleRate: model.sampleRate,
      windowSamples: model.windowSamples,
      probability: (w: Int16Array) => {
        const due = performance.now();
        return model.probability(w).then((p) => {
          late.push(performance.now() - due);
          return p;
        });
      },
    };
    return { detector: new VoiceActivityDetector(timed, () => undefined), at: (c * 1237) % audio.length };
  });
  timers.push(setInterval(() => {
    for (const call of calls) {
      if (call.at + FRAME > audio.length) call.at = 0;
      call.detector.push(audio.subarray(call.at, call.at + FRAME));
      call.at += FRAME;
    }
  }, 20));
  await new Promise((r) => setTimeout(r, 1000)); // warm-up
  histogram.enable();
  const cpuWarm = process.cpuUsage();
  const elu = perf.eventLoopUtilization();
  const before = { ...runner.stats };
  late.length = 0;
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  histogram.disable();
  const used = cpuMs(process.cpuUsage(cpuWarm));
  for (const t of timers) clearInterval(t);
  const result: PaceResult = {
    loopP99: histogram.percentile(99) / 1e6,
    loopMax: histogram.max / 1e6,
    utilization: perf.eventLoopUtilization(elu).utilization,
    cpuPerCallPct: (used / (SECONDS * 1000) / n) * 100,
    lateP99: percentile(late, 99),
    windows: runner.stats.windows - before.windows,
    inferences: runner.stats.inferences - before.inferences,
  };
  await new Promise((r) => setTimeout(r, 200));
  runner.close();
  return result;
}

export async function run(): Promise<Row[]> {
  const audio = callerAudio();
  const rows: Row[] = [
    { measure: 'machine', value: `${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)} at start`, target: '' },
    ...(await costByBatch(audio)),
  ];
  let largest = 0;
  for (const n of [50, 100, 200, 400]) {
    const r = await atPace(n, 256, audio);
    const ok = r.loopP99 < 20;
    if (ok) largest = n;
    rows.push({ measure: `${n} calls batched: event-loop delay p99 / max (ms)`, value: `${r.loopP99.toFixed(1)} / ${r.loopMax.toFixed(1)}`, target: '< 20' });
    rows.push({ measure: `${n} calls batched: event loop busy (%)`, value: (r.utilization * 100).toFixed(1), target: '' });
    rows.push({ measure: `${n} calls batched: CPU per call (% of a core)`, value: r.cpuPerCallPct.toFixed(2), target: '' });
    rows.push({ measure: `${n} calls batched: window scored late p99 (ms)`, value: r.lateP99.toFixed(1), target: '< 32 (one window)' });
    rows.push({ measure: `${n} calls batched: windows per inference`, value: (r.windows / Math.max(1, r.inferences)).toFixed(1), target: '' });
    if (!ok && n >= 200) break;
  }
  rows.push({ measure: 'largest N tried with event-loop p99 < 20 ms (batched)', value: largest, target: '≥ 200' });
  for (const n of [100, 200]) {
    // Before inference moved to a worker thread (onnxruntime-node's run blocks the thread it runs on).
    const r = await atPace(n, 256, audio, 'main');
    rows.push({ measure: `${n} calls batched, inference on the main thread: event-loop p99 (ms) / CPU per call (%) / late p99 (ms)`, value: `${r.loopP99.toFixed(1)} / ${r.cpuPerCallPct.toFixed(2)} / ${r.lateP99.toFixed(1)}`, target: 'comparison' });
  }
  for (const n of [100, 200]) {
    const r = await atPace(n, 1, audio);
    rows.push({ measure: `${n} calls unbatched: event-loop p99 (ms) / CPU per call (%) / late p99 (ms)`, value: `${r.loopP99.toFixed(1)} / ${r.cpuPerCallPct.toFixed(2)} / ${r.lateP99.toFixed(1)}`, target: 'comparison' });
  }
  rows.push({ measure: 'machine load average (1 min, at the end)', value: os.loadavg()[0].toFixed(1), target: '' });
  return rows;
}
