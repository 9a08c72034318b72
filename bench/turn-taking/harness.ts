/**
 * The harness of `npm run bench turn-taking`: holds the corpus's conversations through a running
 * service on the Twilio double (test/support/doubles/twilio.ts: the person on the line speaks at
 * real pace in 20 ms μ-law frames and keeps what they heard), with the vendor doubles of
 * test/support/doubles/voice.ts at zero added latency: Deepgram live recognises the corpus
 * (its clips are registered; when it sends interim, final, speech_final and UtteranceEnd follows
 * the audio it receives), the chat double answers (a long reply to the trigger questions, a short
 * one to everything else), the OpenAI speech double speaks.
 *
 * The assistants are created through the API with no turn-taking setting touched (name, voice,
 * direction, number, greeting; German also its language), so the figures are what a user gets
 * at defaults. Everything is measured from the caller's side of the Twilio socket, in call time.
 */
import type { TwilioDouble, DoubleCall } from '../../test/support/doubles/twilio.js';
import type { PersonStep } from '../../test/support/doubles/twilio-media.js';
import type { VoiceDoubles } from '../../test/support/doubles/voice.js';
import type { DoubleVoice } from '../../test/support/doubles/voices.js';
import { correlate, envelope, trim, type Synthesized } from '../../test/support/doubles/clips.js';
import { SPEECH_RATE } from '../../test/support/doubles/openai-speech.js';
import { concat, silence } from '../../src/audio/pcm.js';
import { loadConfig, type Config } from '../../src/config.js';
import { LONG_REPLIES, RATE, SHORT_REPLY, pieceAudio, type Corpus, type Lang, type Utterance } from './corpus.js';
import { describeCall, observe, type ItemObservation } from './observe.js';

export type { ItemObservation };

/** The admin token of the bench's service. */
export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

/** The bench service's settings: the defaults (log level too), no rate limit, a local port, plus `env` (the doubles'). */
export function benchConfig(env: Record<string, string>): Config {
  return loadConfig({ ADMIN_TOKEN, RATE_LIMIT_PER_MINUTE: '0', PORT: '0', HOST: '127.0.0.1', ...env });
}

export interface Api {
  (method: 'GET' | 'POST', path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }>;
}

/** A fetch-based client of a listening service. */
export function httpApi(baseUrl: string, adminToken: string): Api {
  return async (method, path, body, token = adminToken) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
}

export interface Rig {
  api: Api;
  double: TwilioDouble;
  voice: VoiceDoubles;
}

/** The account the calls run on: a user, a Twilio number, a voice on the speech double, one default assistant per language. */
export interface Line {
  token: string;
  assistants: Record<Lang, number>;
}

export const GREETING: Record<Lang, string> = { en: 'Hello, this is the front desk.', de: 'Guten Tag, hier ist der Empfang.' };

/**
 * Teaches the doubles the corpus: its pieces are clips the STT double recognises; the LLM
 * double's replies. The speech doubles' voice is memoised and the replies' sentences made in
 * advance, so the doubles add no synthesis time to a turn (zero-latency vendors).
 */
export async function teachDoubles(voice: VoiceDoubles, corpus: Corpus): Promise<void> {
  matchAcrossPauses(voice, corpus);
  timeRecognition(voice);
  const made = new Map<string, Promise<Synthesized>>();
  const synthesize = voice.speech.voice;
  const memo: DoubleVoice = (text, rate, speed) => {
    const key = `${rate}:${speed}:${text}`;
    if (!made.has(key)) made.set(key, synthesize(text, rate, speed));
    return made.get(key)!;
  };
  voice.speech.voice = memo;
  voice.elevenlabs.voice = memo;
  const lines = [...Object.values(GREETING), SHORT_REPLY, ...Object.values(LONG_REPLIES)].flatMap((text) => text.split(/(?<=[.!?])\s+/));
  await Promise.all(lines.map((text) => memo(text, SPEECH_RATE, 1)));
  for (const [key, samples] of corpus.audio) voice.clips.add(key.slice(3), samples, RATE);
  // The whole of a sentence with a key or a pause inside, in case it reaches the recogniser as
  // one utterance (no gap before the key; a pause shorter than the endpointing).
  for (const x of corpus.utterances) {
    if (x.parts.length < 2) continue;
    const [first, rest] = x.parts.map((text) => pieceAudio(corpus, x.lang, text));
    voice.clips.add(x.text, concat([first!, silence(x.pauseMs ?? 0, RATE), rest!]), RATE);
  }
  for (const [trigger, reply] of Object.entries(LONG_REPLIES)) voice.llm.on(trigger, { text: reply });
  voice.llm.otherwise({ text: SHORT_REPLY });
  // Post-call extraction (not part of the conversation) gets an empty object.
  voice.llm.extract({});
}

