/**
 * The last working stage: the assistant's audio onto the leg, and what the caller heard of it.
 *
 * - TTS audio (any rate) is resampled to the leg's rate and cut into 20 ms frames;
 * - frames are handed to the leg paced, `leadMs` ahead of real time, so a barge-in's
 *   `clear()` has little to drop and the playout position is known from the clock; the pacing
 *   runs on the clock's shared 20 ms tick (pacer.ts), not on a timer per call;
 * - after each spoken piece (a `speak` sentence whose audio is complete) a mark is queued;
 *   marks that come back played are the ground truth of what the caller heard;
 * - on `cancel` of a turn that has audio out: `media.clear()` at once, then an `interruption`
 *   frame (down to the recorder and the session, up to the LLM stage) with the heard text —
 *   whole pieces whose playout finished, plus the played fraction of the current piece
 *   (proportional by characters, cut back to a whole word);
 * - when the turn's TTS is done and its last mark comes back: `playback-done` (down and up);
 * - a `hang-up` from our side (end-call) waits until the audio before it has been played;
 * - a speech-to-speech model's audio comes with its own text (`tts-text`, no `speak` before it):
 *   the text grows the current piece, and `tts-spoken` then gives the piece its whole text;
 * - `playedSoFar()`: when the pieces handed over until now have played, inside a turn that goes on;
 * - `pause(turn)` / `resume(turn)` (the interruption stage's first step, interruption.ts): nothing
 *   more of the turn goes out, the leg drops what it holds (`clear`), and the audio it dropped —
 *   from the frame playing at the pause on, with the marks after it — goes back to the head of
 *   the queue; `resume` plays on from there, so the caller hears the reply whole. A turn paused
 *   before its audio came (the assistant still thinking) just does not start. `playback-paused` /
 *   `playback-resumed` frames go down;
 * - the ambient bed (`ambient`, ambient.ts), when the assistant has one: the line never falls
 *   silent from the answer to the hang-up. The bed is mixed into every speech frame as it is
 *   handed over, and between speech it goes out alone (`ambient-out`, kept only `bedLeadMs`
 *   ahead so a reply waits at most that long behind it); it is no piece, no playout and no
 *   floor, so what was heard, barge-in and the turn timings see the speech only. `lend()` pauses
 *   it while something else plays on the line (hold music).
 *
 * About 530 lines for one reason: every job above reads and writes the same playout state
 * (queued frames, pieces, marks, the clock position); split apart, each part would need that
 * state handed to it and the marks' order could no longer be checked in one place. The bed shares
 * the same clock position (`bufferedUntil`), so it lives here too.
 */
import { Resampler } from '../audio/resample.js';
import type { LegMedia } from '../telephony/types.js';
import type { Clock } from '../telephony/clock.js';
import type { Frame, FrameOf, TurnId } from './frames.js';
import type { Push, Stage, StageContext } from './pipeline.js';
import { pacerFor, type Pacer } from './pacer.js';
import type { Floor } from './settings.js';
import type { AmbientMixer } from './ambient.js';

export interface OutputOptions {
  media: LegMedia;
  clock: Clock;
  floor: Floor;
  /** How far ahead of real time audio is handed to the leg. */
  leadMs?: number;
  /** The ambient bed at the leg's rate (ambient.ts `ambientMixerFor`), or none. */
  ambient?: AmbientMixer | null;
  /** How far ahead the bed alone is handed over (default 60 ms: three frames). */
  bedLeadMs?: number;
}

interface Piece {
  text: string;
  /** The text came with the audio (`tts-text`), not from a `speak` before it. */
  fromAudio?: boolean;
  /** Audio of the piece received so far, in leg samples. */
  samples: number;
  /** All its audio has arrived (`tts-spoken`). */
  complete: boolean;
  /** Its mark came back played. */
  confirmed: boolean;
  /** Monotonic times its frames start and their lengths in ms, as handed to the leg. */
  playout: { start: number; ms: number }[];
}

