/**
 * The WebSocket life both Deepgram streaming protocols share (live `/v1/listen` and Flux
 * `/v2/listen`): key in `Authorization: Token …`, raw PCM16 in binary frames, JSON text both
 * ways, `CloseStream` to end.
 *
 * The stream is usable at once and connects in the background, so the core can write the first
 * caller audio while the handshake runs: what is written before the socket is open is kept (up
 * to `maxPendingMs` of audio, oldest dropped first) and sent, in order, on open. Failures (refused
 * handshake, an unexpected close, a dead connection) are `error` events with `fatal: true`;
 * whether to open a new stream is the core's decision.
 */
import WebSocket from 'ws';
import { int16ToBytes } from '../../../audio/pcm.js';
import type { SttEvent, SttStream } from '../types.js';
import { WS_MAX_MESSAGE_BYTES } from '../../bounded.js';

export interface DeepgramSocketOptions {
  apiKey: string;
  /** A KeepAlive is sent after this much time without audio; null: the protocol has none (Flux). */
  keepAliveMs: number | null;
  /** Audio kept while the socket is connecting (default 5000 ms); beyond that the oldest is dropped. */
  maxPendingMs?: number;
  /** How long `close()` waits for the last results before cutting the socket (default 5000 ms). */
  closeTimeoutMs?: number;
  /** Handshake limit (default 10 000 ms). */
  connectTimeoutMs?: number;
  /**
   * Audio goes out in binary messages of at least this much (the last one before a control
   * message may be shorter); default: each `write` as it comes. A call delivers 20 ms frames,
   * and one message per frame is a socket write per call every 20 ms on the event loop.
   */
  chunkMs?: number;
}

type Pending = { audio: Buffer } | { control: string };

export abstract class DeepgramSocketStream implements SttStream {
  private readonly socket: WebSocket;
  private pending: Pending[] = [];
  private pendingSamples = 0;
  private readonly maxPendingSamples: number;
  /** Samples per binary message at least (1: each write as it comes), and the audio held for the next one. */
  private readonly chunkSamples: number;
  private held: Int16Array[] = [];
  private heldSamples = 0;
  private droppedReported = false;
  private lastSentAt = Date.now();
  private keepAlive?: NodeJS.Timeout;
  private closing = false;
  private ended = false;
  private readonly closed: Promise<void>;

  /** `vendor` names the service in error messages ("Deepgram", "Deepgram Flux"). */
  protected constructor(
    url: string,
    private readonly opts: DeepgramSocketOptions,
    sampleRate: number,
    protected readonly emit: (event: SttEvent) => void,
    private readonly vendor: string,
  ) {
    this.maxPendingSamples = Math.round(((opts.maxPendingMs ?? 5000) / 1000) * sampleRate);
    this.chunkSamples = Math.max(1, Math.round(((opts.chunkMs ?? 0) / 1000) * sampleRate));
    this.socket = new WebSocket(url, {
      headers: { Authorization: `Token ${opts.apiKey}` },
      handshakeTimeout: opts.connectTimeoutMs ?? 10_000,
      maxPayload: WS_MAX_MESSAGE_BYTES.transcripts,
    });
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
    this.socket.on('open', () => this.onOpen());
    this.socket.on('message', (data, isBinary) => {
      if (!isBinary) this.onMessage(data.toString());
    });
    this.socket.on('unexpected-response', (_req, res) => {
      // A refused handshake: Deepgram answers with an HTTP status and a `dg-error` header.
      const reason = res.headers['dg-error'] ?? res.statusMessage ?? '';
      this.fail(`${vendor} refused the connection: HTTP ${res.statusCode}${reason ? ` ${reason}` : ''}`);
      res.resume();
      this.socket.terminate();
    });
    this.socket.on('error', (err) => this.fail(`${vendor} connection failed: ${err.message}`));
    this.socket.on('close', (code, reason) => {
      this.stopKeepAlive();
      if (!this.closing) this.fail(`${vendor} closed the stream: ${code}${reason.length ? ` ${reason.toString()}` : ''}`);
      this.ended = true;
    });
  }

  /** One text message from the server. */
  protected abstract onMessage(text: string): void;

  abstract finalize(): void;

  write(samples: Int16Array): void {
    if (!this.accepting || samples.length === 0) return;
    if (this.heldSamples === 0 && samples.length >= this.chunkSamples) return this.send(samples);
    this.held.push(samples);
    this.heldSamples += samples.length;
    if (this.heldSamples >= this.chunkSamples) this.sendHeld();
  }

  /** Sends the audio held for a chunk now (before a control message, which must follow it). */
  protected sendHeld(): void {
    if (this.heldSamples === 0) return;
    const chunk = new Int16Array(this.heldSamples);
    let at = 0;
    for (const part of this.held) {
      chunk.set(part, at);
      at += part.length;
    }
    this.held = [];
    this.heldSamples = 0;
    this.send(chunk);
  }

  private send(samples: Int16Array): void {
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
        this.emit({ type: 'error', message: `${this.vendor} is not connected yet: the oldest buffered audio was dropped`, fatal: false });
      }
    }
  }

  async close(): Promise<void> {
    if (this.ended) return;
    if (!this.closing) {
      this.beforeClose();
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

  /** Whether audio and controls are still taken (not ended, not closing). */
  protected get accepting(): boolean {
    return !this.ended && !this.closing;
  }

  /** Called once before `CloseStream` is sent (a subclass sends what it still holds). */
  protected beforeClose(): void {}

  protected control(message: { type: string }): void {
    if (!this.accepting) return;
    this.sendHeld();
    const text = JSON.stringify(message);
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(text);
    else this.pending.push({ control: text });
  }

  protected fail(message: string): void {
    if (this.ended) return;
    this.ended = true;
    this.stopKeepAlive();
    this.pending = [];
    this.held = [];
    this.heldSamples = 0;
    this.emit({ type: 'error', message, fatal: true });
  }

  /** Parses a server message; a message that is not JSON is reported (not fatal) and gives null. */
  protected parse<T>(text: string): T | null {
    try {
      return JSON.parse(text) as T;
    } catch {
      this.emit({ type: 'error', message: `${this.vendor} sent a message that is not JSON`, fatal: false });
      return null;
    }
  }

  private onOpen(): void {
    for (const item of this.pending) this.socket.send('audio' in item ? item.audio : item.control);
    this.pending = [];
    this.pendingSamples = 0;
    this.lastSentAt = Date.now();
    if (this.closing || this.opts.keepAliveMs === null) return;
    const every = this.opts.keepAliveMs;
    // Checked at a quarter of the period, so the gap before a KeepAlive is at most 1.25 × keepAliveMs.
    this.keepAlive = setInterval(() => {
      // Audio that stopped mid-chunk (a line that went quiet) is not kept back.
      if (this.heldSamples > 0 && this.accepting && this.socket.readyState === WebSocket.OPEN) this.sendHeld();
      if (Date.now() - this.lastSentAt < every || this.socket.readyState !== WebSocket.OPEN) return;
      this.socket.send(JSON.stringify({ type: 'KeepAlive' }));
      this.lastSentAt = Date.now();
    }, Math.max(10, every / 4));
    this.keepAlive.unref();
  }

  private stopKeepAlive(): void {
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }
}
