/**
 * When is the caller's turn over? One small state machine that mixes every signal the voice core
 * has into two decisions: `likely-over` (start the reply speculatively: the LLM, maybe the first
 * TTS sentence, nothing played) and `confirmed` (the turn is over: play it). In between,
 * `resumed` says the caller went on and the speculative reply must be dropped without a trace.
 *
 * Signals (`handle(signal, now)`), all optional except the VAD's:
 * - VAD speech started / stopped (stopped carries the end of speech);
 * - transcripts, interim and final, judged by completeness.ts (English, German, …);
 * - the STT's own turn events: Deepgram `speech_final` / `UtteranceEnd`; Deepgram Flux
 *   `StartOfTurn`, `Update`, `EagerEndOfTurn`, `TurnResumed`, `EndOfTurn`;
 * - an audio turn model's probability (Smart Turn v3): the policy asks for it with
 *   `analyze-audio` at each end of speech and takes only the answer for that end of speech.
 *
 * How long to wait: the silence after the end of speech before `confirmed` follows from the
 * combined probability p that the turn is complete: p ≥ 0.8 → `completeMs` (≈ 200 ms),
 * p ≤ 0.2 → `incompleteMs` (≈ 2 s), linear in between (turnWaits() maps endpoint_sensitivity).
 * p is the weighted mean of the signals present: the text (weight 1), the audio model (weight 1),
 * the STT's turn confidence (Flux, weight 2). With no words yet it waits `neutralMs` (today's
 * silence), asks the STT to finalize, and gives up after `finalWaitMs` if still no words.
 *
 * `endpoint_type` keeps its meaning:
 * - `vad`: the silence decides, with the wait above. The STT's turn events are evidence (they
 *   raise p), not the decision.
 * - `ai`: the STT provider decides: Flux `EndOfTurn`, Deepgram `UtteranceEnd`, and Deepgram
 *   `speech_final` confirm at once, except that a `speech_final` on words that clearly go on
 *   ("…for the", "…um") is held until `incompleteMs` of silence (Deepgram's endpointing is a
 *   silence timer, not a judgement). With no provider decision, `aiFallbackMs` of silence ends it.
 *
 * Rules that hold in both: never `confirmed` while the VAD hears the caller (a provider end that
 * comes then waits for the VAD's end of speech, at most `incompleteMs`); any new speech, a Flux
 * `TurnResumed` / `StartOfTurn`, or changed words after `likely-over` give `resumed`; at most
 * `maxSpeculations` speculative starts per turn. Time is the caller's: `now` on every call, and
 * `nextDeadline()` says when to call `tick()` — no timers inside, so tests are event sequences.
 */
import { endsMidClause, judgeCompleteness, type Completeness } from './completeness.js';
import { words } from './languages.js';

export type EndpointType = 'vad' | 'ai';

/** What the STT provider said about the turn (Flux TurnInfo events, named as the frames name them). */
export type ProviderTurnEvent = 'start' | 'update' | 'eager-end' | 'resumed' | 'end';

export type TurnSignal =
  | { type: 'speech-started'; at: number }
  /** `at`: the end of speech (the VAD reports it after its stop window). */
  | { type: 'speech-stopped'; at: number }
  | { type: 'transcript'; text: string; final: boolean; speechFinal?: boolean }
  | { type: 'utterance-end' }
  /** Flux: `text` is the turn's transcript so far; `confidence` its end_of_turn_confidence. */
  | { type: 'provider-turn'; event: ProviderTurnEvent; text: string; confidence?: number }
  /** The audio model's answer for the end of speech `speechEndAt` (from `analyze-audio`). */
  | { type: 'audio-model'; probability: number; speechEndAt: number };

export type TurnDecision =
  /** Ask the audio turn model about the audio up to `speechEndAt` (only with `audioModel: true`). */
  | { type: 'analyze-audio'; speechEndAt: number; at: number }
  /** Ask the STT for its final transcript now (Deepgram Finalize, Flux ForceEndTurn). */
  | { type: 'finalize'; at: number }
  /** The turn is probably over: start the reply, play nothing yet. */
  | { type: 'likely-over'; text: string; endOfSpeechAt: number; probability: number; at: number }
  /** The caller went on: drop the speculative reply. */
  | { type: 'resumed'; why: 'speech' | 'provider' | 'words-changed'; at: number }
  /** The turn is over; `text` is what the caller said in it. */
  | { type: 'confirmed'; text: string; endOfSpeechAt: number; probability: number; why: ConfirmReason; judgement: Completeness; at: number };

