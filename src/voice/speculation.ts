/**
 * Speculative replies (issue 26, item 3): the reply starts while the caller's turn is only
 * *likely* over, and is heard only once the turn is *confirmed*.
 *
 * - `likely-over` (turn-policy-stage.ts → `start`): a turn is reserved (not current: caller
 *   frames keep theirs, nobody holds the floor) and the LLM stage asks the model with the caller's
 *   words appended to a copy of the history (`LlmStage.speculate`). The text gate (before the TTS)
 *   lets the reply's first sentence through, so its audio is being made; the audio gate (before
 *   the output) holds everything of the turn. Nothing of it reaches the output, the turn records,
 *   the transcript or the session.
 * - `confirmed` with the same words (openReply → `adopt`): the reserved turn becomes the reply
 *   turn; its `turn-started` releases the gates in order and the LLM stage writes the caller's
 *   words and the answer so far into the history. No second request.
 * - `resumed` (the caller goes on), other words at the confirmation, a history that changed
 *   meanwhile (`drop`): the turn is cancelled ('superseded'): the request and the TTS stream are
 *   aborted, the gates forget what they held, the history was never touched.
 * - A speculative run that reaches a tool call (mid-call tool, built-in, end-call) waits for the
 *   confirmation before running it; dropped, it never runs.
 *
 * `stats` counts speculative starts, adoptions and drops (the bench reports drops per turn).
 */
import type { ChatMessage } from '../providers/llm/types.js';
import type { Frame, TurnId } from './frames.js';
import type { Push, Stage, StageContext } from './pipeline.js';

/** What the speculation asks of the LLM stage (llm.ts). */
export interface SpeculativeLlm {
  /** Starts the reply of reserved turn `turn` to `callerText` without touching the history; `confirmed` settles true at adoption, false when dropped. */
  speculate(turn: TurnId, callerText: string, confirmed: Promise<boolean>, failed: () => void): void;
}

interface Live {
  turn: TurnId;
  text: string;
  /** The history when the request went out: adopted only if it is still the same. */
  historyLength: number;
  lastMessage: ChatMessage | undefined;
  settle: (confirmed: boolean) => void;
}

export interface SpeculationStats {
  /** Speculative replies started. */
  started: number;
  /** Started and then heard (no second request). */
  adopted: number;
  /** Started and then dropped (the caller went on, other words, a failure). */
  dropped: number;
  /** Caller turns confirmed (with or without a speculative reply). */
  turns: number;
}

export interface SpeculationOptions {
  /** The call's LLM history (shared with the LLM stage). */
  messages: ChatMessage[];
  /** False while a speculative reply must not start (a scripted answer waits for the turn). */
  allowed?: () => boolean;
}

export class Speculation {
  readonly stats: SpeculationStats = { started: 0, adopted: 0, dropped: 0, turns: 0 };
  /** Turns the gates must hold until their `turn-started` (reserved, not yet adopted). */
  private readonly speculative = new Set<TurnId>();
  private live: Live | null = null;
  private llm: SpeculativeLlm | null = null;
  private ctx: StageContext | null = null;
  /** Drops since the last confirmed turn. */
  private droppedThisTurn = 0;
  /** Stands before the TTS stage: the first sentence of a held reply goes on to be synthesised, the rest waits. */
  readonly textGate: Stage;
  /** Stands before the output: nothing of a held reply goes on. */
  readonly audioGate: Stage;

  constructor(private readonly options: SpeculationOptions) {
    this.textGate = new Gate('speculation-text', this, true);
    this.audioGate = new Gate('speculation-audio', this, false);
  }

  /** The LLM stage that runs the speculative requests. */
  useLlm(llm: SpeculativeLlm): void {
    this.llm = llm;
  }

  /** True for a reserved turn not (yet) adopted. */
  isSpeculative(turn: TurnId): boolean {
    return this.speculative.has(turn);
  }

  /** The text of the live speculative reply, if any. */
  get pending(): string | null {
    return this.live?.text ?? null;
  }

