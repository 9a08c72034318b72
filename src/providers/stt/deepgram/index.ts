/**
 * Deepgram live speech-to-text over its WebSocket protocol (`wss://api.deepgram.com/v1/listen`):
 * raw PCM16 in binary frames, settings in the query string, JSON `Results` / `UtteranceEnd` /
 * `SpeechStarted` / `Metadata` back, and the text controls `KeepAlive`, `Finalize`, `CloseStream`.
 *
 * `open()` resolves at once and connects in the background, so the core can write the first
 * caller audio while the handshake runs: what is written before the socket is open is kept
 * (up to `maxPendingMs` of audio, oldest dropped first) and sent, in order, on open.
 * Failures (refused handshake, an unexpected close, a dead connection) are `error` events with
 * `fatal: true`; whether to open a new stream is the core's decision.
 */
import WebSocket from 'ws';
import type { SttEvent, SttProvider, SttStream, SttStreamOptions } from '../types.js';
import { int16ToBytes } from '../../../audio/pcm.js';

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
}

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

type Pending = { audio: Buffer } | { control: string };

class DeepgramStream implements SttStream {
  private readonly socket: WebSocket;
  private pending: Pending[] = [];
  private pendingSamples = 0;
  private readonly maxPendingSamples: number;
  private droppedReported = false;
  private lastSentAt = Date.now();
  private keepAlive?: NodeJS.Timeout;
  private closing = false;
  private ended = false;
  private readonly closed: Promise<void>;

  constructor(url: string, private readonly opts: DeepgramOptions, sampleRate: number, private readonly emit: (event: SttEvent) => void) {
    this.maxPendingSamples = Math.round(((opts.maxPendingMs ?? 5000) / 1000) * sampleRate);
    this.socket = new WebSocket(url, {
      headers: { Authorization: `Token ${opts.apiKey}` },
      handshakeTimeout: opts.connectTimeoutMs ?? 10_000,
    });
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
    this.socket.on('open', () => this.onOpen());
    this.socket.on('message', (data, isBinary) => {
      if (!isBinary) this.onMessage(data.toString());
    });
    this.socket.on('unexpected-response', (_req, res) => {
      // A refused handshake: Deepgram answers with an HTTP status and a `dg-error` header.
      const reason = res.headers['dg-error'] ?? res.statusMessage ?? '';
      this.fail(`Deepgram refused the connection: HTTP ${res.statusCode}${reason ? ` ${reason}` : ''}`);
      res.resume();
      this.socket.terminate();
    });
    this.socket.on('error', (err) => this.fail(`Deepgram connection failed: ${err.message}`));
    this.socket.on('close', (code, reason) => {
      this.stopKeepAlive();
      if (!this.closing) this.fail(`Deepgram closed the stream: ${code}${reason.length ? ` ${reason.toString()}` : ''}`);
      this.ended = true;
    });
  }

  write(samples: Int16Array): void {
    if (this.ended || this.closing || samples.length === 0) return;
    const audio = int16ToBytes(samples);
    if (this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(audio);
      this.lastSentAt = Date.now();
      return;
    }
    this.pending.push({ audio });
    this.pendingSamples += samples.length;
    while (this.pendingSamples > this.maxPendingSamples) {
      const i = this.pending.findIndex((p) => 'audio' in p);
      if (i < 0) break;
      const [dropped] = this.pending.splice(i, 1) as { audio: Buffer }[];
      this.pendingSamples -= dropped.audio.length / 2;
      if (!this.droppedReported) {
        this.droppedReported = true;
        this.emit({ type: 'error', message: 'Deepgram is not connected yet: the oldest buffered audio was dropped', fatal: false });
      }
    }
  }

  finalize(): void {
    this.control({ type: 'Finalize' });
  }

  async close(): Promise<void> {
    if (this.ended) return;
    if (!this.closing) {
      this.control({ type: 'CloseStream' });
      this.closing = true;
      this.stopKeepAlive();
      if (this.socket.readyState !== WebSocket.OPEN && this.socket.readyState !== WebSocket.CONNECTING) this.socket.terminate();
    }
    const timer = setTimeout(() => this.socket.terminate(), this.opts.closeTimeoutMs ?? 5000);
    try {
      await this.closed;
    } finally {
      clearTimeout(timer);
    }
  }

  private control(message: { type: string }): void {
    if (this.ended || this.closing) return;
    const text = JSON.stringify(message);
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(text);
    else this.pending.push({ control: text });
  }

  private onOpen(): void {
    for (const item of this.pending) this.socket.send('audio' in item ? item.audio : item.control);
    this.pending = [];
    this.pendingSamples = 0;
    this.lastSentAt = Date.now();
    if (this.closing) return;
    const every = this.opts.keepAliveMs ?? 4000;
    // Checked at a quarter of the period, so the gap before a KeepAlive is at most 1.25 × keepAliveMs.
    this.keepAlive = setInterval(() => {
      if (Date.now() - this.lastSentAt < every || this.socket.readyState !== WebSocket.OPEN) return;
      this.socket.send(JSON.stringify({ type: 'KeepAlive' }));
      this.lastSentAt = Date.now();
    }, Math.max(10, every / 4));
    this.keepAlive.unref();
  }

  private onMessage(text: string): void {
    let msg: DeepgramMessage;
    try {
      msg = JSON.parse(text) as DeepgramMessage;
    } catch {
      this.emit({ type: 'error', message: 'Deepgram sent a message that is not JSON', fatal: false });
      return;
    }
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

  private fail(message: string): void {
    if (this.ended) return;
    this.ended = true;
    this.stopKeepAlive();
    this.pending = [];
    this.emit({ type: 'error', message, fatal: true });
  }

  private stopKeepAlive(): void {
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }
}
