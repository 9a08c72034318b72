/**
 * Opening the assistant's reply when the caller's turn is over. The decision when that is lives in
 * the end-of-turn policy (turn/policy.ts) and its stage (turn-policy-stage.ts); the multimodal
 * stage (speech-to-speech.ts) has its own.
 */
import type { Push, StageContext } from './pipeline.js';
import type { Floor } from './settings.js';
import type { CallerWords } from './caller-words.js';
import type { Speculation } from './speculation.js';

/**
 * The caller's turn is over with `text`: `end-of-turn`, then the assistant's reply turn opens
 * (`turn-started`). While the assistant holds the floor (a reply the caller did not interrupt)
 * no turn opens, but the words are kept in `words` (caller-words.ts) for the caller's next turn;
 * held words and keys open that turn, before its own words. Nothing when nothing was heard.
 * With `speculation`, a speculative reply to exactly the turn's words is adopted as the reply turn.
 */
export function openReply(
  ctx: StageContext,
  push: Push,
  floor: Floor,
  text: string,
  endOfSpeechAt: number,
  at: number,
  words?: CallerWords,
  speculation?: Speculation,
): void {
  if (floor.assistantSpeaking) {
    speculation?.drop('floor-taken');
    if (text === '') return;
    // The words are the caller's personal data (the call's transcript has them): the length only.
    ctx.log.debug({ chars: text.length }, 'caller spoke over the assistant without interrupting; the words wait for their turn');
    words?.hold(text);
    return;
  }
  const said = words ? words.take(text) : text;
  if (said === '') {
    speculation?.drop('no-words');
    return;
  }
  push({ kind: 'end-of-turn', turn: ctx.turns.current, text: said, endOfSpeechAt, at });
  // A speculative reply to exactly these words becomes the reply (speculation.ts); else a new turn.
  const turn = speculation?.adopt(ctx, said) ?? ctx.turns.begin();
  floor.assistantTakes(turn);
  push({ kind: 'turn-started', turn, turnKind: 'reply', callerText: said, at: endOfSpeechAt });
}
