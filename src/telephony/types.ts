/**
 * A carrier and one call leg on it, as the call engine sees them: events come in (ringing,
 * answered, not answered, DTMF, the customer hung up), actions go out (play audio, mark,
 * clear, hang up). A carrier knows nothing of assistants or the database.
 *
 * Two kinds of leg exist:
 * - an **audio leg** has `media`: caller audio in, assistant audio out, both PCM16 mono at
 *   `media.sampleRate`; the voice core (VAD, speech-to-text, text-to-speech) runs on it;
 * - a **text leg** has `say` and reports whole utterances as `customer-said` (the sandbox at
 *   SANDBOX_TIME_SCALE=0, typed browser conversations).
 * A leg may also report `customer-said` alongside its audio when it knows the words for sure
 * (the sandbox speaks its own script): the core then uses those words as the transcript.
 */
export type AnsweredBy = 'human' | 'machine' | 'unknown';
export type UnansweredOutcome = 'busy' | 'no-answer' | 'failed';

export type LegEvent =
  | { type: 'ringing' }
  | { type: 'answered'; answeredBy: AnsweredBy }
  /** A later verdict of answering-machine detection (asynchronous AMD), after `answered`. */
  | { type: 'answered-by'; answeredBy: AnsweredBy }
  | { type: 'unanswered'; outcome: UnansweredOutcome }
  /** A whole customer utterance as text (text legs, or a leg that knows its own words). */
  | { type: 'customer-said'; text: string }
  /** A key the caller pressed. */
  | { type: 'dtmf'; digit: string }
  | { type: 'hung-up' };

/** Audio both ways on a connected leg: PCM16 mono at `sampleRate`, in and out. */
export interface LegMedia {
  readonly sampleRate: number;
  /** Caller audio, in order, as it arrives (typically 20 ms chunks). One listener. */
  onAudio(listener: (samples: Int16Array) => void): void;
  /**
   * Hands assistant audio to the carrier, which plays it in order after what it already
   * holds. The voice core paces what it hands over (a little ahead of real time), so a
   * `clear` has little to drop. `ambient`: the audio is the call's ambient bed alone, no
   * speech (carriers play it like any other; the sandbox's simulated caller does not wait for
   * it to end before answering, as a person does not wait for a room to fall silent).
   */
  play(samples: Int16Array, ambient?: boolean): void;
  /** Queues a mark after the audio handed over so far. */
  mark(name: string): void;
  /**
   * Marks come back in order: `cleared` false once the audio before the mark has been
   * played to the caller, true when a `clear` dropped it first. One listener.
   */
  onMark(listener: (name: string, cleared: boolean) => void): void;
  /** Drops everything queued at once (barge-in); pending marks come back as cleared. */
  clear(): void;
  /** Sends DTMF tones on the line (carriers that can; the sandbox records them). */
  sendDigits?(digits: string): Promise<void>;
}

export interface CarrierLeg {
  /** Receives every event of the leg in order; set before `start`. */
  onEvent(listener: (event: LegEvent) => void): void;
  /** Places (or, inbound, picks up) the call. */
  start(): void;
  /** Audio legs: the media channel, usable from the `answered` event on. */
  readonly media?: LegMedia;
  /** Text legs: plays an utterance; resolves when it has been played (or the line is gone). */
  say?(text: string): Promise<void>;
  /** Ends the call from our side; no `hung-up` event follows. */
  hangUp(reason?: string): void;
  /** Legs that can show text (browser calls) get each transcript line as it is settled. */
  caption?(role: 'user' | 'assistant', text: string): void;
  /**
   * Hands the caller over to another number (cold transfer; carriers that can, e.g. Twilio's
   * redirect to a `<Dial>`). The leg is over for us afterwards; no `hung-up` event follows.
   */
  transfer?(to: string): Promise<void>;
  /** Text legs: sends DTMF tones on the line (audio legs use `media.sendDigits`). */
  sendDigits?(digits: string): Promise<void>;
  /** Whether `bridgeTo(other)` can join this leg with `other` (a leg of the same carrier's network). */
  canBridge?(other: CarrierLeg): boolean;
  /**
   * Warm transfer: joins the caller on this leg and `other` (an answered leg the same carrier
   * placed) in one call and leaves both to the carrier (Twilio: both into one `<Conference>`).
   * Both legs are over for us afterwards; no `hung-up` event follows on either.
   */
  bridgeTo?(other: CarrierLeg, options: BridgeOptions): Promise<void>;
}

