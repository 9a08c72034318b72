/**
 * The sandbox carrier (CONTRACT §9): a simulated phone network. The customer's number
 * decides the outcome by its last two digits — 91 busy, 92 no-answer, 93 failed, 94 a
 * voicemail box (answered by a machine), 95 a person who hangs up mid-conversation — and any
 * other number reaches a person who answers every utterance from a short script and lets the
 * assistant close the call. Every delay is multiplied by `timeScale` (0 = instant).
 */
import type { Carrier, CarrierLeg, DialRequest, DrivenLeg, DrivenLegs, LegEvent } from '../types.js';
import { systemClock, type Clock, type TimerHandle } from '../clock.js';
import { SandboxMedia } from './media.js';
import { SandboxDrivenLeg } from './driven.js';

export type SandboxBehaviour = 'busy' | 'no-answer' | 'failed' | 'voicemail' | 'hangs-up' | 'converses';

export function sandboxBehaviour(number: string): SandboxBehaviour {
  switch (number.slice(-2)) {
    case '91':
      return 'busy';
    case '92':
      return 'no-answer';
    case '93':
      return 'failed';
    case '94':
      return 'voicemail';
    case '95':
      return 'hangs-up';
    default:
      return 'converses';
  }
}

/** Simulated timings in milliseconds at time scale 1. */
export const SANDBOX_TIMINGS = {
  /** Until the network reports ringing. */
  connect: 300,
  /** Ringing until a person (or a voicemail box) answers an outbound call. */
  ring: 3000,
  /** Ringing of an inbound call until the assistant picks up. */
  inboundRing: 1000,
  /** Ringing until the network gives up on an unanswered call. */
  noAnswer: 20000,
  /** Until a busy signal or a network failure is reported. */
  busy: 1000,
  failed: 500,
  /** Per spoken word, for both sides. */
  perWord: 350,
  /** A person's pause before answering. */
  think: 700,
  /** How long a person waits for the caller to speak before saying "Hello?". */
  helloAfter: 1500,
  /** Pause between the voicemail box answering and its greeting. */
  voicemailGreeting: 300,
} as const;

export const SANDBOX_SCRIPTS = {
  hello: 'Hello?',
  converses: ['Hello, yes, speaking.', 'Yes, that works for me.', 'Okay, sounds good.', 'Alright, thank you.', 'Thanks, bye.'],
  hangsUp: 'Sorry, I cannot talk right now.',
  voicemail: 'Hello, you have reached the voicemail of this number. Please leave a message after the tone.',
} as const;

export interface SandboxOptions {
  timeScale: number;
  clock?: Clock;
  /**
   * The customer's voice (`local`, a different voice from the assistant's): with it and a time
   * scale of 1 or more, legs are audio legs — the customer speaks real audio (and says its own
   * words as `customer-said` alongside) and hears the assistant's audio at real pace. The core's
   * output is paced in real time, so faster scales stay text legs.
   */
  voice?: (text: string, sampleRate: number) => Promise<Int16Array>;
}

/** Rate of the sandbox's audio line (as a phone line). */
export const SANDBOX_SAMPLE_RATE = 8000;

export class SandboxCarrier implements Carrier, DrivenLegs {
  readonly name = 'sandbox';
  private readonly clock: Clock;

  constructor(private readonly opts: SandboxOptions) {
    this.clock = opts.clock ?? systemClock;
  }

  dial(request: DialRequest): CarrierLeg {
    const voice = this.opts.timeScale >= 1 ? this.opts.voice : undefined;
    return new SandboxLeg(request, sandboxBehaviour(request.customer), this.opts.timeScale, this.clock, voice);
  }

  /** A real-pace audio line whose customer the caller drives (assistant tests in audio mode; driven.ts). */
  drivenLeg(): DrivenLeg {
    return new SandboxDrivenLeg(SANDBOX_SAMPLE_RATE, this.clock);
  }
}

function spokenMs(text: string): number {
  const words = text.trim().split(/\s+/).filter(Boolean).length;
  return Math.max(1, words) * SANDBOX_TIMINGS.perWord;
}

class SandboxLeg implements CarrierLeg {
  private listener: (event: LegEvent) => void = () => undefined;
  private readonly timers = new Set<TimerHandle>();
  private live = false;
  private over = false;
  private aiHasSpoken = false;
  private replies = 0;
  private scriptLine = 0;
  private pendingReply: TimerHandle | null = null;
  private speaking: { timer: TimerHandle; resolve: () => void } | null = null;

  constructor(
    private readonly request: DialRequest,
    private readonly behaviour: SandboxBehaviour,
    private readonly scale: number,
    private readonly clock: Clock,
    private readonly voice?: (text: string, sampleRate: number) => Promise<Int16Array>,
  ) {
    if (voice) {
      const media = new SandboxMedia(SANDBOX_SAMPLE_RATE, clock, scale);
      // The customer answers once the assistant's audio has played out; more audio postpones it.
      media.onPlayed = () => {
        this.aiHasSpoken = true;
        this.cancel(this.pendingReply);
        this.pendingReply = null;
      };
      media.onIdle = () => {
        if (this.live && this.pendingReply === null) this.scheduleReply();
      };
      this.media = media;
    }
  }

  readonly media?: SandboxMedia;

  onEvent(listener: (event: LegEvent) => void): void {
    this.listener = listener;
  }

