/**
 * What the caller of a bench call experienced, item by item (bench/turn-taking.ts says which
 * figure uses what): from the Twilio double's person — the steps' call times, the `clear`s, the
 * assistant audio played to them frame by frame — and from the call record's transcript.
 * Call time has the double's 20 ms frame resolution.
 */
import { LONG_REPLIES, RATE, pieceAudio, soundSpan, type Category, type Corpus, type Lang } from './corpus.js';
import type { CallResult } from './harness.js';
import type { StreamPerson } from '../../test/support/doubles/twilio-media.js';

const FRAME_MS = 20;
/** The double's threshold for a frame of assistant speech (RMS, PCM16): twilio-media.ts. */
const SPEECH_RMS = 200;

export interface ItemObservation {
  id: string;
  lang: Lang;
  category: Category | 'trigger';
  /** Caller's last sound → first assistant speech heard after it (null: none before the next step). */
  latencyMs?: number | null;
  /** Assistant speech heard while the caller was still speaking this item. */
  early?: boolean;
  /** Interruptions/backchannels: the long reply was playing when the caller started. */
  overReply?: boolean;
  /** Interruptions: speech onset → `clear`, else playback gone for 400 ms (null: not within 5 s). */
  stopMs?: number | null;
  /** Backchannels: playback cleared, else gone for 200 ms, within 2 s of the onset; how soon it played again; the reply heard whole (per the call record). */
  paused?: boolean;
  resumedAfterMs?: number | null;
  heardWhole?: boolean;
  answeredAsTurn?: boolean;
  /** Script words (and keys) of this item missing from the call record's transcript. */
  missingWords?: number;
  words?: number;
}

/** Per 20 ms frame of call time: RMS of the assistant audio played to the person, −1 where nothing played. */
function playedFrames(person: StreamPerson): Float32Array {
  const out = new Float32Array(person.frame + 1).fill(-1);
  for (const seg of person.heard) {
    const first = Math.round(seg.atMs / FRAME_MS);
    for (let k = 0; k * 160 < seg.samples.length; k++) {
      const chunk = seg.samples.subarray(k * 160, (k + 1) * 160);
      let sum = 0;
      for (const v of chunk) sum += v * v;
      if (first + k < out.length) out[first + k] = Math.sqrt(sum / chunk.length);
    }
  }
  return out;
}

const tokens = (text: string) =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}']+/u)
    .filter(Boolean);

function lines(transcript: string): Array<{ who: 'AI' | 'Customer' | 'other'; text: string }> {
  return transcript
    .split('\n')
    .filter(Boolean)
    .map((l) => (l.startsWith('AI: ') ? { who: 'AI', text: l.slice(4) } : l.startsWith('Customer: ') ? { who: 'Customer', text: l.slice(10) } : { who: 'other', text: l }));
}

const same = (a: string, b: string) => tokens(a).join(' ') === tokens(b).join(' ');

/** Every word of `whole`, in order, within `heard` (words said twice around a resume do not matter). */
function inOrder(whole: string[], heard: string[]): boolean {
  let at = 0;
  for (const word of heard) if (word === whole[at]) at++;
  return at === whole.length;
}

/** What a call looked like from the caller's side (BENCH_TURN_VERBOSE): steps, clears, heard audio, the record's transcript. */
export function describeCall(result: CallResult): string {
  const person = result.call.person;
  const events = person?.events.filter((e) => e.type === 'step' || e.type === 'in:clear' || e.type === 'out:dtmf').map((e) => `${e.atMs} ${e.type} ${e.detail ?? ''}`.trim());
  const heard = person?.heard.map((h) => `${h.atMs}+${Math.round(h.samples.length / 8)}`);
  return [`call ${result.callId} (${result.plan.items.map((x) => x.id).join(', ')}): ${result.status}`, `  events: ${events?.join(' | ')}`, `  heard (ms+ms): ${heard?.join(' ')}`, ...result.transcript.split('\n').map((l) => `  ${l}`)].join('\n');
}

