/**
 * The local voice: eSpeak NG in child processes (pool.ts), no key, no network. It is what the
 * offline default speaks with and what renders the caller-speech fixtures.
 *
 * Voice ids (a voice's `provider_voice_id`): `[language][+variant]`, e.g. `en-gb`, `en-us+f3`,
 * `de`. Without a language the assistant's language is used (`en` → `en-us`); the variants
 * `female` and `male` are this project's names for eSpeak's `f3` and its default male voice.
 * Each pushed piece is synthesised whole (eSpeak is much faster than real time) and its audio
 * is delivered in 100 ms chunks, in push order, followed by `spoken`.
 */
import type { TtsEvent, TtsProvider, TtsStream, TtsStreamOptions } from '../types.js';
import { EspeakPool, LocalVoiceUnavailableError, SpeakCancelledError, type PoolOptions, type PoolStatus, type SpeakResult } from './pool.js';

export { EspeakPool, type PoolStatus };

/** eSpeak's default speaking rate in words per minute (speed 1.0). */
const DEFAULT_WPM = 175;
const VARIANTS: Record<string, string> = { female: 'f3', male: '' };
const LANGUAGE = /^[a-z]{2,3}(-[a-z0-9]{1,8}){0,3}$/i;
const VARIANT = /^[a-z0-9_]{1,16}$/i;
/** When the assistant's ISO 639-1 language has a regional default in eSpeak. */
const REGIONAL: Record<string, string> = { en: 'en-us', pt: 'pt-br' };

export class UnknownLocalVoiceError extends Error {}

/** The eSpeak voice name for a provider voice id and a language (throws on a malformed id). */
export function espeakVoice(voiceId: string, language: string): string {
  const [rawBase, rawVariant = ''] = voiceId.trim().split('+', 2);
  const named = rawBase.toLowerCase() in VARIANTS;
  const base = named || rawBase === '' ? REGIONAL[language.toLowerCase()] ?? language.toLowerCase() : rawBase.toLowerCase();
  const variantName = named ? rawBase.toLowerCase() : rawVariant.toLowerCase();
  const variant = VARIANTS[variantName] ?? variantName;
  if (!LANGUAGE.test(base) || (variant !== '' && !VARIANT.test(variant))) {
    throw new UnknownLocalVoiceError(`not a local voice: ${JSON.stringify(voiceId)} (use e.g. en-us, en-gb+female, de)`);
  }
  return variant ? `${base}+${variant}` : base;
}

/** Words per minute for a speaking-rate factor (eSpeak accepts 80–450). */
export function wordsPerMinute(speed = 1): number {
  return Math.min(450, Math.max(80, Math.round(DEFAULT_WPM * speed)));
}

export class LocalTts implements TtsProvider {
  readonly name = 'local';
  readonly pool: EspeakPool;

  constructor(options: PoolOptions & { pool?: EspeakPool } = {}) {
    this.pool = options.pool ?? new EspeakPool(options);
  }

  /** False when eSpeak NG (the optional dependency) is missing or failed to start. */
  get available(): boolean {
    return this.pool.available;
  }

  status(): Promise<PoolStatus> {
    return this.pool.status();
  }

  open(options: TtsStreamOptions, onEvent: (event: TtsEvent) => void): TtsStream {
    return new LocalStream(this.pool, options, onEvent);
  }

  /** Synthesises one text whole (fixtures, the sandbox's caller voice). */
  async speak(text: string, options: TtsStreamOptions): Promise<SpeakResult> {
    return this.pool.speak({
      text,
      voice: espeakVoice(options.voice, options.language),
      wordsPerMinute: wordsPerMinute(options.speed),
      sampleRate: options.sampleRate,
    }).result;
  }

  close(): void {
    this.pool.close();
  }
}

interface Piece {
  text: string;
  id: number | null;
  result: Promise<SpeakResult | null>;
}

class LocalStream implements TtsStream {
  private readonly pieces: Piece[] = [];
  /** Delivers pieces strictly in push order. */
  private delivering: Promise<void> = Promise.resolve();
  private ended = false;
  private stopped = false;
  private readonly voice: string | Error;

  constructor(private readonly pool: EspeakPool, private readonly options: TtsStreamOptions, private readonly emit: (e: TtsEvent) => void) {
    try {
      this.voice = espeakVoice(options.voice, options.language);
    } catch (err) {
      this.voice = err as Error;
    }
  }

  push(text: string): void {
    if (this.stopped || this.ended) return;
    let piece: Piece;
    if (!/[\p{L}\p{N}]/u.test(text)) {
      piece = { text, id: null, result: Promise.resolve(null) };
    } else if (this.voice instanceof Error) {
      piece = { text, id: null, result: Promise.reject(this.voice) };
    } else {
      const job = this.pool.speak({ text, voice: this.voice, wordsPerMinute: wordsPerMinute(this.options.speed), sampleRate: this.options.sampleRate });
      piece = { text, id: job.id, result: job.result };
    }
    piece.result.catch(() => undefined); // handled in order below
    this.pieces.push(piece);
    this.delivering = this.delivering.then(() => this.deliver(piece));
  }

  end(): void {
    if (this.stopped || this.ended) return;
    this.ended = true;
    this.delivering = this.delivering.then(() => {
      if (this.stopped) return;
      this.stopped = true;
      this.emit({ type: 'done' });
    });
  }

  cancel(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const piece of this.pieces) if (piece.id !== null) this.pool.cancel(piece.id);
  }

  private async deliver(piece: Piece): Promise<void> {
    if (this.stopped) return;
    let result: SpeakResult | null;
    try {
      result = await piece.result;
    } catch (err) {
      if (this.stopped || err instanceof SpeakCancelledError) return;
      this.cancel();
      const message = err instanceof LocalVoiceUnavailableError || err instanceof UnknownLocalVoiceError ? err.message : `local voice: ${(err as Error).message}`;
      this.emit({ type: 'error', message });
      return;
    }
    if (this.stopped) return;
    if (result) {
      const chunk = Math.max(1, Math.round(result.sampleRate / 10));
      for (let at = 0; at < result.samples.length && !this.stopped; at += chunk) {
        this.emit({ type: 'audio', samples: result.samples.slice(at, at + chunk), sampleRate: result.sampleRate });
      }
    }
    if (!this.stopped) this.emit({ type: 'spoken', text: piece.text });
  }
}
