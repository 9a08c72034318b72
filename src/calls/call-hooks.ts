/**
 * What a built-in tool may do on the live call (CallHooks, src/calls/builtin-tools): speak to the
 * caller, know when what the assistant said so far has been heard, write a transcript line, play
 * hold music under a waiting caller, brief the supervisor's leg of a warm transfer, and know when
 * the call is over. The session provides the call's parts (its host object, src/calls/session.ts);
 * this turns them into those hooks, so the session keeps only its own life and record.
 */
import { HoldMusic } from '../audio/hold-music.js';
import type { ChatMessage } from '../providers/llm/types.js';
import type { CallHooks } from './builtin-tools/index.js';
import type { TextTurns } from './text-turns.js';
import type { SessionDeps } from './session-types.js';
import { LinePlayer } from '../voice/line-player.js';
import type { VoiceCall } from '../voice/voice-call.js';

export interface CallParts {
  readonly ended: boolean;
  /** The voice pipeline of an audio leg (null on text legs, and before the answer). */
  readonly voice: VoiceCall | null;
  /** The text leg's turn loop. */
  readonly text: TextTurns;
  readonly deps: Pick<SessionDeps, 'leg' | 'clock' | 'log'>;
  readonly messages: ChatMessage[];
  /** Aborted when the call is over. */
  readonly signal: AbortSignal;
  note(line: string): void;
}

export function callHooks(parts: CallParts): CallHooks {
  const { leg, clock, log } = parts.deps;
  const media = leg.media;
  return {
    // The hold message of a warm transfer: said while the turn waits for the supervisor.
    sayToCaller: async (text) => {
      if (parts.ended) return;
      parts.messages.push({ role: 'assistant', content: text });
      if (parts.voice) await parts.voice.say(text, 'reply');
      else await parts.text.say(text);
    },
    // collect_keypad's timeout starts once the request for keys has been heard.
    spokenSoFar: () => (parts.voice ? parts.voice.output.playedSoFar() : parts.text.saidSoFar()),
    note: (line) => parts.note(line),
    callEnded: parts.signal,
    // Only while the pipeline is quiet: the hold message has been said and the turn waits for the tool.
    holdMusic: media
      ? (volume) => {
          const music = new HoldMusic(media.sampleRate, volume);
          // The ambient bed steps aside while the music plays (the two would share the line's time).
          const giveBack = parts.voice?.lendLine();
          const stop = new LinePlayer(media, clock).loop((n) => music.next(n));
          return () => {
            stop();
            giveBack?.();
          };
        }
      : undefined,
    brief: async (target, text) => {
      // A text leg, or a leg steered over the network's API: its own voice says it.
      if (target.say) return target.say(text);
      const to = target.media;
      const speech = to ? parts.voice?.speechOf(text, to.sampleRate) : null;
      if (!to || !speech) {
        log.warn('the supervisor could not be briefed by voice: this call has no text-to-speech voice');
        return;
      }
      const samples = await speech.catch((err: Error) => {
        log.warn({ err: { message: err.message } }, "the supervisor's briefing could not be synthesised");
        return null;
      });
      if (samples && !parts.signal.aborted) await new LinePlayer(to, clock).play(samples);
    },
  };
}
