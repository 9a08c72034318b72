/**
 * `npm run bench turn-signals`: what the end-of-turn signals (src/voice/turn) cost the service.
 *
 * 1. Smart Turn v3 in its worker thread, on a turn of real caller speech (a test fixture at
 *    16 kHz with 500 ms before it; and 8 s of speech, the worst case): the Whisper features per
 *    request (measured in the worker) and the
 *    service's event-loop delay while N calls' turn ends arrive at a conversational rate (one per
 *    call every 4 s on average, Poisson). The model is the ONNX stand-in of the tests (the real
 *    8 MB file is not available here; Daily gives 12 ms per inference on a modern CPU), so the
 *    inference column is not the real model's.
 * 2. The text judge, the backchannel detector and the end-of-turn policy on the main thread:
 *    time per call of each, on the transcripts a turn produces.
 * Target (issue 26 (g)): event-loop p99 < 20 ms at N = 200 calls with the signals on. Wall times
 * on a shared machine are inflated by its load; the CPU rows are the robust cost figure.
 */
import { monitorEventLoopDelay, performance as perf } from 'node:perf_hooks';
import { concat, int16ToFloat32 } from '../src/audio/pcm.js';
import { resample } from '../src/audio/resample.js';
import { BackchannelDetector } from '../src/voice/turn/backchannel.js';
import { judgeCompleteness } from '../src/voice/turn/completeness.js';
import { EndOfTurnPolicy, turnWaits } from '../src/voice/turn/policy.js';
import { SmartTurn } from '../src/voice/turn/smart-turn.js';
import { whisperFeatures } from '../src/voice/turn/whisper-features.js';
import { fixtureAudio } from '../test/support/audio-fixtures.js';
import { logit, writeSmartTurnStandIn } from '../test/support/onnx-stand-in.js';
import type { Row } from './lib.js';

const CALLS = Number(process.env.BENCH_TURN_CALLS ?? 200);
const SECONDS = Number(process.env.BENCH_TURN_SECONDS ?? 10);

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

/** A turn as Smart Turn gets it: 500 ms before the speech, one utterance (the fixture). */
function turn16k(): Float32Array {
  return int16ToFloat32(concat([new Int16Array(8000), fixtureAudio('book-appointment', 16_000)]));
}

/** The worst case: 8 s of speech (three fixtures, the last 8 s). */
function full16k(): Float32Array {
  const audio = concat([fixtureAudio('book-appointment', 16_000), fixtureAudio('yes-that-works', 16_000), fixtureAudio('long-interruption', 16_000)]);
  return int16ToFloat32(audio.length > 128_000 ? audio.subarray(audio.length - 128_000) : audio);
}

async function smartTurnRows(): Promise<Row[]> {
  const model = await SmartTurn.load(writeSmartTurnStandIn(0.5, logit(0.5)), { maxQueue: CALLS });
  const audio = turn16k();
  const full = full16k();
  // Warm-up (the worker also warms itself at load), then the worst case alone.
  for (let i = 0; i < 5; i++) await model.predict(audio);
  const worst: number[] = [];
  for (let i = 0; i < 10; i++) worst.push((await model.predict(full)).featuresMs);
  const features: number[] = [];
  const inference: number[] = [];
  const latency: number[] = [];
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const perSecond = CALLS / 4;
  const pending: Promise<void>[] = [];
  const started = perf.now();
  // Turn ends of all calls as one Poisson stream.
  let next = 0;
  while (perf.now() - started < SECONDS * 1000) {
    next += (-Math.log(1 - Math.random()) / perSecond) * 1000;
    const wait = started + next - perf.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const asked = perf.now();
    pending.push(
      model.predict(audio).then(
        (r) => {
          features.push(r.featuresMs);
          inference.push(r.inferenceMs);
          latency.push(perf.now() - asked);
        },
        () => undefined,
      ),
    );
  }
  await Promise.all(pending);
  loop.disable();
  const dropped = model.stats.dropped;
  await model.close();
  return [
    { measure: `Smart Turn: features of a ${(audio.length / 16_000).toFixed(1)} s turn, p50 / p95 (ms, in the worker)`, value: `${percentile(features, 50).toFixed(1)} / ${percentile(features, 95).toFixed(1)}`, target: '' },
    { measure: 'Smart Turn: features of 8 s of speech (worst case), p50 (ms, in the worker)', value: percentile(worst, 50).toFixed(1), target: '' },
    { measure: `Smart Turn: stand-in inference p50 (ms; real model: ~12 ms published)`, value: percentile(inference, 50).toFixed(2), target: '' },
    { measure: `${CALLS} calls, ${perSecond} turn ends/s: answer latency p50 / p95 (ms)`, value: `${percentile(latency, 50).toFixed(0)} / ${percentile(latency, 95).toFixed(0)}`, target: 'p95 < 290 (the complete wait)' },
    { measure: `${CALLS} calls: requests answered / dropped (queue full)`, value: `${latency.length} / ${dropped}`, target: '0 dropped' },
    { measure: `${CALLS} calls: event-loop delay p99 / max (ms)`, value: `${(loop.percentile(99) / 1e6).toFixed(1)} / ${(loop.max / 1e6).toFixed(1)}`, target: 'p99 < 20' },
  ];
}

