/**
 * ElevenLabs text-to-speech over its WebSocket stream-input protocol (VOICE.md A3):
 * `wss://api.elevenlabs.io/v1/text-to-speech/{voice}/stream-input?model_id=…&output_format=pcm_…`,
 * key in the `xi-api-key` header. One socket per reply:
 *
 *   → {"text":" ", "voice_settings":{stability, similarity_boost, speed}}   (init)
 *   → {"text":"First sentence. ", "flush":true}                             (each pushed piece)
 *   → {"text":""}                                                           (end)
 *   ← {"audio":"<base64 s16le>", "normalizedAlignment":{chars, charStartTimesMs, charDurationsMs}, "alignment":{…}}
 *   ← {"isFinal":true}
 *
 * `flush` on every piece makes synthesis start per sentence instead of waiting for ElevenLabs'
 * chunk schedule (lower latency, slightly less natural joins between sentences).
 *
 * Latency: the socket opens in `open()`, before any text, and the core opens the stream when it
 * starts the LLM request, so the TLS + WebSocket handshake (~100–300 ms) overlaps the LLM's time
 * to first token. A warm connection shared across replies (the `multi-stream-input` endpoint,
 * one context per reply) would also save that handshake when the LLM answers faster than it;
 * it is not used: it needs a per-call connection owner and context bookkeeping, and the overlap
 * already hides the handshake in the common case (see docs/decisions.md).
 */
import WebSocket from 'ws';
import { bytesToInt16 } from '../../../audio/pcm.js';
import { audioBudgetMs, WS_MAX_MESSAGE_BYTES } from '../../bounded.js';
import type { TtsAlignment, TtsEvent, TtsProvider, TtsStream, TtsStreamOptions } from '../types.js';

export interface ElevenLabsOptions {
  /** ELEVENLABS_URL, `wss://api.elevenlabs.io`. */
  url: string;
  apiKey: string;
  /** e.g. `eleven_flash_v2_5` (ELEVENLABS_MODEL). */
  model: string;
  /** Handshake limit (default 10 000 ms). */
  connectTimeoutMs?: number;
  /** Seconds ElevenLabs keeps a socket without text (its default 20; a slow tool call can take longer). */
  inactivityTimeoutS?: number;
}

/** PCM rates ElevenLabs can stream. */
const PCM_RATES = [8000, 16000, 22050, 24000, 44100, 48000];

/** The PCM format to ask for: the requested rate when offered, else the next higher (or the highest). */
export function elevenLabsRate(wanted: number): number {
  return PCM_RATES.find((r) => r >= wanted) ?? PCM_RATES[PCM_RATES.length - 1];
}

interface Alignment {
  chars?: string[];
  charStartTimesMs?: number[];
  charDurationsMs?: number[];
}

interface ServerMessage {
  audio?: string | null;
  isFinal?: boolean | null;
  normalizedAlignment?: Alignment | null;
  alignment?: Alignment | null;
  message?: string;
  error?: string;
}

export class ElevenLabsTts implements TtsProvider {
  readonly name = 'elevenlabs';

  constructor(private readonly opts: ElevenLabsOptions) {}

  streamUrl(options: TtsStreamOptions): { url: string; sampleRate: number } {
    const sampleRate = elevenLabsRate(options.sampleRate);
    const url = new URL(`${this.opts.url.replace(/\/+$/, '')}/v1/text-to-speech/${encodeURIComponent(options.voice)}/stream-input`);
    url.searchParams.set('model_id', this.opts.model);
    url.searchParams.set('output_format', `pcm_${sampleRate}`);
    url.searchParams.set('inactivity_timeout', String(this.opts.inactivityTimeoutS ?? 60));
    // Only the v2.5 models accept a language code; others refuse the connection when given one.
    if (/_v2_5$/.test(this.opts.model) && options.language) url.searchParams.set('language_code', options.language);
    return { url: url.toString(), sampleRate };
  }

  open(options: TtsStreamOptions, onEvent: (event: TtsEvent) => void): TtsStream {
    const { url, sampleRate } = this.streamUrl(options);
    return new ElevenLabsStream(url, sampleRate, this.opts, options, onEvent);
  }
}

class ElevenLabsStream implements TtsStream {
  private readonly socket: WebSocket;
  private outbox: string[] = [];
  /** Pieces not yet reported spoken, with the running count of their non-space characters. */
  private pieces: { text: string; upTo: number }[] = [];
  private pushedChars = 0;
  private alignedChars = 0;
  /** Samples received, against the budget of the text pushed (audioBudgetMs). */
  private receivedSamples = 0;
  private carry: Buffer | null = null;
  private ended = false;
  private finished = false;

