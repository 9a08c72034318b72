/**
 * `voice_mail_message`: leaving the message on a voicemail box. It is said once the box's
 * greeting has ended — on an audio leg as the scripted answer to the box's turn (its end by VAD
 * silence and the endpoint rule, src/voice/scripted-reply.ts), on a text leg after the
 * greeting utterance — or, when the box says nothing for SILENT_VOICEMAIL_MS, right away. Then
 * the assistant hangs up (`ended_by_assistant`). The rule for machines is in the session.
 */
import type { Clock, TimerHandle } from '../telephony/clock.js';
import type { TurnTracker } from './turns.js';
import type { VoiceCall } from '../voice/voice-call.js';
import { SILENT_VOICEMAIL_MS } from './session-types.js';

/** What the drop needs of its call's session. */
export interface VoicemailHost {
  readonly ended: boolean;
  /** The audio leg's pipeline, or null on a text leg. */
  readonly voice: VoiceCall | null;
  /** Text legs: says a line (resolves once said). */
  sayText(text: string): Promise<void>;
  lines: string[];
  turns: TurnTracker;
  /** The message was left: the call ends. */
  left(): void;
}

export class VoicemailDrop {
  private started = false;
  private silentBox: TimerHandle | null = null;

  constructor(
    private readonly message: string,
    private readonly clock: Clock,
    private readonly host: VoicemailHost,
  ) {}

  /** The box answered: wait for its greeting to end (or for the silence of a box that says nothing). */
  start(): void {
    this.silentBox = this.clock.setTimer(SILENT_VOICEMAIL_MS, () => this.leaveNow(null));
    this.host.voice?.answerNextTurnWith(this.message, 'voicemail', () => this.begin()).then(
      () => this.host.left(),
      () => undefined,
    );
  }

  /** The box made a sound: it is not silent. */
  heardSomething(): void {
    this.clock.clearTimer(this.silentBox);
  }

  /** Leaves the message now: after the box's greeting on a text leg (`greeting`), or on a silent box. */
  leaveNow(greeting: string | null): void {
    const host = this.host;
    if (this.started || host.ended) return;
    this.begin();
    if (host.voice) {
      host.voice.cancelScriptedReply();
      void host.voice.say(this.message, 'voicemail').then(() => host.left());
      return;
    }
    if (greeting !== null) host.lines.push(`Customer: ${greeting}`);
    const position = host.turns.begin('voicemail', greeting);
    void host.sayText(this.message).then(() => {
      host.turns.finish({ position });
      host.left();
    });
  }

  stop(): void {
    this.clock.clearTimer(this.silentBox);
  }

  private begin(): void {
    this.started = true;
    this.clock.clearTimer(this.silentBox);
  }
}