/** Quiet inside an utterance at least this long (10 ms frames) separates two pieces of the script. */
const PAUSE_FRAMES = 30;
/** Pieces shorter than this (frames) are a word's beginning or a click, not a piece of the script. */
const SCRAP_FRAMES = 15;

/** A cut this close (10 ms frames) before a phrase's start still counts as at it. */
const CUT_SLACK_FRAMES = 8;
/** Quiet this long (10 ms frames) inside a piece is the pause after a comma. */
const COMMA_PAUSE_FRAMES = 8;

/**
 * Where each comma-separated phrase of `text` starts in its envelope, when the audio has one
 * pause per comma (the local voice pauses there); null otherwise.
 */
function phraseStarts(text: string, env: Float32Array, level: number): { text: string; at: number }[] | null {
  const phrases = text.split(/(?<=[,;:])\s+/);
  if (phrases.length < 2) return null;
  const starts = [0];
  let quiet = 0;
  for (let i = 0; i < env.length; i++) {
    if (env[i]! < level) quiet++;
    else {
      if (quiet >= COMMA_PAUSE_FRAMES) starts.push(i);
      quiet = 0;
    }
  }
  return starts.length === phrases.length ? phrases.map((p, k) => ({ text: p, at: starts[k]! })) : null;
}

/**
 * The STT double names an utterance after the one clip it matches. Cut where the script has no
 * cut (the service finalizing just as the caller resumes after a pause: the pause and a sliver of
 * the next words come with the first piece, the rest comes without its start), the utterance
 * matches no clip and its words would be lost to the double, where a real recogniser would still
 * transcribe them. So an utterance that matches nothing is matched again piece by piece, split at
 * its inner pauses (≥ 300 ms), each piece also against the endings of the script's pieces, and the
 * texts joined; slivers are dropped. A piece cut at a comma's pause is named by its phrases on
 * either side of the cut (the local voice pauses at each comma). Timing still follows the audio received.
 */
function matchAcrossPauses(voice: VoiceDoubles, corpus: Corpus): void {
  const clips = voice.clips;
  const original = clips.match.bind(clips);
  // A piece cut just after its start (the rest of a sentence after a cut in the wrong place):
  // the script's pieces whose ending it matches, and as many of their last words.
  const script = [...corpus.audio].map(([key, samples]) => {
    const env = trim(envelope(samples, RATE), clips.level);
    return { text: key.slice(3), env, phrases: phraseStarts(key.slice(3), env, clips.level) };
  });
  const ending = (env: Float32Array) => {
    const heard = trim(env, clips.level);
    let best: { text: string; score: number } | null = null;
    for (const piece of script) {
      if (heard.length > piece.env.length * 1.05 || heard.length < piece.env.length * 0.5) continue;
      const score = correlate(heard, piece.env.subarray(Math.max(0, piece.env.length - heard.length)), 3);
      if (score < clips.threshold - 0.05 || (best && best.score >= score)) continue;
      const words = piece.text.split(/\s+/);
      // Cut at a comma's pause ("Stop, | wait a second."): the phrases that start after the cut, whole;
      // elsewhere as many last words as the share of the piece heard.
      const cutAt = piece.env.length - heard.length;
      const from = piece.phrases?.findIndex((p) => p.at >= cutAt - CUT_SLACK_FRAMES) ?? -1;
      const text = from >= 0 ? piece.phrases!.slice(from).map((p) => p.text).join(' ') : words.slice(-Math.max(1, Math.round((words.length * heard.length) / piece.env.length))).join(' ');
      best = { text, score };
    }
    return best;
  };
  // A piece cut before its end (the service finalizing in a comma's pause: "Moment, | das stimmt
  // nicht."): the script's pieces whose beginning it matches, and the phrases (or words) heard.
  const beginning = (env: Float32Array) => {
    const heard = trim(env, clips.level);
    let best: { text: string; score: number } | null = null;
    for (const piece of script) {
      if (heard.length > piece.env.length * 0.95 || heard.length < piece.env.length * 0.2) continue;
      const score = correlate(heard, piece.env.subarray(0, heard.length), 3);
      if (score < clips.threshold - 0.05 || (best && best.score >= score)) continue;
      const words = piece.text.split(/\s+/);
      const upTo = piece.phrases?.filter((p) => p.at < heard.length - CUT_SLACK_FRAMES) ?? [];
      const text = upTo.length > 0 ? upTo.map((p) => p.text).join(' ') : words.slice(0, Math.max(1, Math.round((words.length * heard.length) / piece.env.length))).join(' ');
      best = { text, score };
    }
    return best;
  };
  const whole = (env: Float32Array) => original(env) ?? ending(env) ?? beginning(env);
  clips.match = (env: Float32Array) => {
    const found = whole(env);
    if (found) return found;
    const pieces: Float32Array[] = [];
    let start = -1;
    let quiet = 0;
    for (let i = 0; i <= env.length; i++) {
      const loud = i < env.length && env[i]! >= clips.level;
      if (loud) {
        if (start < 0) start = i;
        quiet = 0;
      } else if (start >= 0 && (++quiet >= PAUSE_FRAMES || i === env.length)) {
        const end = i - quiet + 1;
        if (end - start >= SCRAP_FRAMES) pieces.push(env.subarray(start, end));
        start = -1;
      }
    }
    const matched = pieces.map((piece) => whole(piece)).filter((m) => m !== null);
    return matched.length === 0 ? null : { text: matched.map((m) => m.text).join(' '), score: Math.min(...matched.map((m) => m.score)) };
  };
}