  constructor(url: string, private readonly sampleRate: number, opts: ElevenLabsOptions, options: TtsStreamOptions, private readonly emit: (e: TtsEvent) => void) {
    const voiceSettings: Record<string, number> = {};
    if (options.stability !== undefined) voiceSettings.stability = options.stability;
    if (options.similarity !== undefined) voiceSettings.similarity_boost = options.similarity;
    // ElevenLabs accepts speeds of 0.7–1.2.
    if (options.speed !== undefined) voiceSettings.speed = Math.min(1.2, Math.max(0.7, options.speed));
    this.outbox.push(JSON.stringify({ text: ' ', voice_settings: voiceSettings }));
    this.socket = new WebSocket(url, { headers: { 'xi-api-key': opts.apiKey }, handshakeTimeout: opts.connectTimeoutMs ?? 10_000, maxPayload: WS_MAX_MESSAGE_BYTES.audio });
    this.socket.on('open', () => {
      for (const m of this.outbox) this.socket.send(m);
      this.outbox = [];
    });
    this.socket.on('message', (data, isBinary) => {
      if (!isBinary) this.onMessage(data.toString());
    });
    this.socket.on('unexpected-response', (_req, res) => {
      res.resume();
      this.fail(`ElevenLabs refused the connection: HTTP ${res.statusCode}${res.statusMessage ? ` ${res.statusMessage}` : ''}`);
    });
    this.socket.on('error', (err) => this.fail(`ElevenLabs connection failed: ${err.message}`));
    this.socket.on('close', (code, reason) => {
      if (!this.finished) this.fail(`ElevenLabs closed the stream: ${code}${reason.length ? ` ${reason.toString()}` : ''}`);
    });
  }

  push(text: string): void {
    if (this.finished || this.ended) return;
    const chars = countChars(text);
    this.pushedChars += chars;
    this.pieces.push({ text, upTo: this.pushedChars });
    // Whitespace-only text would end the stream (`""`) or do nothing: report it spoken in order.
    if (chars === 0) return this.reportSpoken();
    this.send({ text: text.endsWith(' ') ? text : `${text} `, flush: true });
  }

  end(): void {
    if (this.finished || this.ended) return;
    this.ended = true;
    this.send({ text: '' });
  }

  cancel(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.socket.readyState === WebSocket.CONNECTING) this.socket.terminate();
    else this.socket.close(1000);
  }

  private send(message: object): void {
    const text = JSON.stringify(message);
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(text);
    else this.outbox.push(text);
  }

  private onMessage(text: string): void {
    if (this.finished) return;
    let msg: ServerMessage;
    try {
      msg = JSON.parse(text) as ServerMessage;
    } catch {
      return this.fail('ElevenLabs sent a message that is not JSON');
    }
    if (msg.error || (msg.message && !msg.audio && !msg.isFinal)) {
      return this.fail(`ElevenLabs: ${msg.message ?? msg.error}`);
    }
    if (msg.audio) {
      let bytes = Buffer.from(msg.audio, 'base64');
      if (this.carry) bytes = Buffer.concat([this.carry, bytes]);
      // A chunk may end inside a sample; keep the odd byte for the next one.
      this.carry = bytes.length % 2 ? bytes.subarray(bytes.length - 1) : null;
      const samples = bytesToInt16(bytes);
      this.receivedSamples += samples.length;
      const budgetMs = audioBudgetMs(this.pushedChars);
      if ((this.receivedSamples / this.sampleRate) * 1000 > budgetMs) {
        return this.fail(`ElevenLabs sent more than ${Math.round(budgetMs / 1000)} s of audio for ${this.pushedChars} characters`);
      }
      const alignment = toAlignment(msg.normalizedAlignment ?? msg.alignment);
      if (samples.length) this.emit(alignment ? { type: 'audio', samples, sampleRate: this.sampleRate, alignment } : { type: 'audio', samples, sampleRate: this.sampleRate });
      // Piece boundaries are counted on the original text's alignment (the normalized one may
      // spell numbers out), ignoring whitespace, which ElevenLabs may or may not echo.
      const original = msg.alignment ?? msg.normalizedAlignment;
      if (original?.chars) this.alignedChars += countChars(original.chars.join(''));
      this.reportSpoken();
    }
    if (msg.isFinal) {
      this.alignedChars = Infinity;
      this.reportSpoken();
      this.finished = true;
      this.emit({ type: 'done' });
      this.socket.close(1000);
    }
  }

  private reportSpoken(): void {
    while (this.pieces.length && this.pieces[0].upTo <= this.alignedChars) this.emit({ type: 'spoken', text: this.pieces.shift()!.text });
  }

  private fail(message: string): void {
    if (this.finished) return;
    this.finished = true;
    this.emit({ type: 'error', message });
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) this.socket.terminate();
  }
}

function countChars(text: string): number {
  return text.replace(/\s+/g, '').length;
}

function toAlignment(a: Alignment | null | undefined): TtsAlignment | undefined {
  if (!a?.chars || !a.charStartTimesMs || !a.charDurationsMs) return undefined;
  return { chars: a.chars, startMs: a.charStartTimesMs, durationMs: a.charDurationsMs };
}