  start(): void {
    const ringFor = this.request.direction === 'inbound' ? SANDBOX_TIMINGS.inboundRing : SANDBOX_TIMINGS.ring;
    switch (this.behaviour) {
      case 'busy':
        this.after(SANDBOX_TIMINGS.busy, () => this.finish({ type: 'unanswered', outcome: 'busy' }));
        return;
      case 'failed':
        this.after(SANDBOX_TIMINGS.failed, () => this.finish({ type: 'unanswered', outcome: 'failed' }));
        return;
      case 'no-answer':
        this.after(SANDBOX_TIMINGS.connect, () => {
          this.emit({ type: 'ringing' });
          this.after(SANDBOX_TIMINGS.noAnswer, () => this.finish({ type: 'unanswered', outcome: 'no-answer' }));
        });
        return;
      default:
        this.after(SANDBOX_TIMINGS.connect, () => {
          this.emit({ type: 'ringing' });
          this.after(ringFor, () => this.answer());
        });
    }
  }

  private answer(): void {
    this.live = true;
    if (this.behaviour === 'voicemail') {
      this.emit({ type: 'answered', answeredBy: 'machine' });
      this.after(SANDBOX_TIMINGS.voicemailGreeting, () => this.customerSays(SANDBOX_SCRIPTS.voicemail));
      return;
    }
    this.emit({ type: 'answered', answeredBy: 'human' });
    // A person who hears nothing says "Hello?" first.
    this.after(SANDBOX_TIMINGS.helloAfter, () => {
      // ...unless the assistant's voice reaches them while their own words are being formed
      // (the local voice can take a while to start on a cold or busy machine).
      if (!this.aiHasSpoken && this.replies === 0) this.customerSays(SANDBOX_SCRIPTS.hello, () => !this.aiHasSpoken);
    });
  }

  /** Keys the assistant pressed on the line (dtmf_input), in order: the sandbox records them. */
  readonly sentDigits: string[] = [];

  async sendDigits(digits: string): Promise<void> {
    if (this.live && !this.over) this.sentDigits.push(digits);
  }

  /** What the assistant said on this text leg, in order (e.g. a warm transfer's briefing): the sandbox records it. */
  readonly heardTexts: string[] = [];

  say(text: string): Promise<void> {
    if (!this.live) return Promise.resolve();
    this.heardTexts.push(text);
    this.aiHasSpoken = true;
    // The customer answers once the assistant has finished its last utterance.
    this.cancel(this.pendingReply);
    this.pendingReply = null;
    return new Promise<void>((resolve) => {
      const timer = this.after(spokenMs(text), () => {
        this.speaking = null;
        resolve();
        this.scheduleReply();
      });
      this.speaking = { timer, resolve };
    });
  }

  private scheduleReply(): void {
    if (!this.live) return;
    let line: string | undefined;
    let thenHangUp = false;
    if (this.behaviour === 'converses') {
      line = SANDBOX_SCRIPTS.converses[this.scriptLine++];
    } else if (this.behaviour === 'hangs-up') {
      line = SANDBOX_SCRIPTS.hangsUp;
      thenHangUp = true;
    }
    if (line === undefined) return; // a voicemail box, or a person out of words, stays silent
    const text = line;
    this.pendingReply = this.after(SANDBOX_TIMINGS.think, () => {
      this.pendingReply = null;
      const said = this.customerSays(text);
      // Hangs up right after saying it, before the assistant can answer.
      if (thenHangUp) {
        if (this.media) void said.then(() => this.finish({ type: 'hung-up' }));
        else this.finish({ type: 'hung-up' });
      }
    });
  }

  /**
   * Resolves once the customer has finished saying it. `stillWanted` is checked again once the
   * words are ready to be spoken; false drops them.
   */
  private customerSays(text: string, stillWanted: () => boolean = () => true): Promise<void> {
    if (!this.live) return Promise.resolve();
    this.replies++;
    if (this.voice && this.media) {
      const media = this.media;
      // Real audio on the line, then the words it stands for (the sandbox knows them for sure).
      return this.voice(text, SANDBOX_SAMPLE_RATE).then(
        async (samples) => {
          if (!stillWanted()) {
            this.replies--;
            return;
          }
          await media.speak(samples).catch(() => undefined);
          this.emit({ type: 'customer-said', text });
        },
        () => this.emit({ type: 'customer-said', text }),
      );
    }
    // The utterance is delivered once spoken (speech-to-text sees whole utterances).
    this.emit({ type: 'customer-said', text });
    return Promise.resolve();
  }

  hangUp(): void {
    this.over = true;
    this.live = false;
    this.stopAll();
  }

  private finish(event: LegEvent): void {
    if (this.over) return;
    this.over = true;
    this.live = false;
    this.stopAll();
    this.emit(event);
  }

  private stopAll(): void {
    this.media?.close();
    for (const t of this.timers) this.clock.clearTimer(t);
    this.timers.clear();
    const speaking = this.speaking;
    this.speaking = null;
    speaking?.resolve();
  }

  private after(ms: number, fn: () => void): TimerHandle {
    const handle = this.clock.setTimer(ms * this.scale, () => {
      this.timers.delete(handle);
      if (!this.over) fn();
    });
    this.timers.add(handle);
    return handle;
  }

  private cancel(handle: TimerHandle | null): void {
    if (!handle) return;
    this.clock.clearTimer(handle);
    this.timers.delete(handle);
  }

  private emit(event: LegEvent): void {
    if (this.over && event.type !== 'unanswered' && event.type !== 'hung-up') return;
    this.listener(event);
  }
}
