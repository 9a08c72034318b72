/**
 * What the call does when the caller goes quiet, once the silence clock (src/calls/timers.ts)
 * says so: the re-engagement prompt, and — when they stay silent after it — the closing line and
 * the hang-up, unless they speak up (or type) while it is said. The lines themselves, in the
 * assistant's language, are in src/calls/closing-lines.ts.
 */
import type { ChatMessage } from '../providers/llm/types.js';
import type { EndStatus, UnconnectedEnd } from './state-machine.js';
import type { CallTimers } from './timers.js';
import type { TurnTracker } from './turns.js';
import type { TextTurns } from './text-turns.js';
import type { VoiceCall } from '../voice/voice-call.js';
import { reengagementLine, silenceGoodbyeLine } from './closing-lines.js';
import type { SessionSettings } from './session-types.js';

/** What the silence handling needs of the session that owns the call. */
export interface CallerSilenceHost {
  readonly ended: boolean;
  /** The audio leg's pipeline, or null on a text leg. */
  readonly voice: VoiceCall | null;
  /** The text leg's turn loop. */
  readonly text: TextTurns;
  readonly settings: SessionSettings;
  readonly messages: ChatMessage[];
  readonly turns: TurnTracker;
  readonly timers: CallTimers;
  /** The caller's lines so far (a text leg's caller typing during the closing line keeps the call). */
  readonly customerUtterances: number;
  end(status: Exclude<EndStatus, UnconnectedEnd>, reason: string): void;
}

export class CallerSilence {
  /** The caller's speech onsets on an audio leg (the VAD's), counted to see whether they spoke up during the closing line. */
  private speechOnsets = 0;

  constructor(private readonly host: CallerSilenceHost) {}

  /** The caller started to speak (audio legs). */
  speechStarted(): void {
    this.speechOnsets++;
  }

  reengage(): void {
    const host = this.host;
    if (host.ended || host.text.busy) return;
    const line = reengagementLine(host.settings.language);
    host.messages.push({ role: 'assistant', content: line });
    if (host.voice) {
      void host.voice.say(line, 'reengagement');
      return;
    }
    const position = host.turns.begin('reengagement', null);
    void host.text.say(line, true).then(() => host.turns.finish({ position }));
  }

  /**
   * The caller stayed silent after re-engagement. The assistant says its closing line first
   * (silence_goodbye_message, else the default in its language; '' none) and hangs up once it was
   * heard (an audio leg) or handed to the leg (a text leg) — unless the caller speaks up (or types)
   * meanwhile: then the call goes on and the silence clock starts over.
   */
  timeout(): void {
    const host = this.host;
    if (host.ended) return;
    const reason = 'customer silent after re-engagement';
    const goodbye = silenceGoodbyeLine(host.settings.silenceGoodbyeMessage, host.settings.language);
    if (goodbye === '') {
      host.end('ended_by_assistant', reason);
      return;
    }
    // No re-engagement over the closing line.
    host.timers.activity();
    host.messages.push({ role: 'assistant', content: goodbye });
    if (host.voice) {
      const spokeBefore = this.speechOnsets;
      void host.voice.say(goodbye, 'reengagement').then(() => {
        if (this.speechOnsets === spokeBefore) host.end('ended_by_assistant', reason);
      });
      return;
    }
    const saidBefore = host.customerUtterances;
    const position = host.turns.begin('reengagement', null);
    void host.text.say(goodbye, true).then(() => {
      host.turns.finish({ position });
      if (host.customerUtterances === saidBefore) host.end('ended_by_assistant', reason);
    });
  }
}
