/**
 * `npm run bench voice`: the voice core (src/voice) in this process, vendors replaced by the
 * local protocol doubles (chat completions, OpenAI-compatible speech), the line by SandboxMedia at
 * real pace (8 kHz), the VAD by Silero (the shared batched runner; EnergyVad only if the model is
 * missing, which the table then says).
 *
 * (a) Platform-added latency per turn: the caller's words are in (`customerSaid`, i.e. the end of
 *     turn) → the first 20 ms audio frame handed to the line, minus the doubles' configured delays
 *     (LLM: none; speech server: `SPEECH_DELAY_MS` before its first byte). What is left is our
 *     code: LLM stage, sentence aggregation, TTS stage, resampling, pacing, plus the local HTTP
 *     round trips to the doubles.
 * (b) Barge-in reaction: the caller's speech onset (the first frame of the caller's utterance on the
 *     line while the assistant talks) → the line's playback cleared, at interrupt_sensitivity 5
 *     (threshold 0.35, two 32 ms VAD windows of speech; see docs/decisions.md for the table). The
 *     line carries silence before the utterance, as a phone line does, so the VAD's state is warm
 *     (a cold VAD scores this fixture's soft onset sooner, which would flatter the number).
 * (c) N concurrent calls at real pace, audio both ways: every call's caller talks continuously (a
 *     fixture looped, 20 ms frames through the VAD), and every 3 s the assistant answers a sentence
 *     (LLM double → speech double → paced audio out). Event-loop delay p99 and CPU per call, per N.
 *     The doubles run in this process too, so their work is counted against ours (conservative).
 */
import { monitorEventLoopDelay, performance as perf } from 'node:perf_hooks';
import { SileroVad, sharedVadRunner } from '../src/audio/vad/silero.js';
import { MemoryTurnRecorder, TurnTracker } from '../src/calls/turns.js';
import type { Frame } from '../src/voice/frames.js';
import { END_CALL_FUNCTION } from '../src/voice/llm.js';
import { EnergyVad, type VadModel } from '../src/voice/vad.js';
import { VoiceCall } from '../src/voice/voice-call.js';
import type { ChatMessage } from '../src/providers/llm/types.js';
import { OpenAiCompatibleLlm } from '../src/providers/llm/openai.js';
import { OpenAiTts } from '../src/providers/tts/openai/index.js';
import { systemClock } from '../src/telephony/clock.js';
import { SandboxMedia } from '../src/telephony/sandbox/media.js';
import { fixtureAudio } from '../test/support/audio-fixtures.js';
import { concat, silence } from '../src/audio/pcm.js';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { benchLogger, root, settingsNote } from './lib.js';
import { callTools, ToolRunner } from '../src/calls/tool-runner.js';
import type { Row } from './lib.js';

const RATE = 8000;
const SPEECH_DELAY_MS = 40;
const TURNS = Number(process.env.BENCH_VOICE_TURNS ?? 30);
const BARGE_INS = Number(process.env.BENCH_VOICE_BARGE_INS ?? 15);
const SECONDS = Number(process.env.BENCH_VOICE_SECONDS ?? 8);
const SIZES = (process.env.BENCH_VOICE_N ?? '100,200,300').split(',').map(Number);
/** The calls log as the service's do: at the default level (info), JSON lines to a file. */
const logs = benchLogger('info');
const log = logs.log;

export const settings = settingsNote();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');

interface Env {
  chat: { baseUrl: string };
  speech: { baseUrl: string; knobs: { apiKey: string | null } };
  vad: () => VadModel;
  vadLabel: string;
}

/** The sandbox line, stamping when each caller frame reaches the voice core. */
class StampedMedia extends SandboxMedia {
  readonly delivered: number[] = [];
  override onAudio(listener: (samples: Int16Array) => void): void {
    super.onAudio((samples) => {
      this.delivered.push(performance.now());
      listener(samples);
    });
  }
}

function makeCall(env: Env, interruptSensitivity: number) {
  const media = new StampedMedia(RATE, systemClock);
  const messages: ChatMessage[] = [{ role: 'system', content: 'You are a benchmark.' }];
  const vc = new VoiceCall({
    media,
    clock: systemClock,
    log,
    llm: {
      llm: new OpenAiCompatibleLlm({ baseUrl: env.chat.baseUrl }),
      model: 'double',
      temperature: 0,
      messages,
      tools: callTools([], new ToolRunner({ allowPrivate: true, log })),
      specs: [{ name: END_CALL_FUNCTION, description: 'End the call.', parameters: { type: 'object', properties: {} } }],
      variables: {},
    },
    tts: { provider: new OpenAiTts({ baseUrl: env.speech.baseUrl, apiKey: env.speech.knobs.apiKey!, model: 'tts-1' }), options: { voice: 'alloy', sampleRate: RATE, language: 'en' } },
    vad: env.vad(),
    turnTaking: { endpointType: 'vad', endpointSensitivity: 2.5, interruptSensitivity, allowInterruptions: true, minInterruptWords: 0 },
    tracker: new TurnTracker(new MemoryTurnRecorder(), systemClock),
  });
  return { vc, media, messages };
}

