/**
 * `max_silence_duration` and `reengagement_interval` measured on real silence: a pass-through
 * stage that drives the call's silence clock (src/calls/timers.ts `CallTimers`) from the frames.
 * The clock runs while the assistant has finished speaking and the caller is silent as the VAD
 * hears it; the caller's speech (VAD `speech-started`) or a new assistant turn stops it. The
 * timers' handlers (re-engagement prompt, then hang-up) belong to the session that owns them.
 *
 * The caller's silence is VAD silence, not "no transcript": a caller who talks but whose words
 * the STT does not catch is not silent, and line noise the VAD rejects is.
 */
import type { SilenceClock } from './ports.js';
import type { Frame } from './frames.js';
import type { Push, Stage } from './pipeline.js';

export class SilenceStage implements Stage {
  readonly name = 'silence';
  private assistantTurn: number | null = null;
  private callerSpeaking = false;

  constructor(private readonly timers: SilenceClock) {}

  process(frame: Frame, push: Push): void {
    switch (frame.kind) {
      case 'speech-started':
        this.callerSpeaking = true;
        this.timers.activity();
        break;
      case 'speech-stopped':
        this.callerSpeaking = false;
        // Speech that opens no turn (a cough, a backchannel) leaves the caller silent again.
        if (this.assistantTurn === null) this.timers.awaitCustomer();
        break;
      case 'turn-started':
        this.assistantTurn = frame.turn;
        // A re-engagement is the silence rule's own prompt: it must not restart the silence clock.
        if (frame.turnKind !== 'reengagement') this.timers.activity();
        break;
      case 'playback-done':
      case 'cancel':
        if (this.assistantTurn === frame.turn) {
          this.assistantTurn = null;
          if (!this.callerSpeaking) this.timers.awaitCustomer();
        }
        break;
    }
    push(frame);
  }
}