/**
 * The STT double's recognition (clip matching) runs in the bench's process, on the service's
 * event loop: its time is counted so the table can say how much of a turn it may have taken.
 */
export const recognition = { ms: 0, calls: 0, maxMs: 0 };

function timeRecognition(voice: VoiceDoubles): void {
  const clips = voice.clips;
  for (const name of ['match', 'matchPrefix'] as const) {
    const original = clips[name].bind(clips) as (...args: unknown[]) => unknown;
    (clips as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      const t0 = performance.now();
      try {
        return original(...args);
      } finally {
        const took = performance.now() - t0;
        recognition.ms += took;
        recognition.calls++;
        recognition.maxMs = Math.max(recognition.maxMs, took);
      }
    };
  }
}

async function ok(what: string, p: Promise<{ status: number; body: any }>): Promise<any> {
  const res = await p;
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function setUpLine(api: Api, maxCalls: number): Promise<Line> {
  const tag = `${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const user = await ok('create user', api('POST', '/api/admin/users', { name: 'Turn bench', email: `turn-bench-${tag}@example.test`, max_calls_in_parallel: maxCalls }));
  const number = await ok(
    'add number',
    api('POST', `/api/admin/users/${user.data.id}/phone-numbers`, { phone_number: '+14155550900', type_label: 'Normal', carrier: 'twilio', carrier_sid: 'PN' + 'e'.repeat(32) }),
  );
  const voiceRow = await ok('add voice', api('POST', '/api/admin/voices', { name: `Bench voice ${tag}`, mode: 'pipeline', provider: 'openai', provider_voice_id: 'alloy' }));
  const assistants = {} as Record<Lang, number>;
  for (const lang of ['en', 'de'] as const) {
    const created = await ok(
      `create ${lang} assistant`,
      api(
        'POST',
        '/api/user/assistant',
        {
          assistant_name: `Turn bench ${lang}`,
          voice_id: voiceRow.data.id,
          calls_direction: 'make',
          phone_number_id: number.data.id,
          initial_message: GREETING[lang],
          ...(lang === 'de' ? { language: 'German' } : {}),
        },
        user.token,
      ),
    );
    assistants[lang] = created.data.id;
  }
  return { token: user.token, assistants };
}

/** One call of the bench: a language and the items the caller goes through, in order. */
export interface CallPlan {
  lang: Lang;
  items: Utterance[];
}

/**
 * The calls: complete sentences, questions, paused sentences and key presses five to a call;
 * every interruption and backchannel in a call of its own, after its trigger question.
 */
export function planCalls(utterances: Utterance[], perCall = 5): CallPlan[] {
  const plans: CallPlan[] = [];
  for (const lang of ['en', 'de'] as const) {
    const mine = utterances.filter((x) => x.lang === lang);
    const plain = mine.filter((x) => x.category !== 'interruption' && x.category !== 'backchannel');
    for (let i = 0; i < plain.length; i += perCall) plans.push({ lang, items: plain.slice(i, i + perCall) });
    for (const x of mine.filter((x) => x.category === 'interruption' || x.category === 'backchannel')) plans.push({ lang, items: [x] });
  }
  return plans;
}

/** How long into the long reply the caller talks over it: spread 1.0–2.4 s, by item. */
const overAfterMs = (item: Utterance) => 1000 + ((item.id.charCodeAt(item.id.length - 1) * 7) % 8) * 200;

const WAIT = { silenceMs: 800, timeoutMs: 12_000 };

/** What the person on the line does in a planned call. */
export function steps(corpus: Corpus, plan: CallPlan): PersonStep[] {
  const out: PersonStep[] = [{ waitForAssistant: { timeoutMs: 15_000 } }];
  const audio = (text: string) => pieceAudio(corpus, plan.lang, text);
  for (const item of plan.items) {
    if (item.trigger) {
      out.push({ say: audio(item.trigger), label: `${item.id}:trigger` });
      out.push({ waitUntilHearing: { afterMs: overAfterMs(item), timeoutMs: 12_000 } });
      out.push({ say: audio(item.text), label: `${item.id}:0` });
      out.push({ waitForAssistant: { silenceMs: 1000, timeoutMs: 20_000 } });
    } else if (item.category === 'paused') {
      out.push({ say: concat([audio(item.parts[0]!), silence(item.pauseMs!, RATE), audio(item.parts[1]!)]), label: `${item.id}:0` });
      out.push({ waitForAssistant: WAIT });
    } else if (item.category === 'dtmf') {
      out.push({ say: audio(item.parts[0]!), label: `${item.id}:0` });
      out.push({ dtmf: item.key! });
      out.push({ say: audio(item.parts[1]!), label: `${item.id}:1` });
      out.push({ waitForAssistant: WAIT });
    } else {
      out.push({ say: audio(item.text), label: `${item.id}:0` });
      out.push({ waitForAssistant: WAIT });
    }
  }
  out.push({ pause: 300 }, { hangUp: true });
  return out;
}

export interface CallResult {
  plan: CallPlan;
  callId: number;
  call: DoubleCall;
  status: string;
  transcript: string;
  replyTurns: number;
}

const LIVE = new Set(['initiated', 'ringing', 'in-progress', 'queued']);

async function holdCall(rig: Rig, line: Line, corpus: Corpus, plan: CallPlan, n: number): Promise<CallResult> {
  const number = `+1415556${String(1000 + n).slice(-4)}`;
  rig.double.script(number, { ringMs: 200, steps: steps(corpus, plan) });
  const made = await ok('make_call', rig.api('POST', '/api/user/make_call', { phone_number: number, assistant_id: line.assistants[plan.lang] }, line.token));
  const callId = Number(made.call_id);
  const call = await rig.double.callTo(number);
  await call.done;
  let record: any = null;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    record = (await rig.api('GET', `/api/user/calls/${callId}`, undefined, line.token)).body;
    if (record && !LIVE.has(record.status)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const turns = (await rig.api('GET', `/api/user/calls/${callId}/turns`, undefined, line.token)).body?.data ?? [];
  return { plan, callId, call, status: String(record?.status), transcript: String(record?.transcript ?? ''), replyTurns: turns.filter((t: { kind: string }) => t.kind === 'reply').length };
}

/** Holds the planned calls, `concurrency` at a time; `progress` hears of each finished one. */
export async function holdCalls(rig: Rig, line: Line, corpus: Corpus, plans: CallPlan[], concurrency: number, progress?: (done: number) => void): Promise<CallResult[]> {
  const results: CallResult[] = new Array(plans.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < plans.length) {
      const i = next++;
      results[i] = await holdCall(rig, line, corpus, plans[i]!, i);
      progress?.(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, plans.length) }, worker));
  return results;
}

/** Streamed LLM requests the chat double received (post-call extraction is not streamed). */
export function llmRequests(voice: VoiceDoubles): number {
  return voice.llm.received.filter((r) => r.body?.stream).length;
}



export interface Conversations {
  results: CallResult[];
  observations: ItemObservation[];
  llm: { requests: number; turns: number };
  /** The STT double's clip matching in this process: total ms, matches, the longest one. */
  recognition: { ms: number; calls: number; maxMs: number };
}

/** Sets up the account, holds the calls of `utterances` (`concurrency` at once), observes each item. */
export async function converse(
  rig: Rig,
  corpus: Corpus,
  utterances: Utterance[],
  options: { concurrency: number; perCall?: number; progress?: (done: number, of: number) => void },
): Promise<Conversations> {
  const line = await setUpLine(rig.api, options.concurrency + 2);
  const plans = planCalls(utterances, options.perCall);
  const before = llmRequests(rig.voice);
  const recognized = { ...recognition };
  const results = await holdCalls(rig, line, corpus, plans, options.concurrency, (done) => options.progress?.(done, plans.length));
  const observations = results.flatMap((r) => observe(corpus, r));
  if (process.env.BENCH_TURN_VERBOSE) {
    for (const r of results) process.stderr.write(`${describeCall(r)}\n`);
    for (const o of observations) process.stderr.write(`${JSON.stringify(o)}\n`);
  }
  return {
    results,
    observations,
    llm: { requests: llmRequests(rig.voice) - before, turns: results.reduce((s, r) => s + r.replyTurns, 0) },
    recognition: { ms: recognition.ms - recognized.ms, calls: recognition.calls - recognized.calls, maxMs: recognition.maxMs },
  };
}
