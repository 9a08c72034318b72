/**
 * What a built-in tool may do on the live call (CallHooks, src/calls/builtin-tools): speak to the
 * caller, know when what the assistant said so far has been heard, write a transcript line, play
 * hold music under a waiting caller, brief the supervisor's leg of a warm transfer, and know when
 * the call is over. The session provides the call's parts;
 * this turns them into those hooks, so the session keeps only its own life and record.
 */
import type { Logger } from 'pino';
import { HoldMusic } from '../audio/hold-music.js';
import type { Clock } from '../telephony/clock.js';
import type { CarrierLeg } from '../telephony/types.js';
import type { CallHooks } from './builtin-tools/index.js';
import { LinePlayer } from '../voice/line-player.js';
import type { VoiceCall } from '../voice/voice-call.js';

export interface CallParts {
  leg: CarrierLeg;
  clock: Clock;
  log: Logger;
  /** The voice pipeline of an audio leg (null on text legs, and before the answer). */
  voice(): VoiceCall | null;
  sayToCaller(text: string): Promise<void>;
  spokenSoFar(): Promise<void>;
  note(line: string): void;
  callEnded: AbortSignal;
}

export function callHooks(parts: CallParts): CallHooks {
  const { leg, clock, log } = parts;
  const media = leg.media;
  return {
    sayToCaller: parts.sayToCaller,
    spokenSoFar: parts.spokenSoFar,
    note: parts.note,
    callEnded: parts.callEnded,
    // Only while the pipeline is quiet: the hold message has been said and the turn waits for the tool.
    holdMusic: media
      ? (volume) => {
          const music = new HoldMusic(media.sampleRate, volume);
          // The ambient bed steps aside while the music plays (the two would share the line's time).
          const giveBack = parts.voice()?.lendLine();
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
      const speech = to ? parts.voice()?.speechOf(text, to.sampleRate) : null;
      if (!to || !speech) {
        log.warn('the supervisor could not be briefed by voice: this call has no text-to-speech voice');
        return;
      }
      const samples = await speech.catch((err: Error) => {
        log.warn({ err: { message: err.message } }, "the supervisor's briefing could not be synthesised");
        return null;
      });
      if (samples && !parts.callEnded.aborted) await new LinePlayer(to, clock).play(samples);
    },
  };
}