export type ConfirmReason = 'silence' | 'provider' | 'provider-held' | 'fallback';

export interface TurnWaits {
  /** Silence after a complete utterance. */
  completeMs: number;
  /** Silence after an incomplete one (the longest wait). */
  incompleteMs: number;
  /** Silence before asking the STT for words when none came yet. */
  neutralMs: number;
}

/**
 * endpoint_sensitivity (0–5, higher reacts sooner; the column's default is 0.5) as waits:
 * complete 250 − 100·s ms, at least 150 (250 … 150; the call's VAD reports the end of speech
 * after 192 ms, which is then the earliest confirmation), incomplete 2000 − 160·s ms
 * (2000 … 1200), and with no words the old fixed silence 900 − 120·s ms (900 … 300).
 * At 0.5: 200 / 1920 / 840 ms — a caller hears the answer about 330 ms after their last sound.
 */
export function turnWaits(endpointSensitivity: number | string | null | undefined): TurnWaits {
  const raw = typeof endpointSensitivity === 'string' ? Number(endpointSensitivity) : endpointSensitivity;
  const s = raw === null || raw === undefined || !Number.isFinite(raw) ? 0.5 : Math.min(5, Math.max(0, raw));
  return { completeMs: Math.max(150, Math.round(250 - 100 * s)), incompleteMs: Math.round(2000 - 160 * s), neutralMs: Math.round(900 - 120 * s) };
}

export interface EndOfTurnOptions {
  endpointType: EndpointType;
  language: string;
  waits: TurnWaits;
  /** Ask for an audio-model probability at each end of speech (TURN_MODEL_PATH is set). */
  audioModel?: boolean;
  /** Start speculating this long before the confirmation is due (the reply's head start; default 600 ms). */
  speculativeLeadMs?: number;
  /** Speculative starts per turn at most (default 3); 0 turns speculation off. */
  maxSpeculations?: number;
  /** How long to wait for a final transcript after `finalize` (default 1500 ms, as today). */
  finalWaitMs?: number;
  /** endpoint_type ai: silence that ends the turn when the provider never does (default 3000 ms). */
  aiFallbackMs?: number;
  /** Replaces the text judge (tests, another language model). */
  judge?: (text: string, language: string) => Completeness;
}

const HIGH = 0.8;
const LOW = 0.2;

/** The silence to wait for a combined probability p (see the header). */
export function waitFor(p: number, waits: TurnWaits): number {
  if (p >= HIGH) return waits.completeMs;
  if (p <= LOW) return waits.incompleteMs;
  return Math.round(waits.incompleteMs + ((p - LOW) / (HIGH - LOW)) * (waits.completeMs - waits.incompleteMs));
}

export class EndOfTurnPolicy {
  private inSpeech = false;
  private speechEndAt: number | null = null;
  private finals: string[] = [];
  private interim = '';
  private audio: { probability: number; speechEndAt: number } | null = null;
  private providerProbability: number | null = null;
  /** The provider said the turn is over (endpoint_type ai), at this time. */
  private providerEnd: { at: number } | null = null;
  /** The words of the provider's last `end`, until the final transcript that repeats them. */
  private providerFinal: string | null = null;
  private speculated: string | null = null;
  private speculations = 0;
  private finalizeAskedAt: number | null = null;
  private deadline: number | null = null;

  constructor(private readonly options: EndOfTurnOptions) {}

  /** When `tick()` must be called next (the caller's clock), or null when nothing is pending. */
  nextDeadline(): number | null {
    return this.deadline;
  }

  /** The words of the turn so far. */
  get text(): string {
    return [...this.finals, this.interim].filter((t) => t !== '').join(' ');
  }

