/**
 * A carrier and one call leg on it, as the conversation engine sees them: events come in
 * (ringing, answered, not answered, the customer said something, the customer hung up),
 * actions go out (say, hang up). A carrier knows nothing of assistants or the database.
 */
export type AnsweredBy = 'human' | 'machine' | 'unknown';
export type UnansweredOutcome = 'busy' | 'no-answer' | 'failed';

export type LegEvent =
  | { type: 'ringing' }
  | { type: 'answered'; answeredBy: AnsweredBy }
  | { type: 'unanswered'; outcome: UnansweredOutcome }
  | { type: 'customer-said'; text: string }
  | { type: 'hung-up' };

export interface CarrierLeg {
  /** Receives every event of the leg in order; set before `start`. */
  onEvent(listener: (event: LegEvent) => void): void;
  /** Places (or, inbound, picks up) the call. */
  start(): void;
  /** Plays an utterance to the customer; resolves when it has been played (or the line is gone). */
  say(text: string): Promise<void>;
  /** Ends the call from our side; no `hung-up` event follows. */
  hangUp(): void;
}

export interface DialRequest {
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
