/**
 * `voice_mail_message`: leaving the message on a voicemail box. It is said once the box's
 * greeting has ended — on an audio leg as the scripted answer to the box's turn (its end by VAD
 * silence and the endpoint rule, src/voice/scripted-reply.ts), on a text leg after the
 * greeting utterance — or, when the box says nothing for SILENT_VOICEMAIL_MS, right away. Then
 * the assistant hangs up (`ended_by_assistant`). The rule for machines (`answerMachine`) is here
 * too; the session calls it when the carrier says a machine answered.
 */
import type { Clock, TimerHandle } from '../telephony/clock.js';
import type { EndStatus, UnconnectedEnd } from './state-machine.js';
import type { CallTimers } from './timers.js';
import type { TurnTracker } from './turns.js';
import type { TextTurns } from './text-turns.js';
import type { VoiceCall } from '../voice/voice-call.js';
import { SILENT_VOICEMAIL_MS, type SessionDeps, type SessionSettings } from './session-types.js';

/** What the rule for machines needs of the session that owns the call. */
export interface MachineHost {
  readonly ended: boolean;
  /** The audio leg's pipeline, or null on a text leg. */
  readonly voice: VoiceCall | null;
  /** The text leg's turn loop. */
  readonly text: TextTurns;
  readonly settings: SessionSettings;
  readonly deps: Pick<SessionDeps, 'clock'>;
  readonly lines: string[];
  readonly turns: TurnTracker;
  readonly timers: CallTimers;
  end(status: Exclude<EndStatus, UnconnectedEnd>, reason: string): void;
}

/**
 * Answered by a machine. With a voicemail message: it is left once the box's greeting has
 * ended (the caller's end of turn: VAD silence after the greeting, or the leg's words), then
 * the assistant hangs up; the drop that leaves it is returned. Without one: hang up at once with
 * end_call_on_voicemail, else the box is talked to like a person (it greets first).
 */
export function answerMachine(host: MachineHost): VoicemailDrop | null {
  const message = host.settings.voicemailMessage?.trim() ?? '';
  if (message === '') {
    if (host.settings.endCallOnVoicemail) host.end('ended_by_assistant', 'voicemail');
    else host.timers.awaitCustomer();
    return null;
  }
  // No re-engagement into a voicemail box; the silent-box timer stands in for it.
  host.timers.activity();
  const drop = new VoicemailDrop(message, host.deps.clock, {
    get ended() {
      return host.ended;
    },
    get voice() {
      return host.voice;
    },
    sayText: (text) => host.text.say(text),
    lines: host.lines,
    turns: host.turns,
    left: () => host.end('ended_by_assistant', 'voicemail message left'),
  });
  drop.start();
  return drop;
}

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
