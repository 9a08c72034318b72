/**
 * The sandbox's driven leg (telephony/types.ts `DrivenLeg`): a phone line at 8 kHz whose
 * customer is the caller of an assistant test in audio mode. It answers at once (a test has
 * nothing to ring for), plays the assistant's audio at real pace (SandboxMedia), and delivers the
 * customer's audio in 20 ms frames at real pace and keys as DTMF events. Unlike the sandbox's own
 * scripted person it never reports the customer's words: they reach the assistant only through
 * its speech-to-text.
 */
import type { Clock } from '../clock.js';
import type { DrivenLeg, LegEvent } from '../types.js';
import { SandboxMedia } from './media.js';

export class SandboxDrivenLeg implements DrivenLeg {
  private listener: (event: LegEvent) => void = () => undefined;
  private ended = false;
  readonly media: SandboxMedia;
  /** Keys the assistant pressed on the line (dtmf_input). */
  readonly sentDigits: string[] = [];

  constructor(sampleRate: number, clock: Clock) {
    this.media = new SandboxMedia(sampleRate, clock, 1);
  }

  onEvent(listener: (event: LegEvent) => void): void {
    this.listener = listener;
  }

  start(): void {
    queueMicrotask(() => {
      this.emit({ type: 'ringing' });
      this.emit({ type: 'answered', answeredBy: 'human' });
    });
  }

  get over(): boolean {
    return this.ended;
  }

  get pendingMs(): number {
    return this.media.pendingMs;
  }

  async sendDigits(digits: string): Promise<void> {
    if (!this.ended) this.sentDigits.push(digits);
  }

  hangUp(): void {
    this.ended = true;
    this.media.close();
  }

  customerSpeaks(samples: Int16Array): Promise<void> {
    if (this.ended) return Promise.resolve();
    return this.media.speak(samples);
  }

  customerPresses(digits: string): void {
    for (const digit of digits) this.emit({ type: 'dtmf', digit });
  }

  customerHangsUp(): void {
    if (this.ended) return;
    this.emit({ type: 'hung-up' });
    this.ended = true;
    this.media.close();
  }

  private emit(event: LegEvent): void {
    if (!this.ended) this.listener(event);
  }
}