export interface BridgeOptions {
  /** What the caller hears should they reach the joined call before the other side: music, or silence. */
  holdMusic: boolean;
}

export interface DialRequest {
  /** The call's id (carriers that call back, e.g. Twilio, tie their callbacks to it). */
  callId?: number;
  /** The customer's number (E.164). */
  customer: string;
  /** The assistant's number ('' when it has none). */
  assistant: string;
  direction: 'outbound' | 'inbound';
}

export interface Carrier {
  readonly name: string;
  dial(request: DialRequest): CarrierLeg;
}

export interface PlaceRequest extends DialRequest {
  callId: number;
  /** The account the call belongs to (whose carrier credentials are used). */
  userId: number;
  /** Proves the media stream is this call's; checked once, when the stream starts. */
  mediaToken: string;
  /** The assistant's `max_duration` in seconds (the carrier's own time limit backs ours up). */
  maxDurationSec: number;
  /** Ask the network for answering-machine detection. */
  detectMachine: boolean;
  /** Ask the network to record the call (both parties, one channel each). */
  record?: boolean;
}

/**
 * A carrier whose network calls us back (Twilio): `place` asks it to call; the leg arrives
 * later with the call's media stream, on whichever instance receives it, and only there does
 * the session run. Callbacks in between may reach any instance.
 */
export interface RemoteCarrier extends Carrier {
  readonly placesRemotely: true;
  place(request: PlaceRequest): Promise<{ carrierCallId: string }>;
  /** Ends the call at the network (a call that is no longer ours, or was never taken). */
  hangUp(userId: number, carrierCallId: string): Promise<void>;
  /** What the network charged for a finished call (positive, in its currency), when it has rated it. */
  priceOf?(userId: number, carrierCallId: string): Promise<number | null>;
  /** The network's recording of a finished call as a WAV file, or null when it made none. */
  recordingOf?(userId: number, carrierCallId: string): Promise<Buffer | null>;
  /**
   * A leg this instance steers over the network's API, without media here (a warm transfer's
   * supervisor): it speaks with the network's own voice (`say`) and can be bridged with a call
   * of the same account. `language`: a BCP 47 tag for that voice, e.g. `de-DE`.
   */
  placeLeg?(userId: number, request: DialRequest, options?: PlaceLegOptions): CarrierLeg;
}

export interface PlaceLegOptions {
  /** BCP 47 tag of the network's voice for `say`, e.g. `de-DE`. */
  language?: string;
  /** The caller id to show instead when the network refuses `request.assistant` (not the account's, not verified). */
  fallbackFrom?: string;
  /** Told when `fallbackFrom` was shown instead of the caller id asked for. */
  onCallerIdRefused?(refused: string, used: string): void;
}

export function placesRemotely(carrier: Carrier): carrier is RemoteCarrier {
  return (carrier as Partial<RemoteCarrier>).placesRemotely === true;
}

/**
 * An audio leg whose customer the service drives itself (assistant tests in audio mode): no
 * script of its own and no `customer-said` — the customer's audio and keys come from the test,
 * and the assistant understands them only through its speech-to-text. The sandbox opens these.
 */
export interface DrivenLeg extends CarrierLeg {
  readonly media: LegMedia;
  /** True once either side has ended the call. */
  readonly over: boolean;
  /** Milliseconds of assistant speech still to play to the customer (0: the line is quiet). */
  readonly pendingMs: number;
  /** The customer speaks `samples` (PCM16 at `media.sampleRate`) at real pace; resolves once spoken. */
  customerSpeaks(samples: Int16Array): Promise<void>;
  /** The customer presses keys (DTMF events, in order). */
  customerPresses(digits: string): void;
  customerHangsUp(): void;
}

/** A carrier that can open driven legs (the sandbox). */
export interface DrivenLegs {
  drivenLeg(): DrivenLeg;
}

export function opensDrivenLegs(carrier: Carrier | undefined): carrier is Carrier & DrivenLegs {
  return typeof (carrier as Partial<DrivenLegs> | undefined)?.drivenLeg === 'function';
}
