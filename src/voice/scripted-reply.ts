/**
 * A scripted answer to the caller's next turn instead of the model's: the opening line of
 * `wait_for_customer` (said once the caller has spoken, not at the answer) and the voicemail
 * message (said once the box's greeting has ended). It sits just before the LLM stage and turns
 * the next reply turn — opened by turn-taking at the caller's end of turn (VAD silence or the
 * STT's end of utterance) — into a turn of its own kind that says the line; the model is not asked.
 */
import type { TurnKind } from './ports.js';
import type { Frame, TurnId } from './frames.js';
import type { Push, Stage, StageContext } from './pipeline.js';

export interface ScriptedReply {
  text: string;
  kind: TurnKind;
  /** The turn began: what the caller said before it, and its id. */
  onStart?(callerText: string, turn: TurnId): void;
}

export class ScriptedReplyStage implements Stage {
  readonly name = 'scripted-reply';
  private pending: ScriptedReply | null = null;

  /** Answers the caller's next turn with `reply` (replaces one still waiting). */
  next(reply: ScriptedReply): void {
    this.pending = reply;
  }

  clear(): void {
    this.pending = null;
  }

  get waiting(): boolean {
    return this.pending !== null;
  }

  process(frame: Frame, push: Push, ctx: StageContext): void {
    const reply = this.pending;
    if (!reply || frame.kind !== 'turn-started' || frame.turnKind !== 'reply' || frame.callerText === null) {
      push(frame);
      return;
    }
    this.pending = null;
    push({ ...frame, turnKind: reply.kind });
    reply.onStart?.(frame.callerText, frame.turn);
    const at = ctx.clock.now();
    push({ kind: 'speak', turn: frame.turn, text: reply.text, source: 'scripted', at });
    push({ kind: 'speak-end', turn: frame.turn, at });
  }
}
