/**
 * The call's clocks: the maximum duration (from the answer) and the silence rule.
 *
 * Silence starts when the assistant has finished its turn and waits for the customer. After
 * every `reengagementMs` of continued silence the assistant re-engages; once the customer has
 * stayed silent for `maxSilenceMs` after the first re-engagement, the assistant hangs up.
 * Anything the customer says resets the silence clock; the re-engagements themselves do not.
 */
import type { Clock, TimerHandle } from '../telephony/clock.js';

export interface TimerSettings {
  maxDurationMs: number;
  maxSilenceMs: number;
  reengagementMs: number;
}

export interface TimerHandlers {
  onMaxDuration(): void;
  onReengage(): void;
  onSilenceTimeout(): void;
}

export class CallTimers {
  private maxDuration: TimerHandle | null = null;
  private reengage: TimerHandle | null = null;
  private silenceLimit: TimerHandle | null = null;
  private waiting = false;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly settings: TimerSettings,
    private readonly handlers: TimerHandlers,
  ) {}

  /** The call was answered. */
  start(): void {
    if (this.stopped || this.maxDuration) return;
    this.maxDuration = this.clock.setTimer(this.settings.maxDurationMs, () => {
      this.maxDuration = null;
      if (!this.stopped) this.handlers.onMaxDuration();
    });
  }

  /** The assistant waits for the customer: the silence clock runs (if not already running). */
  awaitCustomer(): void {
    if (this.stopped || this.waiting) return;
    this.waiting = true;
    this.scheduleReengagement();
  }

  /** Someone is talking or the assistant is working: no silence. */
  activity(): void {
    this.waiting = false;
    this.clock.clearTimer(this.reengage);
    this.clock.clearTimer(this.silenceLimit);
    this.reengage = null;
    this.silenceLimit = null;
  }

  stop(): void {
    this.stopped = true;
    this.activity();
    this.clock.clearTimer(this.maxDuration);
    this.maxDuration = null;
  }

  private scheduleReengagement(): void {
    this.reengage = this.clock.setTimer(this.settings.reengagementMs, () => {
      this.reengage = null;
      if (this.stopped || !this.waiting) return;
      if (!this.silenceLimit) {
        this.silenceLimit = this.clock.setTimer(this.settings.maxSilenceMs, () => {
          this.silenceLimit = null;
          if (!this.stopped && this.waiting) this.handlers.onSilenceTimeout();
        });
      }
      this.scheduleReengagement();
      this.handlers.onReengage();
    });
  }
}