/** Someone waiting for pieces to play (`playedSoFar`): each playout that had pieces, and how many. */
type PlayedWaiter = { pieces: { playout: Playout; count: number }[]; resolve: () => void };

interface Playout {
  turn: TurnId;
  pieces: Piece[];
  /** Index of the piece the next TTS audio belongs to. */
  current: number;
  resampler: Resampler | null;
  /** Leg-rate samples short of a whole frame, waiting for the next audio. */
  remainder: Int16Array;
  /** Its audio is resampled when handed out (TTS at another rate than the leg's), not on arrival. */
  lazy: boolean;
  ttsDone: boolean;
  endQueued: boolean;
  handedAny: boolean;
}

/**
 * Queued output: leg-rate frames and marks; TTS audio at another rate waits as `raw` 20 ms slices
 * and is resampled into frames only when the pump reaches it (`flush` then hands out the piece's
 * last partial frame). Resampling a reply on arrival cost one synchronous block per TTS chunk
 * (≈ 1 ms per second of 24 kHz audio: seconds of audio at once) and work for audio a barge-in
 * then threw away; resampled at the pump it is a 20 ms slice per tick.
 */
type Item =
  | { turn: TurnId; audio: Int16Array; piece: number }
  | { turn: TurnId; mark: string }
  | { turn: TurnId; raw: Int16Array; resampler: Resampler | null; piece: number }
  | { turn: TurnId; flush: true; piece: number };

export class OutputStage implements Stage {
  readonly name = 'output';
  private readonly playouts = new Map<TurnId, Playout>();
  private readonly queue: Item[] = [];
  private readonly frameSamples: number;
  private readonly leadMs: number;
  private readonly bed: AmbientMixer | null;
  private readonly bedLeadMs: number;
  /** The bed is off: the call hung up, or something else holds the line (`lend`). */
  private bedStopped = false;
  private lent = 0;
  /** Monotonic time the audio handed so far ends playing. */
  private bufferedUntil = 0;
  private readonly pacer: Pacer;
  private readonly tick = () => this.pump();
  private pendingHangUp: FrameOf<'hang-up'> | null = null;
  /** The turn whose output is paused (interruption.ts), and since when. */
  private paused: { turn: TurnId; at: number } | null = null;
  /**
   * Items handed to the leg that it may still hold: audio not yet played out (by the clock) and
   * marks not yet back. A pause puts the paused turn's ones back into the queue.
   */
  private handed: { item: Item; endsAt: number; back?: boolean }[] = [];
  private waiters: PlayedWaiter[] = [];
  private push: Push = () => undefined;
  private ctx: StageContext | null = null;
  private closed = false;

  constructor(private readonly options: OutputOptions) {
    this.frameSamples = Math.round(options.media.sampleRate / 50);
    this.leadMs = options.leadMs ?? 100;
    this.bed = options.ambient ?? null;
    this.bedLeadMs = Math.min(this.leadMs, options.bedLeadMs ?? 60);
    this.pacer = pacerFor(options.clock);
  }

  start(ctx: StageContext, push: Push): void {
    this.ctx = ctx;
    this.push = push;
    this.options.media.onMark((name, cleared) => this.onMark(name, cleared));
    // The bed from the answer on (from the first tick: the stages after this one start first).
    if (this.bed) this.pacer.add(this.tick);
  }

