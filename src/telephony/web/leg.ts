/**
 * One browser call: the leg the engine runs a session on, over the browser's WebSocket
 * (protocol in ./protocol.ts). An audio leg carries PCM16 both ways and tracks the marks the
 * page echoes back once it has played up to them; a text leg carries typed utterances.
 */
import type { CarrierLeg, LegEvent, LegMedia } from '../types.js';
import { parseBrowserMessage, WEB_SAMPLE_RATE, type ServiceMessage, type WebCallMode } from './protocol.js';

export type { WebCallMode } from './protocol.js';

/** The part of a WebSocket the leg needs (the route adapts `ws` to it). */
export interface BrowserSocket {
  send(data: string | Uint8Array): void;
  close(code?: number, reason?: string): void;
  onMessage(listener: (data: string | Uint8Array, binary: boolean) => void): void;
  onClose(listener: () => void): void;
}

export class WebLeg implements CarrierLeg {
  readonly media?: LegMedia;
  readonly say?: (text: string) => Promise<void>;
  private listener: (event: LegEvent) => void = () => undefined;
  private over = false;
  private callId = 0;

  constructor(
    private readonly socket: BrowserSocket | null,
    readonly mode: WebCallMode,
  ) {
    if (mode === 'audio') this.media = new WebMedia(this);
    else this.say = (text) => this.sayText(text);
  }

  onEvent(listener: (event: LegEvent) => void): void {
    this.listener = listener;
  }

  /** The call id the page is told in `ready` (the engine's dial request carries it). */
  setCallId(id: number): void {
    this.callId = id;
  }

  start(): void {
    const socket = this.socket;
    if (!socket) {
      // The page's socket is gone (closed before the call started, or another instance has it).
      queueMicrotask(() => this.finish({ type: 'unanswered', outcome: 'failed' }));
      return;
    }
    socket.onMessage((data, binary) => this.receive(data, binary));
    socket.onClose(() => this.finish({ type: 'hung-up' }));
    this.send({ type: 'ready', mode: this.mode, sampleRate: WEB_SAMPLE_RATE, callId: this.callId });
    queueMicrotask(() => this.emit({ type: 'answered', answeredBy: 'human' }));
  }

  /** Lines of the live transcript for the page (audio calls). */
  caption(role: 'user' | 'assistant', text: string): void {
    if (!this.over && text.trim() !== '') this.send({ type: 'transcript', role, text });
  }

  hangUp(reason = 'The call has ended.'): void {
    if (this.over) return;
    this.send({ type: 'ended', reason });
    this.over = true;
    this.socket?.close(1000, 'call ended');
    (this.media as WebMedia | undefined)?.dropMarks();
  }

  /** @internal */
  send(message: ServiceMessage | Uint8Array): void {
    if (this.over || !this.socket) return;
    try {
      this.socket.send(message instanceof Uint8Array ? message : JSON.stringify(message));
    } catch {
      // A socket that is closing: its close event ends the call.
    }
  }

  private async sayText(text: string): Promise<void> {
    this.send({ type: 'assistant', text });
  }

  private receive(data: string | Uint8Array, binary: boolean): void {
    if (this.over) return;
    if (binary) {
      if (this.media && typeof data !== 'string') (this.media as WebMedia).audioIn(data);
      return;
    }
    const message = parseBrowserMessage(typeof data === 'string' ? data : Buffer.from(data).toString('utf8'));
    if (!message) return;
    switch (message.type) {
      case 'text':
        if (this.mode === 'text') this.emit({ type: 'customer-said', text: message.text });
        return;
      case 'mark':
        (this.media as WebMedia | undefined)?.played(message.name);
        return;
      case 'dtmf':
        this.emit({ type: 'dtmf', digit: message.digit });
        return;
      case 'hangup':
        this.finish({ type: 'hung-up' });
        this.socket?.close(1000, 'caller hung up');
        return;
    }
  }

  private finish(event: LegEvent): void {
    if (this.over) return;
    this.over = true;
    (this.media as WebMedia | undefined)?.dropMarks();
    this.emit(event);
  }

  private emit(event: LegEvent): void {
    if (this.over && event.type !== 'unanswered' && event.type !== 'hung-up') return;
    this.listener(event);
  }
}

class WebMedia implements LegMedia {
  readonly sampleRate = WEB_SAMPLE_RATE;
  private audioListener: (samples: Int16Array) => void = () => undefined;
  private markListener: (name: string, cleared: boolean) => void = () => undefined;
  /** Marks sent to the page and not yet echoed, in order. */
  private outstanding: string[] = [];
  /** An odd byte left over from the last binary frame. */
  private carry: number | null = null;

  constructor(private readonly leg: WebLeg) {}

  onAudio(listener: (samples: Int16Array) => void): void {
    this.audioListener = listener;
  }

  onMark(listener: (name: string, cleared: boolean) => void): void {
    this.markListener = listener;
  }

  play(samples: Int16Array): void {
    if (samples.length === 0) return;
    this.leg.send(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength));
  }

  mark(name: string): void {
    this.outstanding.push(name);
    this.leg.send({ type: 'mark', name });
  }

  clear(): void {
    this.leg.send({ type: 'clear' });
    this.dropMarks();
  }

  /** The page played up to `name`: it and every earlier mark are done. */
  played(name: string): void {
    const at = this.outstanding.indexOf(name);
    if (at < 0) return; // cleared already, or never sent
    const done = this.outstanding.splice(0, at + 1);
    for (const m of done) this.markListener(m, false);
  }

  /** Pending marks come back as cleared (a clear, or the end of the call). */
  dropMarks(): void {
    const dropped = this.outstanding;
    this.outstanding = [];
    for (const m of dropped) this.markListener(m, true);
  }

  /** PCM16 little-endian from the page; frames need not be sample-aligned. */
  audioIn(data: Uint8Array): void {
    let bytes = data;
    if (this.carry !== null) {
      const joined = new Uint8Array(data.length + 1);
      joined[0] = this.carry;
      joined.set(data, 1);
      bytes = joined;
      this.carry = null;
    }
    if (bytes.length % 2 === 1) {
      this.carry = bytes[bytes.length - 1]!;
      bytes = bytes.subarray(0, bytes.length - 1);
    }
    if (bytes.length === 0) return;
    const samples = new Int16Array(bytes.length / 2);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true);
    this.audioListener(samples);
  }
}