  handle(signal: TurnSignal, now: number): TurnDecision[] {
    const out: TurnDecision[] = [];
    switch (signal.type) {
      case 'speech-started':
        this.inSpeech = true;
        this.speechEndAt = null;
        this.audio = null;
        this.finalizeAskedAt = null;
        // The provider's end was about the words before this speech.
        this.providerEnd = null;
        this.resume('speech', now, out);
        break;
      case 'speech-stopped':
        this.inSpeech = false;
        this.speechEndAt = signal.at;
        if (this.options.audioModel) out.push({ type: 'analyze-audio', speechEndAt: signal.at, at: now });
        // Words still interim at the end of speech (vad): ask for the final now, so the judgement
        // and a speculative reply work on the whole words, not a prefix the STT sent mid-word.
        // Not when the words end in a comma: the recogniser heard the clause go on ("Yes, …"), and a
        // final forced in that pause would cut it; the wait asks for it if the caller stops there.
        if (this.options.endpointType === 'vad' && !endsMidClause(this.interim)) this.askFinal(now, out);
        break;
      case 'transcript':
        if (signal.final) {
          // A Flux stream reports its EndOfTurn twice (as the turn event and as a final): keep the words once.
          const echo = this.providerFinal !== null && signal.text.trim() === this.providerFinal;
          this.providerFinal = null;
          this.interim = '';
          if (echo) break;
          if (signal.text.trim() !== '') this.finals.push(signal.text.trim());
        } else {
          this.interim = signal.text.trim();
          // New words after speech_final: Deepgram's endpoint was a pause, not the end (Pipecat does the same).
          if (this.interim !== '') this.providerEnd = null;
        }
        if (signal.speechFinal && this.options.endpointType === 'ai') this.providerEnd ??= { at: now };
        break;
      case 'utterance-end':
        // Deepgram sends no more for these words: the interim is as final as it gets.
        if (this.interim !== '') this.finals.push(this.interim);
        this.interim = '';
        if (this.options.endpointType === 'ai') this.providerEnd ??= { at: now };
        break;
      case 'provider-turn':
        this.providerTurn(signal, now, out);
        break;
      case 'audio-model':
        if (!this.inSpeech && signal.speechEndAt === this.speechEndAt) this.audio = { probability: signal.probability, speechEndAt: signal.speechEndAt };
        break;
    }
    this.evaluate(now, out);
    return out;
  }

  tick(now: number): TurnDecision[] {
    const out: TurnDecision[] = [];
    this.evaluate(now, out);
    return out;
  }

  /** Forget the turn (the call's turn ended another way: keys, hang-up, a hand-over); the VAD's state stays. */
  reset(): void {
    this.speechEndAt = null;
    this.finals = [];
    this.interim = '';
    this.audio = null;
    this.providerProbability = null;
    this.providerEnd = null;
    this.providerFinal = null;
    this.speculated = null;
    this.speculations = 0;
    this.finalizeAskedAt = null;
    this.deadline = null;
  }

  private providerTurn(signal: Extract<TurnSignal, { type: 'provider-turn' }>, now: number, out: TurnDecision[]): void {
    const text = signal.text.trim();
    switch (signal.event) {
      case 'start':
        // A new provider turn while ours is open: the caller went on after a pause.
        this.providerEnd = null;
        this.providerProbability = null;
        this.resume('provider', now, out);
        if (text) this.interim = text;
        return;
      case 'update':
        if (text) this.interim = text;
        return;
      case 'resumed':
        this.providerProbability = null;
        if (text) this.interim = text;
        this.resume('provider', now, out);
        return;
      case 'eager-end':
        if (text) this.interim = text;
        this.providerProbability = signal.confidence ?? null;
        // Flux's eager end is its own speculative verdict: follow it even before the VAD's stop
        // (and do not force its turn to end: that is what eager mode avoids).
        this.speculate(this.speechEndAt ?? now, now, out, false);
        return;
      case 'end':
        if (text) this.finals.push(text);
        this.providerFinal = text;
        this.interim = '';
        this.providerProbability = Math.max(signal.confidence ?? 0, 0.9);
        if (this.options.endpointType === 'ai') this.providerEnd ??= { at: now };
        return;
    }
  }

  private resume(why: 'speech' | 'provider' | 'words-changed', now: number, out: TurnDecision[]): void {
    if (this.speculated === null) return;
    this.speculated = null;
    out.push({ type: 'resumed', why, at: now });
  }

  /** The weighted mean of the signals present (text 1, audio model 1, provider 2). */
  private probability(judgement: Completeness): number {
    let sum = judgement.probability;
    let weight = 1;
    if (this.audio) {
      sum += this.audio.probability;
      weight += 1;
    }
    if (this.providerProbability !== null) {
      sum += 2 * this.providerProbability;
      weight += 2;
    }
    return sum / weight;
  }

  /** The last judgement: the same words are judged once, however many events re-read them. */
  private judged: { text: string; result: Completeness } | null = null;

  private judge(text: string): Completeness {
    if (this.judged?.text !== text) this.judged = { text, result: (this.options.judge ?? judgeCompleteness)(text, this.options.language) };
    return this.judged.result;
  }

