/**
 * The table of `npm run bench turn-taking`: the issue's figures (a)–(g) with their targets, then
 * the same figures broken down per kind of utterance and per language (so a good average cannot
 * hide a bad category). Columns: metric, measured, target, pass/fail, measured under.
 */
import type { Row } from '../lib.js';
import type { Category, Lang } from './corpus.js';
import type { ItemObservation } from './harness.js';

export const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
const ms = (n: number) => (Number.isFinite(n) ? `${Math.round(n)} ms` : 'n/a');
const share = (n: number, of: number) => (of === 0 ? 'n/a' : `${((100 * n) / of).toFixed(1)} % (${n}/${of})`);
/** A stop time, or that playback never stopped (an infinite time in the percentiles). */
const stopped = (n: number) => (n === Infinity ? 'not stopped' : ms(n));
const verdict = (ok: boolean | null) => (ok === null ? 'n/a' : ok ? 'pass' : 'FAIL');

export interface Conditions {
  /** What every row of the conversation part ran under (settings, load). */
  conversations: string;
}

export interface LoadFigures {
  calls: number;
  live: number;
  p50: number;
  p99: number;
  max: number;
  seconds: number;
  cpuPerCall: number;
  /** The main thread's (the event loop's) share of cpuPerCall; null where it cannot be read. */
  mainThreadCpuPerCall: number | null;
  /** Error lines the service logged in the window (failed turns: the calls are then not the workload claimed). */
  errors: number;
  /** Garbage-collection pauses of the main thread in the window. */
  gc: { pauses: number; totalMs: number; maxMs: number };
  /** The Silero runner's inferences (each a message to its worker and back) in the window. */
  vad?: { batchesPerSecond: number; windowsPerBatch: number };
  under: string;
}

const isPlain = (o: ItemObservation) => o.category === 'complete' || o.category === 'question' || o.category === 'trigger';

export function headline(obs: ItemObservation[], llm: { requests: number; turns: number }, under: Conditions): Row[] {
  const rows: Row[] = [];
  const plain = obs.filter(isPlain);
  const lat = plain.flatMap((o) => (typeof o.latencyMs === 'number' ? [o.latencyMs] : []));
  const unanswered = plain.filter((o) => o.latencyMs === null).length;
  const p50 = pct(lat, 50);
  const p95 = pct(lat, 95);
  rows.push({
    metric: "(a) caller's last sound → first assistant audio heard, complete sentences and questions",
    measured: `p50 ${ms(p50)}, p95 ${ms(p95)} (n ${lat.length}${unanswered ? `, ${unanswered} unanswered` : ''})`,
    target: 'p50 ≤ 350 ms, p95 ≤ 600 ms',
    'pass/fail': verdict(lat.length === 0 ? null : p50 <= 350 && p95 <= 600 && unanswered === 0),
    'measured under': under.conversations,
  });
  const paused = obs.filter((o) => o.category === 'paused' && o.early !== undefined);
  const early = paused.filter((o) => o.early).length;
  rows.push({
    metric: '(b) paused incomplete sentences (0.8–1.5 s pause): assistant audio before the caller finished',
    measured: share(early, paused.length),
    target: '≤ 5 %',
    'pass/fail': verdict(paused.length === 0 ? null : early / paused.length <= 0.05),
    'measured under': under.conversations,
  });
  const hard = obs.filter((o) => o.category === 'interruption' && o.overReply);
  const stops = hard.map((o) => (typeof o.stopMs === 'number' ? o.stopMs : Infinity));
  const notStopped = stops.filter((s) => !Number.isFinite(s)).length;
  const stopP95 = pct(stops, 95);
  rows.push({
    metric: '(c) hard interruptions over a reply: speech onset → playback paused/cleared (Twilio clear, else audio gone ≥ 400 ms)',
    measured: `p50 ${stopped(pct(stops, 50))}, p95 ${stopped(stopP95)} (n ${hard.length}${notStopped ? `, ${notStopped} not stopped within 5 s` : ''})`,
    target: 'p95 ≤ 300 ms',
    'pass/fail': verdict(hard.length === 0 ? null : stopP95 <= 300),
    'measured under': under.conversations,
  });
  const bc = obs.filter((o) => o.category === 'backchannel' && o.overReply);
  const lost = bc.filter((o) => !o.heardWhole).length;
  const pausedBc = bc.filter((o) => o.paused);
  const resumed = pausedBc.filter((o) => o.heardWhole && typeof o.resumedAfterMs === 'number' && o.resumedAfterMs <= 600).length;
  const answered = bc.filter((o) => o.answeredAsTurn).length;
  rows.push({
    metric: '(d) backchannels over a reply: reply stopped for good (not heard whole, per the call record)',
    measured: `${share(lost, bc.length)}; ${answered} answered as a turn`,
    target: '≤ 5 %',
    'pass/fail': verdict(bc.length === 0 ? null : lost / bc.length <= 0.05),
    'measured under': under.conversations,
  });
  rows.push({
    metric: '(d) backchannels: paused replies resumed within 600 ms and heard whole',
    measured: pausedBc.length === 0 ? `none paused (of ${bc.length})` : share(resumed, pausedBc.length),
    target: 'all',
    'pass/fail': verdict(bc.length === 0 ? null : resumed === pausedBc.length),
    'measured under': under.conversations,
  });
  const counted = obs.filter((o) => o.words !== undefined);
  const missing = counted.reduce((s, o) => s + (o.missingWords ?? 0), 0);
  const words = counted.reduce((s, o) => s + (o.words ?? 0), 0);
  rows.push({
    metric: "(e) caller words (and keys) missing from the call record's transcript, vs the script (backchannels excluded)",
    measured: `${missing} of ${words}`,
    target: '0',
    'pass/fail': verdict(words === 0 ? null : missing === 0),
    'measured under': under.conversations,
  });
  rows.push({
    metric: '(f) LLM requests dropped per caller turn: (streamed requests at the LLM double − reply turns recorded) ÷ reply turns',
    measured: llm.turns === 0 ? 'n/a' : `${((llm.requests - llm.turns) / llm.turns).toFixed(2)} (${llm.requests} requests, ${llm.turns} turns)`,
    target: 'reported',
    'pass/fail': '',
    'measured under': under.conversations,
  });
  return rows;
}

