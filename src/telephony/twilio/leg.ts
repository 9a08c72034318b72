/**
 * A Twilio call as the voice core sees it, from the moment its media stream reached this
 * instance: already answered (Twilio runs `<Connect><Stream>` only on an answered call),
 * audio through the stream, DTMF and the caller's hang-up from the stream, the
 * answering-machine verdict from wherever Twilio posted it (`answeredBy()`), and hang-up by
 * closing the stream and ending the call over REST.
 *
 * Placing the call (REST) and following its progress (status callbacks) happen elsewhere and
 * possibly on another instance: nothing of this leg is needed there.
 */
import type { AnsweredBy, BridgeOptions, CarrierLeg, LegEvent } from '../types.js';
import type { TwilioMediaStream } from './media-stream.js';
import { TwilioRestLeg } from './rest-leg.js';
import { conferenceTwiml, dialTwiml } from './twiml.js';

/** Twilio's `AnsweredBy` values, as the engine knows them. */
export function answeredByOf(twilio: string | null | undefined): AnsweredBy {
  if (!twilio) return 'unknown';
  if (twilio === 'human') return 'human';
  if (twilio.startsWith('machine') || twilio === 'fax') return 'machine';
  return 'unknown';
}

export interface TwilioLegOptions {
  /** What answered, when already known (an AMD verdict that arrived before the stream). */
  answeredBy?: AnsweredBy;
  /** Ends the call at Twilio (REST `Status=completed`); errors are the caller's to log. */
  hangUpCall(reason: string): Promise<void>;
  /** Replaces the call's TwiML over REST (a transfer's `<Dial>`); rejects when Twilio refuses. */
  redirectCall?(twiml: string): Promise<void>;
}

export class TwilioLeg implements CarrierLeg {
  private listener: (event: LegEvent) => void = () => undefined;
  private over = false;
  private started = false;
  private transferring = false;
  private verdict: AnsweredBy;

  constructor(
    readonly media: TwilioMediaStream,
    private readonly opts: TwilioLegOptions,
  ) {
    this.verdict = opts.answeredBy ?? 'unknown';
    media.onDtmf((digit) => this.emit({ type: 'dtmf', digit }));
    media.onStop(() => this.callerHungUp());
  }

  onEvent(listener: (event: LegEvent) => void): void {
    this.listener = listener;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.emit({ type: 'answered', answeredBy: this.verdict });
    if (this.media.isStopped) this.callerHungUp();
  }

  /** The answering-machine verdict, posted to a status callback after the answer. */
  answeredBy(by: AnsweredBy): void {
    if (by === this.verdict) return;
    this.verdict = by;
    if (this.started) this.emit({ type: 'answered-by', answeredBy: by });
  }

  hangUp(reason = 'ended by the assistant'): void {
    if (this.over) return;
    this.over = true;
    this.media.close(reason);
    // Closing the stream ends `<Connect>` and so the call; REST makes sure of it.
    void this.opts.hangUpCall(reason);
  }

  /**
   * Cold transfer: the live call's TwiML becomes a `<Dial>` to the number (REST update), which
   * ends our `<Connect><Stream>`; the call is Twilio's and the other party's from then on.
   */
  async transfer(to: string): Promise<void> {
    await this.handOff(dialTwiml(to));
  }

  /** A supervisor's leg placed over REST on this account and answered (warm transfer). */
  canBridge(other: CarrierLeg): boolean {
    return other instanceof TwilioRestLeg && other.isAnswered && this.opts.redirectCall !== undefined;
  }

  /**
   * Warm transfer: the supervisor's leg goes into a conference room named after this call, then
   * the caller follows; either one leaving ends it for both (a two-party call). The supervisor
   * starts the room, so a caller who arrives first would hear the wait music (or silence).
   */
  async bridgeTo(other: CarrierLeg, options: BridgeOptions): Promise<void> {
    if (!(other instanceof TwilioRestLeg) || !this.canBridge(other)) throw new Error('this Twilio call can only be joined with an answered Twilio leg of its account');
    const room = `switchboard-${this.media.callSid}`;
    const waitUrl = options.holdMusic ? undefined : '';
    try {
      await other.joinConference(room, { startConferenceOnEnter: true, endConferenceOnExit: true, waitUrl });
      await this.handOff(conferenceTwiml(room, { startConferenceOnEnter: false, endConferenceOnExit: true, waitUrl }));
    } catch (err) {
      // The caller is gone, or Twilio refused either step: the supervisor must not wait alone in the room.
      other.hangUp();
      throw err;
    }
  }

  /** Replaces the live call's TwiML (REST update); our stream ends and the call is no longer ours. */
  private async handOff(twiml: string): Promise<void> {
    if (!this.opts.redirectCall) throw new Error('this Twilio leg cannot redirect its call');
    if (this.over) throw new Error('the call is over');
    // Twilio stops our stream as it follows the new TwiML: that stop is the hand-off, not the caller hanging up.
    this.transferring = true;
    try {
      await this.opts.redirectCall(twiml);
    } catch (err) {
      this.transferring = false;
      if (this.media.isStopped) this.callerHungUp();
      throw err;
    }
    this.over = true;
    this.media.close('transferred');
  }

  private callerHungUp(): void {
    if (this.over || this.transferring) return;
    if (!this.started) return; // reported by start()
    this.over = true;
    this.emit({ type: 'hung-up' });
  }

  private emit(event: LegEvent): void {
    if (this.over && event.type !== 'hung-up') return;
    this.listener(event);
  }
}
