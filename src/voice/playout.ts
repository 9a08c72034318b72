/**
 * A turn's playout in the output stage (output.ts): its spoken pieces, and its TTS audio turned
 * into queued leg-rate 20 ms frames and marks.
 *
 * TTS audio at the leg's rate is cut into frames on arrival; audio at another rate waits as `raw`
 * 20 ms slices and is resampled into frames only when the output's pump reaches it (`framesOf`;
 * a `flush` item then hands out the piece's last partial frame). Resampling a reply on arrival
 * cost one synchronous block per TTS chunk (≈ 1 ms per second of 24 kHz audio: seconds of audio
 * at once) and work for audio a barge-in then threw away; resampled at the pump it is a 20 ms
 * slice per tick.
 */
import { Resampler } from '../audio/resample.js';
import type { FrameOf, TurnId } from './frames.js';

export interface Piece {
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

export interface Playout {
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

/** Queued output: leg-rate frames and marks, and lazy audio (`raw`, `flush`) still to become frames. */
export type Item =
  | { turn: TurnId; audio: Int16Array; piece: number }
  | { turn: TurnId; mark: string }
  | { turn: TurnId; raw: Int16Array; resampler: Resampler | null; piece: number }
  | { turn: TurnId; flush: true; piece: number };

export function newPiece(text: string): Piece {
  return { text, samples: 0, complete: false, confirmed: false, playout: [] };
}

export function newPlayout(turn: TurnId): Playout {
  return { turn, pieces: [], current: 0, resampler: null, remainder: new Int16Array(0), lazy: false, ttsDone: false, endQueued: false, handedAny: false };
}

/** The piece the next audio or text belongs to (audio without a `speak` before it makes one of no text). */
export function currentPiece(p: Playout): Piece {
  if (p.pieces.length <= p.current) p.pieces.push(newPiece(''));
  return p.pieces[p.current]!;
}

/** Queues a TTS chunk: as whole leg-rate frames, or as lazy `raw` slices when it needs resampling. */
export function queueAudio(p: Playout, frame: FrameOf<'tts-audio'>, rate: number, frameSamples: number, queue: Item[]): void {
  currentPiece(p);
  if (frame.sampleRate !== rate || p.lazy) {
    if (frame.sampleRate !== rate && (!p.resampler || p.resampler.from !== frame.sampleRate)) p.resampler = new Resampler(frame.sampleRate, rate);
    const resampler = frame.sampleRate === rate ? null : p.resampler;
    p.lazy = true;
    // Its length at the leg's rate, for what-was-heard (exact once resampled, to a sample or two).
    p.pieces[p.current]!.samples += (frame.samples.length * rate) / frame.sampleRate;
    const slice = Math.max(1, Math.round(frame.sampleRate / 50));
    for (let at = 0; at < frame.samples.length; at += slice) {
      queue.push({ turn: p.turn, raw: frame.samples.subarray(at, at + slice), resampler, piece: p.current });
    }
    return;
  }
  const samples = frame.samples;
  const joined = new Int16Array(p.remainder.length + samples.length);
  joined.set(p.remainder);
  joined.set(samples, p.remainder.length);
  let offset = 0;
  for (; offset + frameSamples <= joined.length; offset += frameSamples) {
    queueFrame(p, joined.slice(offset, offset + frameSamples), queue);
  }
  p.remainder = joined.slice(offset);
}

/** The current piece's audio ends: its partial last frame goes out (now, or via `flush` when lazy). */
export function flushRemainder(p: Playout, queue: Item[]): void {
  if (p.lazy) {
    queue.push({ turn: p.turn, flush: true, piece: p.current });
    return;
  }
  if (p.remainder.length === 0) return;
  queueFrame(p, p.remainder, queue);
  p.remainder = new Int16Array(0);
}

function queueFrame(p: Playout, audio: Int16Array, queue: Item[]): void {
  currentPiece(p).samples += audio.length;
  queue.push({ turn: p.turn, audio, piece: p.current });
}

/** A lazy item as leg-rate frames (the remainder stays with the playout until its piece ends). */
export function framesOf(p: Playout, item: Extract<Item, { raw: Int16Array } | { flush: true }>, frameSamples: number): Item[] {
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
  for (; offset + frameSamples <= joined.length; offset += frameSamples) {
    frames.push({ turn: item.turn, audio: joined.slice(offset, offset + frameSamples), piece: item.piece });
  }
  p.remainder = joined.slice(offset);
  return frames;
}