/** (g): the event loop of the service process at N concurrent calls (bench/turn-taking/load.ts). */
export function loadRow(load: LoadFigures): Row {
  return {
    metric: `(g) event-loop delay p99 of the service process at N = ${load.calls} concurrent calls`,
    measured: `p99 ${load.p99.toFixed(1)} ms (p50 ${load.p50.toFixed(1)}, max ${load.max.toFixed(1)}; ${load.live}/${load.calls} calls live throughout, ${load.errors} errors logged; ${load.seconds.toFixed(0)} s; CPU ${load.cpuPerCall.toFixed(2)} % of a core per call${load.mainThreadCpuPerCall === null ? '' : `, ${load.mainThreadCpuPerCall.toFixed(2)} % on the event loop`}; GC ${load.gc.pauses} pauses, ${load.gc.totalMs.toFixed(0)} ms, longest ${load.gc.maxMs.toFixed(1)} ms${load.vad ? `; VAD ${load.vad.batchesPerSecond.toFixed(0)} batches/s of ${load.vad.windowsPerBatch.toFixed(1)} windows` : ''})`,
    target: 'p99 < 20 ms at N = 200',
    'pass/fail': load.calls < 200 ? 'n/a (N < 200)' : verdict(load.live === load.calls && load.errors === 0 && load.p99 < 20),
    'measured under': load.under,
  };
}

const CATEGORIES: Array<Category | 'trigger'> = ['complete', 'question', 'trigger', 'paused', 'dtmf', 'interruption', 'backchannel'];
const NAMES: Record<Category | 'trigger', string> = {
  complete: 'complete sentences',
  question: 'questions',
  trigger: 'questions before a long reply',
  paused: 'paused incomplete sentences (latency after the whole sentence)',
  dtmf: 'sentences with a key pressed inside',
  interruption: 'hard interruptions (answer after)',
  backchannel: 'backchannels',
};

/** The figures per kind of utterance and language: latency, early starts, missing words. */
export function breakdown(obs: ItemObservation[], under: Conditions): Row[] {
  const rows: Row[] = [];
  for (const category of CATEGORIES) {
    for (const lang of ['en', 'de'] as Lang[]) {
      const mine = obs.filter((o) => o.category === category && o.lang === lang);
      if (mine.length === 0) continue;
      const parts: string[] = [`n ${mine.length}`];
      const lat = mine.flatMap((o) => (typeof o.latencyMs === 'number' ? [o.latencyMs] : []));
      if (lat.length) parts.push(`last sound → audio p50 ${ms(pct(lat, 50))} p95 ${ms(pct(lat, 95))}`);
      const early = mine.filter((o) => o.early).length;
      if (mine.some((o) => o.early !== undefined)) parts.push(`assistant early ${early}`);
      const stops = mine.flatMap((o) => (o.category === 'interruption' && o.overReply ? [typeof o.stopMs === 'number' ? o.stopMs : Infinity] : []));
      if (stops.length) parts.push(`onset → stop p50 ${stopped(pct(stops, 50))} max ${stopped(Math.max(...stops))}`);
      const notOver = mine.filter((o) => o.overReply === false).length;
      if (notOver) parts.push(`${notOver} spoken after the reply had ended (left out of (c)/(d))`);
      if (category === 'backchannel') {
        parts.push(`paused ${mine.filter((o) => o.paused).length}, heard whole ${mine.filter((o) => o.heardWhole).length}, answered as a turn ${mine.filter((o) => o.answeredAsTurn).length}`);
      }
      const words = mine.reduce((s, o) => s + (o.words ?? 0), 0);
      if (words) parts.push(`words missing ${mine.reduce((s, o) => s + (o.missingWords ?? 0), 0)}/${words}`);
      rows.push({ metric: `  by kind: ${NAMES[category]}, ${lang}`, measured: parts.join('; '), target: '', 'pass/fail': '', 'measured under': under.conversations });
    }
  }
  return rows;
}
