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
 * - the ambient bed (`ambient`, ambient.ts), when the assistant has one: mixed into every speech
 *   frame, alone between speech (`ambient-out`), lent while hold music plays (`lend()`).
 *
 * The jobs that keep their own state live beside it: a turn's pieces and its audio as queued
 * frames (playout.ts), what was heard of them (heard.ts), the paused turn and the items the leg
 * may still hold (output-pause.ts), the bed (output-bed.ts). The pacing, the queue, the clock
 * position (`bufferedUntil`) and the marks' order stay here, in one place.
 */
import type { LegMedia } from '../telephony/types.js';
import type { Clock } from '../telephony/clock.js';
import type { Frame, FrameOf, TurnId } from './frames.js';
import type { Push, Stage, StageContext } from './pipeline.js';
import { pacerFor, type Pacer } from './pacer.js';
import type { Floor } from './settings.js';
import type { AmbientMixer } from './ambient.js';
import { BedFeed } from './output-bed.js';
import { OutputPause } from './output-pause.js';
import { currentPiece, flushRemainder, framesOf, newPiece, newPlayout, queueAudio, type Item, type Playout } from './playout.js';
import { cutPlayoutAt, heardMsOf, heardTextOf } from './heard.js';

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

/** Someone waiting for pieces to play (`playedSoFar`): each playout that had pieces, and how many. */
/** Free lead (ms) before the pump hands frames again: two 20 ms frames per run in a steady reply. */
const REFILL_MS = 40;

type PlayedWaiter = { pieces: { playout: Playout; count: number }[]; resolve: () => void };

export class OutputStage implements Stage {
  readonly name = 'output';
  private readonly playouts = new Map<TurnId, Playout>();
  private readonly queue: Item[] = [];
  private readonly frameSamples: number;
  private readonly leadMs: number;
  private readonly bed: BedFeed;
  /** Monotonic time the audio handed so far ends playing. */
  private bufferedUntil = 0;
  private readonly pacer: Pacer;
  private readonly tick = () => this.pump();
  private pendingHangUp: FrameOf<'hang-up'> | null = null;
  /** The paused turn (interruption.ts) and the items handed to the leg that it may still hold. */
  private readonly pauses = new OutputPause();
  private waiters: PlayedWaiter[] = [];
  private push: Push = () => undefined;
  private ctx: StageContext | null = null;
  private closed = false;

  constructor(private readonly options: OutputOptions) {
    this.frameSamples = Math.round(options.media.sampleRate / 50);
    this.leadMs = options.leadMs ?? 100;
    this.bed = new BedFeed(options.ambient ?? null, Math.min(this.leadMs, options.bedLeadMs ?? 60), this.frameSamples, options.media.sampleRate, () => this.pump());
    this.pacer = pacerFor(options.clock);
  }

  start(ctx: StageContext, push: Push): void {
    this.ctx = ctx;
    this.push = push;
    this.options.media.onMark((name, cleared) => this.onMark(name, cleared));
    // The bed from the answer on (from the first tick: the stages after this one start first).
    if (this.bed.present) this.pacer.add(this.tick);
  }

  /**
   * Something else plays on the line for a while (hold music, line-player.ts): the bed pauses
   * until the returned function is called (the assistant's speech is not held back).
   */
  lend(): () => void {
    return this.bed.lend();
  }

  process(frame: Frame, push: Push): void {
    switch (frame.kind) {
      case 'speak':
        this.playout(frame.turn).pieces.push(newPiece(frame.text));
        break;
      case 'tts-audio':
        queueAudio(this.playout(frame.turn), frame, this.options.media.sampleRate, this.frameSamples, this.queue);
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
        flushRemainder(p, this.queue);
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
    return heardTextOf(p.pieces, this.options.media.sampleRate, now);
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
      p = newPlayout(turn);
      this.playouts.set(turn, p);
      this.options.floor.assistantTakes(turn);
    }
    return p;
  }

  private onText(turn: TurnId, text: string): void {
    const piece = currentPiece(this.playout(turn));
    piece.fromAudio = true;
    piece.text += text;
  }

  private onSpoken(turn: TurnId, text: string): void {
    const p = this.playout(turn);
    flushRemainder(p, this.queue);
    const piece = p.pieces[p.current];
    if (!piece) return;
    // The provider's whole text of its own audio replaces what streamed in with it.
    if ((piece.fromAudio || piece.text === '') && text.trim() !== '') piece.text = text.trim();
    piece.complete = true;
    this.queue.push({ turn, mark: `t${turn}p${p.current}` });
    p.current++;
  }