function waitFor(vc: VoiceCall, kind: Frame['kind'], timeoutMs = 10_000): Promise<Frame> {
  return new Promise((resolve, reject) => {
    let done = false;
    const timer = setTimeout(() => {
      done = true;
      reject(new Error(`no ${kind} within ${timeoutMs} ms`));
    }, timeoutMs);
    vc.onFrame((f: Frame) => {
      if (done || f.kind !== kind) return;
      done = true;
      clearTimeout(timer);
      resolve(f);
    });
  });
}

async function platformLatency(env: Env): Promise<Row> {
  const samples: number[] = [];
  const totals: number[] = [];
  const { vc } = makeCall(env, 2.5);
  for (let i = -1; i < TURNS; i++) {
    const at: Partial<Record<'said' | 'endOfTurn' | 'llm' | 'speak' | 'tts' | 'audio', number>> = {};
    const stamp = (key: keyof typeof at) => (at[key] ??= performance.now());
    vc.pipeline.observe((f) => {
      if (f.kind === 'end-of-turn') stamp('endOfTurn');
      else if (f.kind === 'llm-delta') stamp('llm');
      else if (f.kind === 'speak' && f.source === 'llm') stamp('speak');
      else if (f.kind === 'tts-audio') stamp('tts');
    });
    const firstAudio = waitFor(vc, 'audio-out');
    const done = waitFor(vc, 'playback-done');
    stamp('said');
    vc.customerSaid(`turn ${i}`);
    await firstAudio;
    stamp('audio');
    await done;
    if (i < 0) continue; // the first turn opens the HTTP connections: warm-up, not counted
    const total = at.audio! - at.said!;
    // The vendors' share, measured at our boundary: LLM request → first token, TTS request → first audio.
    const vendors = at.llm! - at.endOfTurn! + (at.tts! - at.speak!);
    totals.push(total);
    samples.push(total - vendors);
  }
  await vc.close('bench over');
  return {
    measure: '(a) platform-added latency per turn: words in → first audio frame out, minus the doubles’ time',
    p50: `${f1(pct(samples, 50))} ms`,
    p99: `${f1(pct(samples, 99))} ms`,
    target: 'p99 < 20 ms',
    met: pct(samples, 99) < 20 ? 'yes' : 'no',
    notes: `${TURNS} turns; end to end p50 ${f1(pct(totals, 50))} ms incl. doubles (speech first byte ${SPEECH_DELAY_MS} ms + its synthesis)`,
  };
}

async function bargeInReaction(env: Env): Promise<Row> {
  const samples: number[] = [];
  const LEAD_MS = 600;
  const caller = concat([silence(LEAD_MS, RATE), fixtureAudio('long-interruption', RATE)]);
  const onsetFrame = LEAD_MS / 20;
  for (let i = 0; i < BARGE_INS; i++) {
    const { vc, media } = makeCall(env, 5);
    let clearedAt = 0;
    const clear = media.clear.bind(media);
    media.clear = () => {
      if (clearedAt === 0) clearedAt = performance.now();
      clear();
    };
    const marked = waitFor(vc, 'playback-mark');
    vc.customerSaid('tell me a long story');
    await marked;
    const interrupted = waitFor(vc, 'interruption', 5000);
    let started: { at: number; seen: number } | null = null;
    vc.pipeline.observe((f) => {
      if (f.kind === 'speech-started' && started === null) started = { at: f.at, seen: performance.now() };
    });
    const lineStart = media.delivered.length;
    void media.speak(caller);
    await interrupted.catch(() => undefined);
    // Onset: when the utterance's first frame reached the core (the fixture's sound starts 12 ms into it).
    const onset = media.delivered[lineStart + onsetFrame];
    if (clearedAt > 0 && onset !== undefined && clearedAt >= onset) samples.push(clearedAt - onset);
    const s0 = started as { at: number; seen: number } | null;
    if (process.env.BENCH_VOICE_VERBOSE && s0 && onset !== undefined) {
      process.stderr.write(`  onset→window ${(s0.at - onset).toFixed(0)} window→scored ${(s0.seen - s0.at).toFixed(0)} scored→clear ${(clearedAt - s0.seen).toFixed(0)}\n`);
    }
    media.close();
    await vc.close('bench over');
  }
  if (process.env.BENCH_VOICE_VERBOSE) process.stderr.write(`bench voice (b): ${samples.map((x) => x.toFixed(0)).join(' ')} ms\n`);
  return {
    measure: '(b) barge-in reaction: caller speech onset → playback cleared',
    p50: `${f1(pct(samples, 50))} ms`,
    p99: `${f1(pct(samples, 99))} ms`,
    target: 'p99 < 150 ms',
    met: samples.length === BARGE_INS && pct(samples, 99) < 150 ? 'yes' : 'no',
    notes: `${samples.length}/${BARGE_INS} interrupted at the utterance (not in the silence before it); interrupt_sensitivity 5 (threshold 0.35, 2 VAD windows); onset = first frame of the utterance`,
  };
}