/** CPU time of the features (measured here, in this thread: robust on a shared machine, unlike wall time). */
function featuresCpuRows(): Row[] {
  return [turn16k(), full16k()].map((audio) => {
    for (let i = 0; i < 3; i++) whisperFeatures(audio);
    const cpu = process.cpuUsage();
    const n = 20;
    for (let i = 0; i < n; i++) whisperFeatures(audio);
    const used = process.cpuUsage(cpu);
    return { measure: `Whisper features of ${(audio.length / 16_000).toFixed(1)} s: CPU per request (ms)`, value: ((used.user + used.system) / 1000 / n).toFixed(1), target: '' };
  });
}

function mainThreadRows(): Row[] {
  const turns = ['I would like to book an appointment for', 'I would like to book an appointment for Tuesday.', 'Ich hätte gern einen Termin am Dienstag.', 'Mein Name ist äh', 'What time do you open?'];
  const n = 20_000;
  let t = perf.now();
  for (let i = 0; i < n; i++) judgeCompleteness(turns[i % turns.length], i % 5 === 2 || i % 5 === 3 ? 'de' : 'en');
  const judge = ((perf.now() - t) / n) * 1000;
  const detector = new BackchannelDetector('en', ['roger that']);
  const overlaps = ['mhm mhm', 'Yeah, okay.', 'Stop, wait a second.', 'uh-huh', 'no, that is wrong'];
  t = perf.now();
  for (let i = 0; i < n; i++) detector.classify(overlaps[i % overlaps.length]);
  const backchannel = ((perf.now() - t) / n) * 1000;
  // One turn as the policy sees it: speech, 6 interims, a final, the end of speech, ticks to the confirmation.
  t = perf.now();
  const runs = 2000;
  let events = 0;
  for (let i = 0; i < runs; i++) {
    const policy = new EndOfTurnPolicy({ endpointType: 'vad', language: 'en', waits: turnWaits(0.5) });
    policy.handle({ type: 'speech-started', at: 0 }, 0);
    const words = turns[1].split(' ');
    for (let k = 1; k <= 6; k++) policy.handle({ type: 'transcript', text: words.slice(0, k + 2).join(' '), final: false }, k * 250);
    policy.handle({ type: 'transcript', text: turns[1], final: true }, 1700);
    policy.handle({ type: 'speech-stopped', at: 1600 }, 1800);
    for (let d = policy.nextDeadline(); d !== null; d = policy.nextDeadline()) policy.tick(d);
    events += 10;
  }
  const perTurn = ((perf.now() - t) / runs) * 1000;
  return [
    { measure: 'text completeness judge per transcript (µs, main thread)', value: judge.toFixed(1), target: '' },
    { measure: 'backchannel detector per utterance (µs, main thread)', value: backchannel.toFixed(1), target: '' },
    { measure: `end-of-turn policy per turn of ${events / runs} events (µs, main thread)`, value: perTurn.toFixed(1), target: '< 1000' },
  ];
}

export async function run(): Promise<Row[]> {
  return [...mainThreadRows(), ...featuresCpuRows(), ...(await smartTurnRows())];
}
