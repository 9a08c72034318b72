/**
 * Deepgram live speech-to-text over its WebSocket protocol (`wss://api.deepgram.com/v1/listen`):
 * raw PCM16 in binary frames, settings in the query string, JSON `Results` / `UtteranceEnd` /
 * `SpeechStarted` / `Metadata` back, and the text controls `KeepAlive`, `Finalize`, `CloseStream`.
 *
 * `open()` resolves at once and connects in the background (socket.ts: the connection's life,
 * shared with the Flux adapter, flux.ts).
 */
import type { SttEvent, SttProvider, SttStream, SttStreamOptions } from '../types.js';
import { DeepgramSocketStream } from './socket.js';

export interface DeepgramOptions {
  /** Listen endpoint, `wss://api.deepgram.com/v1/listen` (DEEPGRAM_URL). */
  url: string;
  apiKey: string;
  /** Deepgram model, e.g. `nova-3` (default). */
  model?: string;
  /** Punctuation, numerals and casing (default true). */
  smartFormat?: boolean;
  /** A KeepAlive is sent after this much time without audio (default 4000 ms; Deepgram closes after ~10 s). */
  keepAliveMs?: number;
  /** Audio kept while the socket is connecting (default 5000 ms); beyond that the oldest is dropped. */
  maxPendingMs?: number;
  /** How long `close()` waits for Deepgram's last results before cutting the socket (default 5000 ms). */
  closeTimeoutMs?: number;
  /** Handshake limit (default 10 000 ms). */
  connectTimeoutMs?: number;
  /**
   * Audio per binary message at least (default 40 ms: two of a call's 20 ms frames). One message
   * per frame was the largest single cost of a busy service's event loop (a socket write per
   * call every 20 ms); Deepgram takes chunks of 20–100 ms, and a frame waits at most 20 ms more.
   */
  chunkMs?: number;
}

/** Audio per message to Deepgram live by default (see DeepgramOptions.chunkMs). */
export const DEEPGRAM_CHUNK_MS = 40;

/** Deepgram's message shapes, only the fields read here. */
interface DeepgramMessage {
  type?: string;
  is_final?: boolean;
  speech_final?: boolean;
  from_finalize?: boolean;
  channel?: { alternatives?: { transcript?: string }[] };
  description?: string;
  message?: string;
}

export class DeepgramStt implements SttProvider {
  readonly name = 'deepgram';
  readonly endpointing = true;

  constructor(private readonly opts: DeepgramOptions) {}

  /** The listen URL with this stream's settings in the query string. */
  listenUrl(options: SttStreamOptions): string {
    const url = new URL(this.opts.url);
    const model = this.opts.model ?? 'nova-3';
    const q = url.searchParams;
    q.set('model', model);
    q.set('language', options.language);
    q.set('encoding', 'linear16');
    q.set('sample_rate', String(options.sampleRate));
    q.set('channels', '1');
    q.set('interim_results', 'true');
    q.set('endpointing', options.endpointingMs === undefined ? 'false' : String(options.endpointingMs));
    // Deepgram refuses utterance_end_ms below 1000.
    if (options.utteranceEndMs !== undefined) q.set('utterance_end_ms', String(Math.max(1000, options.utteranceEndMs)));
    q.set('vad_events', 'true');
    q.set('smart_format', String(this.opts.smartFormat ?? true));
    // Nova-3 takes `keyterm`; earlier models take `keywords`.
    const keywordParam = model.startsWith('nova-3') ? 'keyterm' : 'keywords';
    for (const word of options.keywords ?? []) if (word.trim()) q.append(keywordParam, word.trim());
    return url.toString();
  }

  async open(options: SttStreamOptions, onEvent: (event: SttEvent) => void): Promise<SttStream> {
    return new DeepgramStream(this.listenUrl(options), this.opts, options.sampleRate, onEvent);
  }
}

class DeepgramStream extends DeepgramSocketStream {
  constructor(url: string, opts: DeepgramOptions, sampleRate: number, emit: (event: SttEvent) => void) {
    super(url, { ...opts, keepAliveMs: opts.keepAliveMs ?? 4000, chunkMs: opts.chunkMs ?? DEEPGRAM_CHUNK_MS }, sampleRate, emit, 'Deepgram');
  }

  finalize(): void {
    this.control({ type: 'Finalize' });
  }

  protected onMessage(text: string): void {
    const msg = this.parse<DeepgramMessage>(text);
    if (!msg) return;
    switch (msg.type) {
      case 'Results': {
        const transcript = (msg.channel?.alternatives?.[0]?.transcript ?? '').trim();
        const isFinal = msg.is_final === true;
        const speechFinal = msg.speech_final === true;
        // Empty interims are silence; an empty speech_final still ends the caller's turn, and an
        // empty answer to Finalize tells a core waiting for the final that no words will come.
        if (!transcript && !speechFinal && !(isFinal && msg.from_finalize === true)) return;
        this.emit({ type: 'transcript', text: transcript, isFinal, speechFinal });
        return;
      }
      case 'UtteranceEnd':
        this.emit({ type: 'utterance-end' });
        return;
      case 'SpeechStarted':
        this.emit({ type: 'speech-started' });
        return;
      case 'Error':
        this.emit({ type: 'error', message: `Deepgram: ${msg.description ?? msg.message ?? 'error'}`, fatal: false });
        return;
      default:
        // Metadata and anything newer carry nothing the core needs.
        return;
    }
  }
}