  private queueEnd(p: Playout): void {
    if (p.endQueued) return;
    p.endQueued = true;
    this.queue.push({ turn: p.turn, mark: `t${p.turn}end` });
  }

  /**
   * Hands queued frames to the leg up to `leadMs` ahead of real time, once at least
   * `REFILL_MS` of that lead is free: a steady reply then goes out two frames at a time (one
   * synchronous run, which a carrier may send as one message: Twilio does), not one per tick,
   * and the line still holds 60 ms or more.
   */
  private pump(): void {
    if (this.closed) return;
    const clock = this.options.clock;
    const rate = this.options.media.sampleRate;
    this.pauses.forgetPlayed(clock.now());
    const refill = this.leadMs - (this.bufferedUntil - clock.now()) >= Math.min(REFILL_MS, this.leadMs);
    while (refill && this.queue.length > 0) {
      const now = clock.now();
      if (this.pauses.holds(this.queue[0]!.turn)) break;
      if (this.bufferedUntil - now >= this.leadMs) break;
      const item = this.queue.shift()!;
      if ('raw' in item || 'flush' in item) {
        const p = this.playouts.get(item.turn);
        if (p) this.queue.unshift(...framesOf(p, item, this.frameSamples));
        continue;
      }
      if ('mark' in item) {
        this.pauses.hand(item, this.bufferedUntil);
        this.options.media.mark(item.mark);
        continue;
      }
      const p = this.playouts.get(item.turn);
      const start = Math.max(this.bufferedUntil, now);
      const ms = (item.audio.length / rate) * 1000;
      this.bufferedUntil = start + ms;
      p?.pieces[item.piece]?.playout.push({ start, ms });
      if (p) p.handedAny = true;
      this.pauses.hand(item, this.bufferedUntil);
      const audio = this.bed.mix(item.audio);
      this.options.media.play(audio);
      this.push({ kind: 'audio-out', turn: item.turn, samples: audio, at: now });
    }
    const waiting = this.queue.length > 0 && !this.pauses.holds(this.queue[0]!.turn);
    // The bed while no speech can go out (none queued, or the reply paused under the caller's words).
    const bedOn = this.bed.on;
    if (bedOn && !waiting) this.pumpBed();
    if (waiting || bedOn) this.pacer.add(this.tick);
    else this.pacer.remove(this.tick);
  }

  /** The bed alone, up to its lead ahead. */
  private pumpBed(): void {
    const now = this.options.clock.now();
    this.bufferedUntil = this.bed.fill(now, this.bufferedUntil, (samples, until) => {
      this.bufferedUntil = until;
      this.options.media.play(samples, true);
      this.push({ kind: 'ambient-out', turn: this.ctx?.turns.current ?? 0, samples, at: now });
    });
  }

  /**
   * First step of an interruption (interruption.ts): `turn` stops going out at once; what the leg
   * holds of it is dropped (`clear`) and queued again from the frame playing now, so `resume`
   * plays the reply on where the caller stopped hearing it. A turn with nothing out yet (the
   * assistant still thinking) just does not start. Once per pause; another turn's pause replaces it.
   */
  pause(turn: TurnId): void {
    if (this.closed || this.pauses.holds(turn) || this.ctx?.turns.isCancelled(turn)) return;
    const now = this.options.clock.now();
    const back: Item[] = this.pauses.pause(turn, now);
    const p = this.playouts.get(turn);
    if (back.length > 0) {
      // What the caller did not hear of the frames handed out is not theirs any more.
      cutPlayoutAt(p?.pieces ?? [], now);
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
    if (!this.pauses.holds(turn)) return;
    const now = this.options.clock.now();
    const pausedMs = this.pauses.resume(turn, now)!;
    this.push({ kind: 'playback-resumed', turn, pausedMs, at: now });
    this.pump();
  }

  private onMark(name: string, cleared: boolean): void {
    const m = /^t(\d+)(?:p(\d+)|end)$/.exec(name);
    if (!m || cleared || this.closed) return;
    this.pauses.markBack(name);
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
    this.pauses.drop(turn);
    if (!p) {
      if (bargeIn) this.both({ kind: 'interruption', turn, heardText: '', heardMs: 0, at: this.options.clock.now() });
      return;
    }
    const now = this.options.clock.now();
    const heardText = this.heardText(turn, now);
    const heardMs = heardMsOf(p.pieces, now);
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
    this.bed.stop();
    this.pacer.remove(this.tick);
  }

  close(): void {
    this.closed = true;
    this.stopPacing();
    this.wakeWaiters();
  }
}
