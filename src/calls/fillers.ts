/**
 * Fillers (`fillers` + `filler_config`): short phrases the assistant says so the caller does
 * not sit in dead air while a mid-call tool runs or the LLM is slow to start its answer.
 *
 * - When: a tool still running after `toolAfterMs`, or no LLM token after `llmAfterMs`; while
 *   the wait goes on, again every `repeatMs`, at most `maxPerTurn` fillers in one turn.
 * - Which: `filler_config` has four lists. A tool wait uses `neutral`; a slow LLM answers the
 *   caller's last words: `question` when they asked something, `negative`/`positive` when
 *   their words lean that way (a small word list, not a model), else `neutral`. An empty list
 *   falls back to `neutral`, an empty `neutral` to the built-in phrases. Phrases rotate, so
 *   the same one is not said twice in a row.
 * Fillers are spoken and kept in the transcript and the turn's `fillers`, never in the LLM's
 * history (they would sit between a tool call and its result).
 */
import type { FillerConfig } from '../db/schema.js';
import type { Clock, TimerHandle } from '../telephony/clock.js';
import type { FillerReason } from './turns.js';
import type { Frame } from '../voice/frames.js';

export type FillerMood = keyof FillerConfig;

export const DEFAULT_FILLERS: Readonly<FillerConfig> = {
  neutral: ['One moment, please.', 'Let me check that for you.', 'Just a second.'],
  negative: ['I understand, let me see what I can do.'],
  positive: ['Great, one moment.'],
  question: ['Good question, let me check.'],
};

export interface FillerTiming {
  /** A tool still running after this long gets a filler. */
  toolAfterMs: number;
  /** No LLM token after this long gets a filler. */
  llmAfterMs: number;
  /** While the wait continues, another filler after this long. */
  repeatMs: number;
  maxPerTurn: number;
}

export const FILLER_TIMING: FillerTiming = { toolAfterMs: 500, llmAfterMs: 1_200, repeatMs: 4_000, maxPerTurn: 2 };

const NEGATIVE = /\b(no|not|never|don'?t|can'?t|won'?t|problem|wrong|bad|angry|upset|cancel|complain\w*|refund|terrible|awful|late|broken)\b/i;
const POSITIVE = /\b(yes|yeah|great|good|perfect|thanks?|thank you|wonderful|excellent|awesome|love|sure|fine)\b/i;
const QUESTION = /\?\s*$|^\s*(what|when|where|who|why|how|which|can|could|would|will|do|does|did|is|are|am)\b/i;

/** The mood of a filler answering the caller's last words. */
export function moodOf(callerText: string | null): FillerMood {
  if (!callerText) return 'neutral';
  if (QUESTION.test(callerText)) return 'question';
  if (NEGATIVE.test(callerText)) return 'negative';
  if (POSITIVE.test(callerText)) return 'positive';
  return 'neutral';
}

/** Picks phrases from the assistant's lists, rotating within each list. */
export class FillerPicker {
  private readonly next = new Map<string, number>();
  private last: string | null = null;

  constructor(private readonly config: FillerConfig) {}

  pick(mood: FillerMood): string {
    const { key, list } = this.listFor(mood);
    let i = this.next.get(key) ?? 0;
    let phrase = list[i % list.length]!;
    if (phrase === this.last && list.length > 1) phrase = list[++i % list.length]!;
    this.next.set(key, i + 1);
    this.last = phrase;
    return phrase;
  }

  /** The list a mood speaks from, and which list that is (its rotation is shared by the moods falling back to it). */
  private listFor(mood: FillerMood): { key: string; list: readonly string[] } {
    const usable = (l: string[] | undefined) => (l ?? []).map((s) => s.trim()).filter((s) => s !== '');
    const own = usable(this.config[mood]);
    if (own.length > 0) return { key: mood, list: own };
    const neutral = usable(this.config.neutral);
    if (neutral.length > 0) return { key: 'neutral', list: neutral };
    return { key: `default:${mood}`, list: DEFAULT_FILLERS[mood] };
  }
}

/**
 * Watches one wait at a time (a tool call, the LLM's first token) and says a filler when it
 * lasts too long. Disabled (`fillers` off) it never fires.
 */
export class FillerScheduler {
  private timer: TimerHandle | null = null;
  private usedThisTurn = 0;
  /** The turn `follow` watches (the last one started). */
  private followed: number | null = null;
  private readonly picker: FillerPicker;

  constructor(
    private readonly enabled: boolean,
    config: FillerConfig,
    private readonly clock: Clock,
    private readonly say: (text: string, reason: FillerReason) => void,
    private readonly timing: FillerTiming = FILLER_TIMING,
  ) {
    this.picker = new FillerPicker(config);
  }

  /** A new turn: its own filler budget. */
  newTurn(): void {
    this.cancel();
    this.usedThisTurn = 0;
  }

  /**
   * A wait begins; `callerText` is what the caller said last (the mood of a slow-LLM filler).
   * `always`: a filler even with `fillers` off (the knowledge base's search: docs/decisions.md).
   */
  waiting(reason: FillerReason, callerText: string | null = null, always = false): void {
    this.cancel();
    if (!this.enabled && !always) return;
    const arm = (ms: number) => {
      this.timer = this.clock.setTimer(ms, () => {
        this.timer = null;
        if (this.usedThisTurn >= this.timing.maxPerTurn) return;
        this.usedThisTurn++;
        this.say(this.picker.pick(reason === 'tool' ? 'neutral' : moodOf(callerText)), reason);
        arm(this.timing.repeatMs);
      });
    };
    arm(reason === 'tool' ? this.timing.toolAfterMs : this.timing.llmAfterMs);
  }

  /** The wait is over (the tool answered, the first token came, the turn was cut off). */
  cancel(): void {
    this.clock.clearTimer(this.timer);
    this.timer = null;
  }

  /**
   * On an audio leg the scheduler follows the pipeline's frames: a filler while the reply's
   * first words are slow and while a mid-call tool runs (not the end-call function); the first
   * words, a tool's result or an interruption cancel it. The knowledge base's search
   * (`knowledgeFunction`) keeps its wait past its result, until the model's first words after it
   * (the caller waits for both), and speaks a filler even with `fillers` off.
   */
  follow(frame: Frame, endCallTool: string, knowledgeFunction: string | null = null): void {
    switch (frame.kind) {
      case 'turn-started':
        this.followed = frame.turn;
        this.newTurn();
        if (frame.turnKind === 'reply') this.waiting('slow-llm', frame.callerText);
        return;
      case 'tool-call':
        if (frame.name === knowledgeFunction) this.waiting('tool', null, true);
        else if (frame.name !== endCallTool) this.waiting('tool');
        return;
      case 'tool-result':
        if (frame.name !== knowledgeFunction) this.cancel();
        return;
      case 'cancel':
        // A speculative reply that was dropped (src/voice/speculation.ts) is no turn of ours.
        if (frame.turn === this.followed) this.cancel();
        return;
      case 'llm-delta':
      case 'interruption':
        this.cancel();
        return;
    }
  }
}
