/**
 * The line a text-mode test call runs on: an in-process text leg, like a typed browser call
 * (src/telephony/web/leg.ts) without the browser. The session says its lines through `say`;
 * the test's caller speaks, presses keys and hangs up through the other side. Keys pressed as
 * a turn of their own become the caller message `[keypad: 12#]`, as the audio path's keypad
 * stage makes them (src/voice/keypad.ts).
 */
import type { CarrierLeg, LegEvent } from '../telephony/types.js';
import { keypadText } from '../voice/keypad.js';

/** The caller's side of a test's line, as the test's caller (callers.ts) uses it: text (below) or audio (audio.ts). */
export interface CallerSide {
  readonly over: boolean;
  callerSays(text: string): void | Promise<void>;
  /** Keys while the assistant collects them (collect_keypad). */
  callerPresses(keys: string): void;
  /** Keys as the caller's turn. */
  callerKeysTurn(keys: string): void | Promise<void>;
  callerHangsUp(): void;
}

export class TestLeg implements CarrierLeg, CallerSide {
  private listener: (event: LegEvent) => void = () => undefined;
  private ended = false;
  /** Keys the assistant pressed on the line (dtmf_input). */
  readonly digitsSent: string[] = [];
  /** Told each line the assistant says. */
  onAssistantLine: (text: string) => void = () => undefined;

  onEvent(listener: (event: LegEvent) => void): void {
    this.listener = listener;
  }

  start(): void {
    queueMicrotask(() => {
      this.emit({ type: 'ringing' });
      this.emit({ type: 'answered', answeredBy: 'human' });
    });
  }

  /** True once either side has ended the call. */
  get over(): boolean {
    return this.ended;
  }

  async say(text: string): Promise<void> {
    if (!this.ended) this.onAssistantLine(text);
  }

  async sendDigits(digits: string): Promise<void> {
    if (!this.ended) this.digitsSent.push(digits);
  }

  hangUp(): void {
    this.ended = true;
  }

  // ---- the caller's side

  callerSays(text: string): void {
    this.emit({ type: 'customer-said', text });
  }

  /** Keys while the assistant collects them (collect_keypad): key events only. */
  callerPresses(keys: string): void {
    for (const digit of keys) this.emit({ type: 'dtmf', digit });
  }

  /** Keys as the caller's turn: the key events, then the turn they make. */
  callerKeysTurn(keys: string): void {
    this.callerPresses(keys);
    this.callerSays(keypadText(keys));
  }

  callerHangsUp(): void {
    if (this.ended) return;
    this.emit({ type: 'hung-up' });
    this.ended = true;
  }

  private emit(event: LegEvent): void {
    if (!this.ended) this.listener(event);
  }
}