  /** The turn is likely over with `text` (the caller's whole turn as it would be taken): start the reply. */
  start(ctx: StageContext, text: string): void {
    this.ctx = ctx;
    const words = text.trim();
    if (this.live?.text === words) return;
    this.drop('words-changed');
    if (words === '' || !this.llm || this.options.allowed?.() === false) return;
    const turn = ctx.turns.reserve();
    this.speculative.add(turn);
    let settle: (confirmed: boolean) => void = () => undefined;
    const confirmed = new Promise<boolean>((resolve) => (settle = resolve));
    const messages = this.options.messages;
    this.live = { turn, text: words, historyLength: messages.length, lastMessage: messages.at(-1), settle };
    this.stats.started++;
    ctx.log.debug({ turn }, 'speculative reply started');
    this.llm.speculate(turn, words, confirmed, () => {
      if (this.live?.turn === turn) this.drop('failed');
    });
  }

  /** The caller went on (or the words changed, or the call moved on): the speculative reply goes without a trace. */
  drop(why: string): void {
    const live = this.live;
    if (!live) return;
    this.live = null;
    this.stats.dropped++;
    this.droppedThisTurn++;
    this.ctx?.log.debug({ turn: live.turn, why }, 'speculative reply dropped');
    live.settle(false);
    // Cancelling sends `cancel` through every stage: the request and TTS stream abort, the gates forget.
    this.ctx?.turns.cancel(live.turn, 'superseded');
    this.speculative.delete(live.turn);
  }

  /**
   * The caller's turn is confirmed with `said`: the reserved turn when a speculative reply to
   * exactly these words is under way on the same history (it becomes current), else null (any
   * other one is dropped) and the caller opens a turn as usual.
   */
  adopt(ctx: StageContext, said: string): TurnId | null {
    this.stats.turns++;
    const dropped = this.droppedThisTurn;
    this.droppedThisTurn = 0;
    const live = this.live;
    const messages = this.options.messages;
    const same =
      live !== null &&
      live.text === said.trim() &&
      messages.length === live.historyLength &&
      messages.at(-1) === live.lastMessage &&
      this.options.allowed?.() !== false;
    if (!same || !ctx.turns.enter(live.turn)) {
      this.drop('not-confirmed');
      ctx.log.debug({ dropped: dropped + (live ? 1 : 0) }, 'caller turn confirmed without a speculative reply');
      return null;
    }
    this.live = null;
    this.speculative.delete(live.turn);
    this.stats.adopted++;
    ctx.log.debug({ turn: live.turn, dropped }, 'caller turn confirmed: the speculative reply is heard');
    live.settle(true);
    return live.turn;
  }
}

/** A stage that holds the frames of speculative turns until their `turn-started` (then passes them on, in order) or their `cancel` (then forgets them). */
class Gate implements Stage {
  private readonly held = new Map<TurnId, Frame[]>();
  /** Turns whose first `speak` went through (text gate). */
  private readonly spoke = new Set<TurnId>();

  constructor(
    readonly name: string,
    private readonly speculation: Speculation,
    private readonly firstSentencePasses: boolean,
  ) {}

  process(frame: Frame, push: Push): void {
    const turn = frame.turn;
    const held = this.held.get(turn);
    if (frame.kind === 'cancel') {
      this.forget(turn);
      push(frame);
      return;
    }
    if (frame.kind === 'turn-started' && held) {
      // Adopted: the turn's start, then what was held, in order.
      this.forget(turn);
      push(frame);
      for (const f of held) push(f);
      return;
    }
    if (!held && !this.speculative(frame)) {
      push(frame);
      return;
    }
    if (this.firstSentencePasses && this.passesText(frame)) {
      this.held.set(turn, held ?? []);
      push(frame);
      return;
    }
    if (held) held.push(frame);
    else this.held.set(turn, [frame]);
  }

  /** A frame of a speculative reply this gate must look at (caller-side and call-wide frames flow). */
  private speculative(frame: Frame): boolean {
    if (frame.kind === 'hang-up' || frame.kind === 'error' || frame.kind === 'turn-started') return false;
    return this.speculation.isSpeculative(frame.turn);
  }

  /** Text gate: the model's text and its first sentence go on to the TTS; later sentences and the end wait. */
  private passesText(frame: Frame): boolean {
    if (frame.kind === 'llm-delta' || frame.kind === 'llm-done') return true;
    if (frame.kind !== 'speak' || this.spoke.has(frame.turn)) return false;
    this.spoke.add(frame.turn);
    return true;
  }

  private forget(turn: TurnId): void {
    this.held.delete(turn);
    this.spoke.delete(turn);
  }
}