export function observe(corpus: Corpus, result: CallResult): ItemObservation[] {
  const person = result.call.person;
  if (!person) return result.plan.items.map((x) => ({ id: x.id, lang: x.lang, category: x.category, missingWords: tokens(x.text).length, words: tokens(x.text).length }));
  const played = playedFrames(person);
  const speech = (f: number) => (played[f] ?? -1) > SPEECH_RMS;
  const playing = (f: number) => (played[f] ?? -1) >= 0;
  const steps = person.events.filter((e) => e.type === 'step');
  const sayAt = (label: string) => steps.find((e) => e.detail === `say ${label}`)?.atMs ?? null;
  /** Call time of the first step after the one labelled (where this item's window ends). */
  const after = (label: string) => {
    const i = steps.findIndex((e) => e.detail === `say ${label}`);
    const later = steps.slice(i + 1).find((e) => e.detail?.startsWith('say '));
    return later?.atMs ?? person.frame * FRAME_MS;
  };
  const firstSpeech = (fromMs: number, toMs: number) => {
    for (let f = Math.ceil(fromMs / FRAME_MS); f * FRAME_MS < toMs && f < played.length; f++) if (speech(f)) return f * FRAME_MS;
    return null;
  };
  /**
   * Where playback stopped after `fromMs` (within `withinMs`): the first `clear` (Twilio's way to
   * stop at once), else the start of the first stretch of `gapMs` with nothing played (an output
   * that stops sending). A clear wins: on a loaded machine the line also runs dry for a moment
   * now and then, which is not a stop.
   */
  const stopAfter = (fromMs: number, gapMs: number, withinMs: number) => {
    const clear = person.clears.find((c) => c >= fromMs - FRAME_MS && c <= fromMs + withinMs);
    if (clear !== undefined) return Math.max(clear, fromMs);
    const need = gapMs / FRAME_MS;
    let gap: number = Infinity;
    for (let f = Math.floor(fromMs / FRAME_MS); f * FRAME_MS < fromMs + withinMs && f + need < played.length; f++) {
      let quiet = true;
      for (let k = 0; k < need && quiet; k++) quiet = !playing(f + k);
      if (quiet) {
        gap = f * FRAME_MS;
        break;
      }
    }
    return gap <= fromMs + withinMs ? Math.max(gap, fromMs) : null;
  };

  const audio = (lang: Lang, text: string) => pieceAudio(corpus, lang, text);
  const out: ItemObservation[] = [];
  const talk = lines(result.transcript);
  // Words of the record's caller lines, used up item by item in order.
  const heardWords = new Map<string, number>();
  for (const l of talk) if (l.who === 'Customer') for (const w of tokens(l.text)) heardWords.set(w, (heardWords.get(w) ?? 0) + 1);
  const take = (words: string[]) => {
    const missing: string[] = [];
    for (const w of words) {
      const n = heardWords.get(w) ?? 0;
      if (n > 0) heardWords.set(w, n - 1);
      else missing.push(w);
    }
    // Which words, beside the call's caller lines: a figure of (e) above 0 is then traceable.
    if (missing.length) process.stderr.write(`bench turn-taking: missing ${JSON.stringify(missing)} of "${words.join(' ')}"; caller lines: ${JSON.stringify(talk.filter((l) => l.who === 'Customer').map((l) => l.text))}\n`);
    return missing.length;
  };

  for (const item of result.plan.items) {
    const lastPart = item.parts.at(-1)!;
    const lastLabel = `${item.id}:${item.category === 'paused' ? 0 : item.parts.length - 1}`;
    if (item.trigger) {
      const start = sayAt(`${item.id}:trigger`);
      const triggerAudio = audio(item.lang, item.trigger);
      const obs: ItemObservation = { id: `${item.id}:trigger`, lang: item.lang, category: 'trigger', words: tokens(item.trigger).length, missingWords: take(tokens(item.trigger)) };
      if (start !== null) {
        const last = start + soundSpan(triggerAudio).lastMs;
        obs.early = firstSpeech(start, last) !== null;
        obs.latencyMs = (firstSpeech(last, after(`${item.id}:trigger`)) ?? NaN) - last;
        if (Number.isNaN(obs.latencyMs)) obs.latencyMs = null;
      }
      out.push(obs);
    }
    const start0 = sayAt(`${item.id}:0`);
    const startLast = sayAt(lastLabel);
    const obs: ItemObservation = { id: item.id, lang: item.lang, category: item.category };
    if (item.category !== 'backchannel') {
      const words = [...tokens(item.text), ...(item.key ? [item.key] : [])];
      obs.words = words.length;
      obs.missingWords = take(words);
    }
    if (start0 !== null && startLast !== null) {
      const onset = start0 + soundSpan(audio(item.lang, item.parts[0]!)).firstMs;
      // A paused sentence is one `say`: its second piece starts after the first and the pause.
      const lastStart = item.category === 'paused' ? start0 + (audio(item.lang, item.parts[0]!).length / RATE) * 1000 + item.pauseMs! : startLast;
      const last = lastStart + soundSpan(audio(item.lang, lastPart)).lastMs;
      if (item.category === 'interruption' || item.category === 'backchannel') {
        obs.overReply = [-5, -4, -3, -2, -1, 0, 1].some((k) => playing(Math.floor(onset / FRAME_MS) + k));
      }
      if (item.category === 'interruption') {
        const stop = stopAfter(onset, 400, 5000);
        obs.stopMs = stop === null ? null : stop - onset;
      } else if (item.category === 'backchannel') {
        const pause = stopAfter(onset, 200, 2000);
        obs.paused = pause !== null;
        if (pause !== null) {
          let f = Math.floor(pause / FRAME_MS);
          while (f < played.length && !playing(f)) f++;
          obs.resumedAfterMs = f < played.length ? f * FRAME_MS - pause : null;
        }
        const triggerLine = talk.findIndex((l) => l.who === 'Customer' && same(l.text, item.trigger!));
        // The reply's lines up to the caller's next line (a paused and resumed reply may be recorded in pieces).
        const after = talk.slice(triggerLine + 1);
        const next = after.findIndex((l) => l.who === 'Customer');
        const heard = (next < 0 ? after : after.slice(0, next)).filter((l) => l.who === 'AI').flatMap((l) => tokens(l.text));
        obs.heardWhole = triggerLine >= 0 && inOrder(tokens(LONG_REPLIES[item.trigger!]!), heard);
        obs.answeredAsTurn = talk.some((l, i) => l.who === 'Customer' && same(l.text, item.text) && talk.slice(i + 1).some((x) => x.who === 'AI'));
      } else {
        obs.early = firstSpeech(start0, last) !== null;
        const first = firstSpeech(last, after(lastLabel));
        // After an early start, the first audio after the last sound may be that early reply's tail: no latency.
        if (!obs.early) obs.latencyMs = first === null ? null : first - last;
      }
    }
    out.push(obs);
  }
  return out;
}