async function concurrent(env: Env, n: number): Promise<Row> {
  const caller = fixtureAudio('book-appointment', RATE);
  const calls = Array.from({ length: n }, () => makeCall(env, 2.5));
  let stop = false;
  const loops = calls.map(async ({ vc, media }, i) => {
    await sleep((i * 20) % 3000);
    let last = 0;
    while (!stop) {
      await media.speak(caller);
      if (stop) break;
      if (performance.now() - last > 3000) {
        last = performance.now();
        vc.customerSaid('hello there');
      }
    }
  });
  await sleep(1500); // ramp-up
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const cpu0 = process.cpuUsage();
  const elu0 = perf.eventLoopUtilization();
  const t0 = performance.now();
  delay.enable();
  await sleep(SECONDS * 1000);
  delay.disable();
  const cpu = process.cpuUsage(cpu0);
  const busy = perf.eventLoopUtilization(elu0).utilization;
  const wall = performance.now() - t0;
  stop = true;
  // A closed line drops its pending frames (the loops' last `speak` never resolves): not awaited.
  void loops;
  for (const { media } of calls) media.close();
  await Promise.all(calls.map(({ vc }) => vc.close('bench over')));
  const p99 = delay.percentile(99) / 1e6;
  const cpuPerCall = ((cpu.user + cpu.system) / 1000 / wall / n) * 100;
  return {
    measure: `(c) ${n} concurrent calls at real pace, audio both ways, VAD on every frame`,
    p50: `loop ${f1(delay.percentile(50) / 1e6)} ms`,
    p99: `loop ${f1(p99)} ms`,
    target: 'loop p99 < 20 ms; N ≥ 200',
    met: p99 < 20 ? 'yes' : 'no',
    notes: `CPU per call ${cpuPerCall.toFixed(2)} % of a core (process, VAD worker included); event loop busy ${(busy * 100).toFixed(0)} %; ${env.vadLabel}`,
  };
}

/** Starts the doubles in a process of their own (bench/voice-doubles.ts). */
async function startDoubles(): Promise<{ env: Pick<Env, 'chat' | 'speech'>; stop(): void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench', 'voice-doubles.ts')], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, SPEECH_DELAY_MS: String(SPEECH_DELAY_MS) },
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`voice doubles exited with ${code}`)));
  });
  const urls = JSON.parse(line) as { chat: string; speech: string; apiKey: string };
  return {
    env: { chat: { baseUrl: urls.chat }, speech: { baseUrl: urls.speech, knobs: { apiKey: urls.apiKey } } },
    stop: () => child.stdin!.end(),
  };
}

export async function run(): Promise<Row[]> {
  const doubles = await startDoubles();
  let vad: Env['vad'];
  let vadLabel: string;
  try {
    const runner = await sharedVadRunner();
    vad = () => new SileroVad(runner, 8000);
    vadLabel = 'Silero VAD v5, batched runner';
  } catch {
    vad = () => new EnergyVad(RATE);
    vadLabel = 'energy VAD (Silero model missing)';
  }
  const env: Env = { ...doubles.env, vad, vadLabel };
  const rows: Row[] = [];
  const progress = (what: string) => process.stderr.write(`bench voice: ${what}\n`);
  try {
    progress('(a) platform latency');
    rows.push(await platformLatency(env));
    progress('(b) barge-in reaction');
    rows.push(await bargeInReaction(env));
    let largest = 0;
    for (const n of SIZES) {
      progress(`(c) ${n} concurrent calls`);
      const row = await concurrent(env, n);
      rows.push(row);
      if (row.met === 'yes') largest = n;
    }
    rows.push({
      measure: '(c) largest N measured with event-loop p99 < 20 ms',
      p50: '',
      p99: '',
      target: 'N ≥ 200',
      met: largest >= 200 ? 'yes' : 'no',
      notes: `N = ${largest} (of ${SIZES.join(', ')}); this machine: 2 cores shared with the doubles' process`,
    });
  } finally {
    doubles.stop();
  }
  rows.push({ measure: 'log written at info (KiB)', p50: '', p99: '', target: '', met: '', notes: String(Math.round(logs.bytes() / 1024)) });
  logs.close();
  return rows;
}
