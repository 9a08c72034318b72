/**
 * What a built-in function's result does to the call, in one place for every kind of line:
 * the tool's line is said, then the carrier takes the caller (`handOver`), the transcript gets
 * the tool's note, and the call either continues with another assistant (`switchTo`) or ends
 * (`end`). How a line is said is the leg's: a text leg hands it to the leg, the voice pipeline
 * speaks it in the tool's turn, a speech-to-speech session asks its model for `Say exactly: …`
 * (src/voice/voice-call.ts `finishTurn`).
 */
import type { Logger } from 'pino';
import type { BuiltinResult } from './builtin-tools/index.js';

/** The transcript line when the carrier refused to take the caller. */
export const TRANSFER_FAILED_NOTE = 'Transfer: the carrier could not transfer the call.';
/** What the model is told then (it answers the caller; the conversation goes on). */
export const TRANSFER_FAILED_INSTRUCTION = 'The transfer failed: the carrier could not transfer the call. Tell the caller.';

/** A result that ends the tool's turn: a line to say, a hand-over to another assistant, the call's end. */
export const endsTurn = (result: BuiltinResult): boolean => result.say !== undefined || result.end !== undefined || result.switchTo !== undefined;

/** How this call's line speaks. */
export interface BuiltinLine {
  /** Ends the tool's turn, saying `text` in it first when given; resolves once the caller heard it (or it was cut off). */
  finishTurn(text: string | undefined): Promise<void>;
  /** The model hears `instruction` and answers the caller (a new turn on audio legs, the loop's next round on text legs). */
  answerWith(instruction: string): void;
  /** The assistant that took the call over says its opening line; resolves once said. */
  greet(text: string): Promise<void>;
  /** The assistant that took the call over answers from the history. */
  respond(): void;
}

/** The call the result acts on. */
export interface BuiltinCall {
  readonly ended: boolean;
  readonly log: Logger;
  /** Records an assistant line in the LLM history. */
  remember(text: string): void;
  note(line: string): void;
  /** Ends the call `completed`; `handedOver`: the carrier has the caller (no hang-up). */
  end(reason: string, handedOver: boolean): void;
  /** Another assistant's settings replace the call's; returns its opening line. */
  switchAssistant(to: NonNullable<BuiltinResult['switchTo']>): string;
}

/**
 * Applies `result` after its function output is in the history: `continue` (the model goes on),
 * `answer` (the model was told the transfer failed and answers), `switched` (the new assistant
 * answers next), `greeted` (it said its opening line) or `ended`.
 */
export async function applyBuiltinResult(result: BuiltinResult, line: BuiltinLine, call: BuiltinCall): Promise<'continue' | 'answer' | 'switched' | 'greeted' | 'ended'> {
  if (!endsTurn(result)) {
    if (result.note) call.note(result.note);
    return 'continue';
  }
  if (result.say) call.remember(result.say);
  await line.finishTurn(result.say);
  if (call.ended) return 'ended';
  let handedOver = false;
  if (result.end?.handOver) {
    try {
      await result.end.handOver();
      handedOver = true;
    } catch (err) {
      if (call.ended) return 'ended';
      // The caller stays with the assistant, which hears why and tells them.
      call.log.warn({ err: { message: (err as Error).message } }, 'the carrier could not transfer the call');
      call.note(TRANSFER_FAILED_NOTE);
      line.answerWith(TRANSFER_FAILED_INSTRUCTION);
      return 'answer';
    }
  }
  if (result.note) call.note(result.note);
  if (result.switchTo && !call.ended) {
    const greeting = call.switchAssistant(result.switchTo).trim();
    if (!result.switchTo.greet || greeting === '') {
      line.respond();
      return 'switched';
    }
    call.remember(greeting);
    await line.greet(greeting);
    return 'greeted';
  }
  if (result.end && !call.ended) call.end(result.end.reason, handedOver);
  return call.ended ? 'ended' : 'continue';
}
