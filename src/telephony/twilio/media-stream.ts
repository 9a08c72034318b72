/**
 * One Twilio media stream as the voice core's `LegMedia`: caller audio in, assistant audio
 * out (PCM16 at 8 kHz; the wire carries G.711 μ-law), marks, `clear` and DTMF.
 *
 * Marks: every mark goes on the wire under a name of our own (`m1`, `m2`, …) so an echo can
 * never be confused with a later mark of the same name. `clear()` reports every pending mark
 * as cleared at once, in order, and the echoes Twilio sends for them afterwards are ignored:
 * the core learns what the caller did not hear the moment it barges in.
 *
 * Outbound audio: what `play` is given in one synchronous run (the output stage's pacing tick
 * hands a call every frame that is due, five at a reply's start and more when the event loop
 * ran late) goes out as one `media` message at the end of that run (a microtask), not one per
 * 20 ms frame: each message is a JSON string, a base64 encoding and a socket write on the event
 * loop. A `mark` sends the audio before it first; a `clear` drops what was not sent yet.
 */
import { mulaw } from '../../audio/g711.js';
import { dtmfTones } from '../../audio/dtmf.js';
import type { LegMedia } from '../types.js';
import {
  clearMessage,
  markMessage,
  mediaMessage,
  STREAM_SAMPLE_RATE,
  type StartInfo,
  type TwilioMediaMessage,
} from './media-protocol.js';

/** What the stream needs of a WebSocket (the `ws` socket fits). */
export interface MediaSocket {
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

/** Caller audio kept until the core listens (the first words of an inbound caller). */
const MAX_EARLY_SAMPLES = 2 * STREAM_SAMPLE_RATE;
/** Outbound audio per `media` message at most: 1 s keeps messages small and few. */
const MAX_SAMPLES_PER_MESSAGE = STREAM_SAMPLE_RATE;

export class TwilioMediaStream implements LegMedia {
  readonly sampleRate = STREAM_SAMPLE_RATE;
  private audioListener?: (samples: Int16Array) => void;
  private markListener?: (name: string, cleared: boolean) => void;
  private early: Int16Array[] = [];
  private earlySamples = 0;
  private nextMark = 1;
  /** Marks on the wire, oldest first: [wire name, caller's name]. */
  private pending: Array<[string, string]> = [];
  /** Wire names a `clear` already reported; Twilio still echoes them. */
  private dropped = new Set<string>();
  private stopped = false;
  /** Audio `play`ed since the last message, sent together at the end of this synchronous run. */
  private outgoing: Int16Array[] = [];
  private outgoingQueued = false;
  private readonly sendQueued = () => {
    this.outgoingQueued = false;
    this.sendOutgoing();
  };
  private dtmfListener?: (digit: string) => void;
  private stopListener?: () => void;

  constructor(
    private readonly socket: MediaSocket,
    readonly start: StartInfo,
  ) {}

  /** A key the caller pressed. */
  onDtmf(listener: (digit: string) => void): void {
    this.dtmfListener = listener;
  }

  /** Twilio ended the stream (the caller hung up, or the call was ended elsewhere), or the socket closed. */
  onStop(listener: () => void): void {
    this.stopListener = listener;
  }

  get streamSid(): string {
    return this.start.streamSid;
  }

  get callSid(): string {
    return this.start.callSid;
  }

  /** Feeds one message Twilio sent after `start`. */
  receive(msg: TwilioMediaMessage): void {
    switch (msg.event) {
      case 'media':
        if (msg.track === 'inbound' || msg.track === 'inbound_track') this.deliver(mulaw.decode(Buffer.from(msg.payload, 'base64')));
        break;
      case 'mark':
        this.markPlayed(msg.name);
        break;
      case 'dtmf':
        this.dtmfListener?.(msg.digit);
        break;
      case 'stop':
        this.ended();
        break;
      default:
        break;
    }
  }

  /** The socket closed (by either side). */
  ended(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stopListener?.();
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  onAudio(listener: (samples: Int16Array) => void): void {
    this.audioListener = listener;
    const early = this.early;
    this.early = [];
    this.earlySamples = 0;
    for (const samples of early) listener(samples);
  }

  play(samples: Int16Array): void {
    if (this.stopped || samples.length === 0) return;
    this.outgoing.push(samples);
    if (!this.outgoingQueued) {
      this.outgoingQueued = true;
      queueMicrotask(this.sendQueued);
    }
  }

  private sendOutgoing(): void {
    const parts = this.outgoing;
    if (parts.length === 0) return;
    this.outgoing = [];
    if (this.stopped) return;
    let samples = parts[0]!;
    if (parts.length > 1) {
      samples = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of parts) {
        samples.set(p, at);
        at += p.length;
      }
    }
    for (let at = 0; at < samples.length; at += MAX_SAMPLES_PER_MESSAGE) {
      const part = samples.subarray(at, Math.min(samples.length, at + MAX_SAMPLES_PER_MESSAGE));
      this.socket.send(mediaMessage(this.start.streamSid, mulaw.encode(part)));
    }
  }

  mark(name: string): void {
    this.sendOutgoing();
    if (this.stopped) {
      this.markListener?.(name, true);
      return;
    }
    const wire = `m${this.nextMark++}`;
    this.pending.push([wire, name]);
    this.socket.send(markMessage(this.start.streamSid, wire));
  }

  onMark(listener: (name: string, cleared: boolean) => void): void {
    this.markListener = listener;
  }

  clear(): void {
    this.outgoing = [];
    if (!this.stopped) this.socket.send(clearMessage(this.start.streamSid));
    const pending = this.pending;
    this.pending = [];
    for (const [wire, name] of pending) {
      this.dropped.add(wire);
      this.markListener?.(name, true);
    }
  }

  /** Plays the digits as DTMF tones in the call's audio (`w` = a half-second pause, as in Twilio's SendDigits). */
  async sendDigits(digits: string): Promise<void> {
    this.play(dtmfTones(digits, this.sampleRate));
  }

  /** Closes the socket from our side: with `<Connect>` and no verb after it, Twilio ends the call. */
  close(reason = 'call ended'): void {
    this.sendOutgoing();
    if (!this.stopped) {
      this.stopped = true;
    }
    try {
      this.socket.close(1000, reason);
    } catch {
      // Already closed.
    }
  }

  private deliver(samples: Int16Array): void {
    if (this.audioListener) {
      this.audioListener(samples);
      return;
    }
    this.early.push(samples);
    this.earlySamples += samples.length;
    while (this.earlySamples > MAX_EARLY_SAMPLES) this.earlySamples -= this.early.shift()!.length;
  }

  private markPlayed(wire: string): void {
    if (this.dropped.delete(wire)) return;
    const index = this.pending.findIndex(([w]) => w === wire);
    if (index < 0) return; // not ours
    // Marks play in order: any earlier one still pending has played too.
    const played = this.pending.splice(0, index + 1);
    for (const [, name] of played) this.markListener?.(name, false);
  }
}