  /**
   * Something else plays on the line for a while (hold music, line-player.ts): the bed pauses
   * until the returned function is called (the assistant's speech is not held back).
   */
  lend(): () => void {
    this.lent++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.lent--;
      this.pump();
    };
  }

  process(frame: Frame, push: Push): void {
    switch (frame.kind) {
      case 'speak':
        this.playout(frame.turn).pieces.push({ text: frame.text, samples: 0, complete: false, confirmed: false, playout: [] });
        break;
      case 'tts-audio':
        this.onAudio(frame);
        break;
      case 'tts-text':
        this.onText(frame.turn, frame.text);
        break;
      case 'tts-spoken':
        this.onSpoken(frame.turn, frame.text);
        break;
      case 'tts-done': {
        const p = this.playout(frame.turn);
        p.ttsDone = true;
        this.flushRemainder(p);
        this.queueEnd(p);
        break;
      }
      case 'cancel':
        this.onCancel(frame.turn, frame.reason === 'barge-in');
        break;
      case 'hang-up':
        if (!frame.remote && this.hasPendingAudio()) {
          // end-call: let the goodbye play out first.
          this.pendingHangUp = frame;
          return;
        }
        this.stopPacing();
        break;
    }
    push(frame);
    this.pump();
  }

  /** Text the caller has heard of `turn` so far (whole pieces, then the played part of the next). */
  heardText(turn: TurnId, now = this.options.clock.now()): string {
    const p = this.playouts.get(turn);
    if (!p) return '';
    const parts: string[] = [];
    for (const piece of p.pieces) {
      const total = (piece.samples / this.options.media.sampleRate) * 1000;
      const played = piece.playout.reduce((sum, f) => sum + Math.min(f.ms, Math.max(0, now - f.start)), 0);
      if (piece.confirmed || (piece.complete && total > 0 && played >= total - 1)) {
        parts.push(piece.text.trim());
        continue;
      }
      if (played > 0 && total > 0) parts.push(prefixOf(piece.text.trim(), played / total));
      break;
    }
    return parts.filter((t) => t !== '').join(' ');
  }

  /**
   * Resolves once every piece handed to this stage until now, in any turn, has been synthesised
   * and played (its mark came back) or dropped (cancel, close). Later pieces do not count, nor
   * does the end of the turn: a tool waiting on this (collect-keypad) runs inside the turn whose
   * words it waits for, so the turn's `playback-done` cannot come first. The model's text before
   * a tool call is here by the time the tool runs: the `tool-call` frame flushes it into `speak`
   * pieces, and the pipeline delivers those synchronously (pipeline.ts).
   */
  playedSoFar(): Promise<void> {
    const pieces = [...this.playouts.values()].filter((p) => p.pieces.length > 0).map((playout) => ({ playout, count: playout.pieces.length }));
    return new Promise((resolve) => {
      const waiter = { pieces, resolve };
      if (this.closed || this.played(waiter)) resolve();
      else this.waiters.push(waiter);
    });
  }

  private played(waiter: PlayedWaiter): boolean {
    // A playout no longer in the map has played out or was cancelled (a turn id can get a new one).
    return waiter.pieces.every(({ playout, count }) => this.playouts.get(playout.turn) !== playout || playout.pieces.slice(0, count).every((piece) => piece.confirmed));
  }

  private wakeWaiters(): void {
    const waiting = this.waiters;
    this.waiters = waiting.filter((waiter) => !this.closed && !this.played(waiter));
    for (const waiter of waiting) if (!this.waiters.includes(waiter)) waiter.resolve();
  }

  private playout(turn: TurnId): Playout {
    let p = this.playouts.get(turn);
    if (!p) {
      p = { turn, pieces: [], current: 0, resampler: null, remainder: new Int16Array(0), lazy: false, ttsDone: false, endQueued: false, handedAny: false };
      this.playouts.set(turn, p);
      this.options.floor.assistantTakes(turn);
    }
    return p;
  }

  private onAudio(frame: FrameOf<'tts-audio'>): void {
    const p = this.playout(frame.turn);
    const rate = this.options.media.sampleRate;
    // Audio without a `speak` before it (e.g. a provider's own text) still plays, as a piece of no text.
    if (p.pieces.length <= p.current) p.pieces.push({ text: '', samples: 0, complete: false, confirmed: false, playout: [] });
    if (frame.sampleRate !== rate || p.lazy) {
      if (frame.sampleRate !== rate && (!p.resampler || p.resampler.from !== frame.sampleRate)) p.resampler = new Resampler(frame.sampleRate, rate);
      const resampler = frame.sampleRate === rate ? null : p.resampler;
      p.lazy = true;
      // Its length at the leg's rate, for what-was-heard (exact once resampled, to a sample or two).
      p.pieces[p.current]!.samples += (frame.samples.length * rate) / frame.sampleRate;
      const slice = Math.max(1, Math.round(frame.sampleRate / 50));
      for (let at = 0; at < frame.samples.length; at += slice) {
        this.queue.push({ turn: p.turn, raw: frame.samples.subarray(at, at + slice), resampler, piece: p.current });
      }
      return;
    }
    const samples = frame.samples;
    const joined = new Int16Array(p.remainder.length + samples.length);
    joined.set(p.remainder);
    joined.set(samples, p.remainder.length);
    let offset = 0;
    for (; offset + this.frameSamples <= joined.length; offset += this.frameSamples) {
      this.enqueueAudio(p, joined.slice(offset, offset + this.frameSamples));
    }
    p.remainder = joined.slice(offset);
  }

  private onText(turn: TurnId, text: string): void {
    const p = this.playout(turn);
    if (p.pieces.length <= p.current) p.pieces.push({ text: '', samples: 0, complete: false, confirmed: false, playout: [] });
    const piece = p.pieces[p.current]!;
    piece.fromAudio = true;
    piece.text += text;
  }

  private onSpoken(turn: TurnId, text: string): void {
    const p = this.playout(turn);
    this.flushRemainder(p);
    const piece = p.pieces[p.current];
    if (!piece) return;
    // The provider's whole text of its own audio replaces what streamed in with it.
    if ((piece.fromAudio || piece.text === '') && text.trim() !== '') piece.text = text.trim();
    piece.complete = true;
    this.queue.push({ turn, mark: `t${turn}p${p.current}` });
    p.current++;
  }

  private flushRemainder(p: Playout): void {
    if (p.lazy) {
      this.queue.push({ turn: p.turn, flush: true, piece: p.current });
      return;
    }
    if (p.remainder.length === 0) return;
    this.enqueueAudio(p, p.remainder);
    p.remainder = new Int16Array(0);
  }

  private enqueueAudio(p: Playout, audio: Int16Array): void {
    if (p.pieces.length <= p.current) p.pieces.push({ text: '', samples: 0, complete: false, confirmed: false, playout: [] });
    p.pieces[p.current]!.samples += audio.length;
    this.queue.push({ turn: p.turn, audio, piece: p.current });
  }

  private queueEnd(p: Playout): void {
    if (p.endQueued) return;
    p.endQueued = true;
    this.queue.push({ turn: p.turn, mark: `t${p.turn}end` });
  }

  /** Hands queued frames to the leg up to `leadMs` ahead of real time. */
  private pump(): void {
    if (this.closed) return;
    const clock = this.options.clock;
    const rate = this.options.media.sampleRate;
    this.forgetPlayed(clock.now());
    while (this.queue.length > 0) {
      const now = clock.now();
      if (this.paused && this.queue[0]!.turn === this.paused.turn) break;
      if (this.bufferedUntil - now >= this.leadMs) break;
      const item = this.queue.shift()!;
      if ('raw' in item || 'flush' in item) {
        this.queue.unshift(...this.framesOf(item));
        continue;
      }
      if ('mark' in item) {
        this.handed.push({ item, endsAt: this.bufferedUntil });
        this.options.media.mark(item.mark);
        continue;
      }
      const p = this.playouts.get(item.turn);
      const start = Math.max(this.bufferedUntil, now);
      const ms = (item.audio.length / rate) * 1000;
      this.bufferedUntil = start + ms;
      p?.pieces[item.piece]?.playout.push({ start, ms });
      if (p) p.handedAny = true;
      this.handed.push({ item, endsAt: this.bufferedUntil });
      const audio = this.bed && !this.bedStopped ? this.bed.mix(item.audio) : item.audio;
      this.options.media.play(audio);
      this.push({ kind: 'audio-out', turn: item.turn, samples: audio, at: now });
    }
    const waiting = this.queue.length > 0 && !(this.paused && this.queue[0]!.turn === this.paused.turn);
    // The bed while no speech can go out (none queued, or the reply paused under the caller's words).
    const bedOn = this.bed !== null && !this.bedStopped && this.lent === 0;
    if (bedOn && !waiting) this.pumpBed();
    if (waiting || bedOn) this.pacer.add(this.tick);
    else this.pacer.remove(this.tick);
  }

  /** The bed alone, up to `bedLeadMs` ahead. */
  private pumpBed(): void {
    const clock = this.options.clock;
    const now = clock.now();
    const frameMs = (this.frameSamples / this.options.media.sampleRate) * 1000;
    this.bufferedUntil = Math.max(this.bufferedUntil, now);
    while (this.bufferedUntil - now < this.bedLeadMs) {
      const samples = this.bed!.mix(new Int16Array(this.frameSamples));
      this.bufferedUntil += frameMs;
      this.options.media.play(samples, true);
      this.push({ kind: 'ambient-out', turn: this.ctx?.turns.current ?? 0, samples, at: now });
    }
  }

  /**
   * First step of an interruption (interruption.ts): `turn` stops going out at once; what the leg
   * holds of it is dropped (`clear`) and queued again from the frame playing now, so `resume`
   * plays the reply on where the caller stopped hearing it. A turn with nothing out yet (the
   * assistant still thinking) just does not start. Once per pause; another turn's pause replaces it.
   */
  pause(turn: TurnId): void {
    if (this.closed || this.paused?.turn === turn || this.ctx?.turns.isCancelled(turn)) return;
    const now = this.options.clock.now();
    this.forgetPlayed(now);
    this.paused = { turn, at: now };
    const back: Item[] = [];
    this.handed = this.handed.filter((h) => {
      if (h.item.turn !== turn) return true;
      back.push(h.item);
      return false;
    });
    const p = this.playouts.get(turn);
    if (back.length > 0) {
      // What the caller did not hear of the frames handed out is not theirs any more.
      for (const piece of p?.pieces ?? []) {
        piece.playout = piece.playout.filter((f) => f.start < now);
        const last = piece.playout.at(-1);
        if (last && last.start + last.ms > now) last.ms = now - last.start;
      }
      this.queue.unshift(...back);
      if (back.some((item) => 'audio' in item)) {
        this.options.media.clear();
        this.bufferedUntil = now;
        if (p) p.handedAny = false;
      }
    }
    this.push({ kind: 'playback-paused', turn, at: now });
    this.pump();
  }

  /** Second step when the caller only said "mhm" (or nothing): the paused turn plays on where it stopped. */
  resume(turn: TurnId): void {
    if (this.paused?.turn !== turn) return;
    const now = this.options.clock.now();
    const pausedMs = now - this.paused.at;
    this.paused = null;
    this.push({ kind: 'playback-resumed', turn, pausedMs, at: now });
    this.pump();
  }

  /** Drops handed items the leg is done with: audio played out by the clock, marks that came back played. */
  private forgetPlayed(now: number): void {
    if (this.handed.length === 0) return;
    this.handed = this.handed.filter((h) => ('mark' in h.item ? !h.back : h.endsAt > now));
  }

  /** A lazy item as leg-rate frames (the remainder stays with the playout until its piece ends). */
  private framesOf(item: Extract<Item, { raw: Int16Array } | { flush: true }>): Item[] {
    const p = this.playouts.get(item.turn);
    if (!p) return [];
    if ('flush' in item) {
      const rest = p.remainder;
      p.remainder = new Int16Array(0);
      return rest.length > 0 ? [{ turn: item.turn, audio: rest, piece: item.piece }] : [];
    }
    const samples = item.resampler ? item.resampler.process(item.raw) : item.raw;
    const joined = new Int16Array(p.remainder.length + samples.length);
    joined.set(p.remainder);
    joined.set(samples, p.remainder.length);
    const frames: Item[] = [];
    let offset = 0;
    for (; offset + this.frameSamples <= joined.length; offset += this.frameSamples) {
      frames.push({ turn: item.turn, audio: joined.slice(offset, offset + this.frameSamples), piece: item.piece });
    }
    p.remainder = joined.slice(offset);
    return frames;
  }

  private onMark(name: string, cleared: boolean): void {
    const m = /^t(\d+)(?:p(\d+)|end)$/.exec(name);
    if (!m || cleared || this.closed) return;
    for (const h of this.handed) if ('mark' in h.item && h.item.mark === name) h.back = true;
    const turn = Number(m[1]);
    const p = this.playouts.get(turn);
    if (!p) return;
    const now = this.options.clock.now();
    if (m[2] !== undefined) {
      const piece = p.pieces[Number(m[2])];
      if (piece) piece.confirmed = true;
      this.wakeWaiters();
      this.both({ kind: 'playback-mark', turn, name, cleared, heardText: this.heardText(turn, now), at: now });
      return;
    }
    const text = p.pieces.map((piece) => piece.text).filter((t) => t !== '').join(' ');
    this.playouts.delete(turn);
    this.options.floor.assistantDone(turn);
    this.wakeWaiters();
    this.both({ kind: 'playback-done', turn, text, at: now });
    if (this.pendingHangUp && !this.hasPendingAudio()) {
      const hangUp = this.pendingHangUp;
      this.pendingHangUp = null;
      this.stopPacing();
      this.push(hangUp);
    }
  }

  private onCancel(turn: TurnId, bargeIn: boolean): void {
    const p = this.playouts.get(turn);
    this.options.floor.assistantDone(turn);
    if (this.paused?.turn === turn) this.paused = null;
    this.handed = this.handed.filter((h) => h.item.turn !== turn);
    if (!p) {
      if (bargeIn) this.both({ kind: 'interruption', turn, heardText: '', heardMs: 0, at: this.options.clock.now() });
      return;
    }
    const now = this.options.clock.now();
    const heardText = this.heardText(turn, now);
    const heardMs = Math.round(p.pieces.reduce((sum, piece) => sum + piece.playout.reduce((s, f) => s + Math.min(f.ms, Math.max(0, now - f.start)), 0), 0));
    for (let i = this.queue.length - 1; i >= 0; i--) if (this.queue[i]!.turn === turn) this.queue.splice(i, 1);
    if (p.handedAny) {
      this.options.media.clear();
      this.bufferedUntil = now;
    }
    this.playouts.delete(turn);
    this.wakeWaiters();
    if (bargeIn) this.both({ kind: 'interruption', turn, heardText: heardText.trim(), heardMs, at: now });
  }

  private both(frame: Frame): void {
    this.push(frame);
    this.ctx?.pushUp(frame);
  }

  private hasPendingAudio(): boolean {
    return this.queue.length > 0 || this.playouts.size > 0;
  }

  private stopPacing(): void {
    this.bedStopped = true;
    this.pacer.remove(this.tick);
  }

  close(): void {
    this.closed = true;
    this.stopPacing();
    this.wakeWaiters();
  }
}

/** The first `fraction` of `text`, cut back to a whole word. */
export function prefixOf(text: string, fraction: number): string {
  if (fraction >= 1) return text;
  const cut = Math.floor(text.length * Math.max(0, fraction));
  if (cut >= text.length) return text;
  const head = text.slice(0, cut);
  // A word counts as heard only once it is heard to its end.
  const atBoundary = /\s/.test(text[cut] ?? ' ');
  const words = head.trimEnd();
  if (atBoundary) return words;
  const lastSpace = words.lastIndexOf(' ');
  return lastSpace < 0 ? '' : words.slice(0, lastSpace).trimEnd();
}