  private speculate(endOfSpeechAt: number, now: number, out: TurnDecision[], askFinal = true): void {
    const text = this.text;
    const key = words(text).join(' ');
    if (key === '' || key === this.speculated || this.speculations >= (this.options.maxSpeculations ?? 3)) return;
    if (this.speculated !== null) this.resume('words-changed', now, out);
    this.speculated = key;
    this.speculations++;
    out.push({ type: 'likely-over', text, endOfSpeechAt, probability: this.probability(this.judge(text)), at: now });
    // The final transcript is then on its way by the time the turn is confirmed (vad only: in ai
    // the provider's own end brings it, and a forced final could cost Deepgram's speech_final).
    if (askFinal && this.options.endpointType === 'vad') this.askFinal(now, out);
  }

  private askFinal(now: number, out: TurnDecision[]): void {
    if (this.interim === '' || this.finalizeAskedAt !== null) return;
    this.finalizeAskedAt = now;
    out.push({ type: 'finalize', at: now });
  }

  private evaluate(now: number, out: TurnDecision[]): void {
    this.deadline = null;
    const o = this.options;
    const text = this.text;
    const key = words(text).join(' ');
    // Words changed under a speculative reply: it answers something the caller did not say.
    if (this.speculated !== null && key !== this.speculated) this.resume('words-changed', now, out);
    if (this.inSpeech) {
      // A provider end while the VAD still hears the caller waits for the VAD, but not forever.
      if (this.providerEnd) this.deadline = this.providerEnd.at + o.waits.incompleteMs;
      if (this.providerEnd && now >= this.deadline!) {
        if (key === '') this.reset();
        else this.confirm(text, now, now, 'provider-held', out);
      }
      return;
    }
    const end = this.speechEndAt ?? this.providerEnd?.at ?? null;
    if (end === null) return;

    if (key === '') {
      // No words yet: wait the plain silence, ask the STT for them, then give up quietly.
      if (this.providerEnd) return this.reset();
      const askAt = end + (o.endpointType === 'ai' ? (o.aiFallbackMs ?? 3000) : o.waits.neutralMs);
      if (this.finalizeAskedAt === null) {
        if (now < askAt) return void (this.deadline = askAt);
        this.finalizeAskedAt = now;
        out.push({ type: 'finalize', at: now });
      }
      const giveUpAt = this.finalizeAskedAt + (o.finalWaitMs ?? 1500);
      if (now >= giveUpAt) return this.reset();
      this.deadline = giveUpAt;
      return;
    }

    const judgement = this.judge(text);
    const p = this.probability(judgement);
    let confirmAt: number;
    let why: ConfirmReason;
    if (o.endpointType === 'ai') {
      if (this.providerEnd) {
        // speech_final is Deepgram's silence timer: clearly open words hold it (Flux's own end is a judgement).
        const held = judgement.probability <= LOW && this.providerProbability === null;
        confirmAt = held ? end + o.waits.incompleteMs : now;
        why = held ? 'provider-held' : 'provider';
      } else {
        confirmAt = end + (o.aiFallbackMs ?? 3000);
        why = 'fallback';
      }
    } else {
      confirmAt = end + waitFor(p, o.waits);
      why = 'silence';
    }

    // Speculation follows the silence rule in both modes (ai: the provider's end usually comes later).
    const likelyAt = Math.max(end, end + waitFor(p, o.waits) - (o.speculativeLeadMs ?? 600));
    // Words asked to be finalized come in a moment: a reply to their interim would mostly be dropped.
    const finalComing = o.endpointType === 'vad' && this.interim !== '' && this.finalizeAskedAt !== null;
    if (now >= likelyAt && now < confirmAt && !finalComing) this.speculate(end, now, out);
    if (now >= confirmAt) {
      // Words the STT has not finalized yet: ask for them and give it finalWaitMs (utterance-end also ends the wait).
      if (o.endpointType === 'vad' && this.interim !== '') {
        this.askFinal(now, out);
        const until = this.finalizeAskedAt! + (o.finalWaitMs ?? 1500);
        if (now < until) {
          this.deadline = until;
          return;
        }
      }
      this.confirm(text, end, now, why, out, judgement, p);
      return;
    }
    const pending = [confirmAt];
    if (likelyAt > now && this.speculated !== key && this.speculations < (o.maxSpeculations ?? 3)) pending.push(likelyAt);
    this.deadline = Math.min(...pending);
  }

  private confirm(text: string, endOfSpeechAt: number, now: number, why: ConfirmReason, out: TurnDecision[], judgement = this.judge(text), p = this.probability(judgement)): void {
    out.push({ type: 'confirmed', text, endOfSpeechAt, probability: p, why, judgement, at: now });
    const echo = this.providerFinal;
    this.reset();
    // The final transcript that repeats a Flux end may still come after the confirmation.
    this.providerFinal = echo;
  }
}
