/**
 * A Twilio call steered from here over REST only, with no media stream: the supervisor's leg of a
 * warm transfer. It is placed with TwiML that keeps it open and silent once answered; its
 * progress is read by polling the Call resource (status callbacks may reach any instance, the
 * poll always reaches this one, and a transfer waits seconds, not hours); `say` speaks with
 * Twilio's own voice (`<Say>`, by redirecting the live call); `joinConference` hands it to a
 * conference room, where the caller's leg joins it (TwilioLeg.bridgeTo).
 *
 * A leaf like the rest of this folder: no accounts, no database, no logger (failures are events).
 */
import { systemClock, type Clock, type TimerHandle } from '../clock.js';
import type { CarrierLeg, LegEvent, UnansweredOutcome } from '../types.js';
import { TWILIO_MAX_TIME_LIMIT_SECONDS, TwilioApiError, type TwilioRestClient } from './rest-client.js';
import { conferenceTwiml, sayAndWaitTwiml, waitTwiml, type ConferenceOptions } from './twiml.js';

/** How long an answered leg stays open, silent, while we prepare what to say (the summary takes seconds). */
const WAIT_SECONDS = 120;
/** Twilio's errors for a `From` it will not show (not a number of the account, not a verified caller id). */
const CALLER_ID_REFUSED = new Set([21210, 21212, 13214]);
/** Twilio's `<Say>` speaks about 150 words a minute; a little more so the last word is not cut by what follows. */
const SAY_MS_PER_WORD = 430;
const SAY_MS_EXTRA = 800;

export interface TwilioRestLegOptions {
  client: () => Promise<TwilioRestClient>;
  to: string;
  from: string;
  /** Shown instead when Twilio refuses `from` as the caller id (the account's own number). */
  fallbackFrom?: string;
  /** Told when `from` was refused and `fallbackFrom` used. */
  onCallerIdRefused?(refused: string, used: string): void;
  /** Seconds Twilio lets it ring before `no-answer`. */
  ringTimeoutSeconds: number;
  /** `<Say>` language (BCP 47, e.g. `de-DE`). */
  language?: string;
  pollMs?: number;
  clock?: Clock;
}

export class TwilioRestLeg implements CarrierLeg {
  private listener: (event: LegEvent) => void = () => undefined;
  private sid: string | null = null;
  private answered = false;
  private rang = false;
  private over = false;
  /** In a conference room: over for us, but still ours to hang up should the caller never join it. */
  private inRoom = false;
  private poller: TimerHandle | null = null;
  private failures = 0;
  private readonly clock: Clock;

  constructor(private readonly opts: TwilioRestLegOptions) {
    this.clock = opts.clock ?? systemClock;
  }

  /** The Call resource's sid once placed. */
  get callSid(): string | null {
    return this.sid;
  }

  get isAnswered(): boolean {
    return this.answered && !this.over;
  }

  onEvent(listener: (event: LegEvent) => void): void {
    this.listener = listener;
  }

  start(): void {
    void this.place();
  }

  private async place(): Promise<void> {
    const client = await this.opts.client().catch(() => null);
    if (!client) return this.end({ type: 'unanswered', outcome: 'failed' });
    const create = (from: string) => client.createCall({ to: this.opts.to, from, twiml: waitTwiml(WAIT_SECONDS), timeout: this.opts.ringTimeoutSeconds });
    try {
      this.sid = (await create(this.opts.from)).sid;
    } catch (err) {
      const refused = err instanceof TwilioApiError && err.code !== undefined && CALLER_ID_REFUSED.has(err.code);
      const fallback = this.opts.fallbackFrom;
      if (!refused || !fallback || fallback === this.opts.from) return this.end({ type: 'unanswered', outcome: 'failed' });
      try {
        this.sid = (await create(fallback)).sid;
        this.opts.onCallerIdRefused?.(this.opts.from, fallback);
      } catch {
        return this.end({ type: 'unanswered', outcome: 'failed' });
      }
    }
    if (this.over) {
      // Hung up by us while Twilio was placing it.
      void client.hangUp(this.sid).catch(() => undefined);
      return;
    }
    this.schedulePoll(client);
  }

  private schedulePoll(client: TwilioRestClient): void {
    if (this.over) return;
    // Ringing: every poll counts; answered: only a hang-up is left to notice.
    const ms = (this.opts.pollMs ?? 500) * (this.answered ? 2 : 1);
    this.poller = this.clock.setTimer(ms, () => void this.poll(client));
  }

  private async poll(client: TwilioRestClient): Promise<void> {
    if (this.over || !this.sid) return;
    let status: string;
    try {
      status = (await client.fetchCall(this.sid)).status;
      this.failures = 0;
    } catch {
      // A few failed reads in a row is a line we cannot follow: given up like an unanswered call.
      if (++this.failures >= 5) {
        void client.hangUp(this.sid).catch(() => undefined);
        return this.end(this.answered ? { type: 'hung-up' } : { type: 'unanswered', outcome: 'failed' });
      }
      return this.schedulePoll(client);
    }
    if (this.over) return;
    switch (status) {
      case 'ringing':
        if (!this.rang) {
          this.rang = true;
          this.listener({ type: 'ringing' });
        }
        break;
      case 'in-progress':
        if (!this.answered) {
          this.answered = true;
          this.listener({ type: 'answered', answeredBy: 'human' });
        }
        break;
      case 'completed':
        return this.end(this.answered ? { type: 'hung-up' } : { type: 'unanswered', outcome: 'no-answer' });
      case 'busy':
      case 'no-answer':
      case 'failed':
      case 'canceled':
        return this.end(this.answered ? { type: 'hung-up' } : { type: 'unanswered', outcome: outcomeOf(status) });
    }
    this.schedulePoll(client);
  }

  /** Says `text` with Twilio's voice; resolves about when it has been said (Twilio does not tell). */
  async say(text: string): Promise<void> {
    if (!this.isAnswered || !this.sid) return;
    const client = await this.opts.client();
    await client.redirect(this.sid, sayAndWaitTwiml(text, WAIT_SECONDS, { language: this.opts.language }));
    const words = text.trim().split(/\s+/).filter(Boolean).length;
    await new Promise<void>((resolve) => this.clock.setTimer(words * SAY_MS_PER_WORD + SAY_MS_EXTRA, resolve));
  }

  /** Moves the answered leg into `room`; it is the conference's from then on (over for us). */
  async joinConference(room: string, options: ConferenceOptions): Promise<void> {
    if (!this.isAnswered || !this.sid) throw new Error('the supervisor is no longer on the line');
    const client = await this.opts.client();
    await client.redirect(this.sid, conferenceTwiml(room, options), { timeLimit: TWILIO_MAX_TIME_LIMIT_SECONDS });
    this.stopPolling();
    this.over = true;
    this.inRoom = true;
  }

  hangUp(): void {
    if (this.over && !this.inRoom) return;
    this.over = true;
    this.inRoom = false;
    this.stopPolling();
    const sid = this.sid;
    // Not placed yet: place() hangs it up once Twilio answers with its sid.
    if (sid) void this.opts.client().then((c) => c.hangUp(sid)).catch(() => undefined);
  }

  private stopPolling(): void {
    this.clock.clearTimer(this.poller);
    this.poller = null;
  }

  private end(event: LegEvent): void {
    if (this.over) return;
    this.over = true;
    this.stopPolling();
    this.listener(event);
  }
}

function outcomeOf(status: string): UnansweredOutcome {
  if (status === 'busy') return 'busy';
  if (status === 'failed') return 'failed';
  return 'no-answer';
}
