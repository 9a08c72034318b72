/**
 * End of the caller's turn. Collects the caller's transcript of the current utterance and
 * decides when the caller is done (`end-of-turn`), then opens the assistant's reply turn
 * (`turn-started`):
 *
 * - endpoint_type `vad`: after the VAD's end of speech plus the silence from
 *   endpoint_sensitivity. When no final transcript is there yet, the STT stream is asked to
 *   finalize and the turn ends when its final arrives (or, after `finalWaitMs`, on the interim).
 * - endpoint_type `ai`: on the STT provider's `speech_final`; when the provider drops it, its
 *   `UtteranceEnd` ends the turn instead.
 * - Words the leg knows for sure (`customer-said`, the sandbox) end the turn at once.
 *
 * While the assistant holds the floor (a reply the caller did not interrupt), the caller's
 * utterance does not start a new turn, but its words are kept (caller-words.ts): they open the
 * caller's next turn, or, when the assistant's line is over and they are more than a
 * backchannel, a turn at once.
 */
import type { Clock, TimerHandle } from '../telephony/clock.js';
import type { Frame } from './frames.js';
import type { Push, Stage, StageContext } from './pipeline.js';
import type { EndpointType, Floor } from './settings.js';
import { CallerWords } from './caller-words.js';

export interface TurnTakingOptions {
  endpointType: EndpointType;
  /** Silence after the end of speech before the turn ends (endpoint_type vad). */
  endpointMs: number;
  floor: Floor;
  clock: Clock;
  /** Asks the STT stream for its final transcript now. */
  finalize?: () => void;
  /** How long to wait for a final transcript after asking for it. */
  finalWaitMs?: number;
  /** What the caller said or typed that no turn has taken yet (shared with the keypad stage). */
  words?: CallerWords;
  /** Words that are only a backchannel ("mhm", "okay"): held over a line, they wait for the caller's next turn. */
  isBackchannel?: (text: string) => boolean;
}

export class TurnTakingStage implements Stage {
  readonly name = 'turn-taking';
  private finals: string[] = [];
  private interim = '';
  private inSpeech = false;
  private endOfSpeechAt: number | null = null;
  private timer: TimerHandle | null = null;
  private awaitingFinal = false;
  private push: Push = () => undefined;
  private ctx: StageContext | null = null;
  private readonly words: CallerWords;

  constructor(private readonly options: TurnTakingOptions) {
    this.words = options.words ?? new CallerWords();
  }

  start(ctx: StageContext, push: Push): void {
    this.ctx = ctx;
    this.push = push;
  }

  process(frame: Frame, push: Push, ctx: StageContext): void {
    push(frame);
    this.observe(frame, ctx);
    this.syncOpen();
  }

  /** The caller is in an utterance this stage has not ended: speaking, words so far, or the VAD endpoint still to come. */
  private syncOpen(): void {
    this.words.utteranceOpen = this.inSpeech || this.finals.length > 0 || this.interim !== '' || this.timer !== null;
  }

  private observe(frame: Frame, ctx: StageContext): void {
    const o = this.options;
    switch (frame.kind) {
      case 'speech-started':
        this.inSpeech = true;
        this.endOfSpeechAt = null;
        this.clearTimer();
        return;
      case 'speech-stopped':
        this.inSpeech = false;
        this.endOfSpeechAt = frame.at;
        if (o.endpointType === 'vad') {
          this.clearTimer();
          const wait = Math.max(0, o.endpointMs - (o.clock.now() - frame.at));
          this.timer = o.clock.setTimer(wait, () => this.vadEndpoint());
        }
        return;
      case 'transcript':
        if (frame.final) {
          if (frame.text.trim() !== '') this.finals.push(frame.text.trim());
          this.interim = '';
        } else this.interim = frame.text.trim();
        if (o.endpointType === 'ai' && frame.speechFinal) this.endTurn(frame.at);
        else if (this.awaitingFinal && frame.final) this.endTurn(frame.at);
        return;
      case 'utterance-end':
        // speech_final was dropped (or never sent): the provider's word gap ends the turn.
        if (o.endpointType === 'ai') this.endTurn(frame.at);
        else if (this.awaitingFinal) this.endTurn(frame.at);
        return;
      case 'customer-said':
        this.finals = [frame.text.trim()];
        this.interim = '';
        this.endTurn(frame.at);
        return;
      case 'playback-done':
        // The assistant's line is over (sent back up by the output stage): what the caller said
        // over it, when more than a backchannel, is a turn now; a backchannel waits for the next.
        if (!o.floor.assistantSpeaking && !this.words.utteranceOpen && this.words.holding && !o.isBackchannel?.(this.words.heldText)) {
          this.endTurn(frame.at);
        }
        return;
      case 'hang-up':
        this.clearTimer();
        return;
      default:
        void ctx;
    }
  }

  private vadEndpoint(): void {
    this.timer = null;
    if (this.inSpeech) return;
    if (this.finals.length > 0) {
      this.endTurn(this.options.clock.now());
      return;
    }
    // The transcript lags the audio: ask for it and wait a little.
    this.awaitingFinal = true;
    this.options.finalize?.();
    this.timer = this.options.clock.setTimer(this.options.finalWaitMs ?? 1500, () => {
      this.timer = null;
      this.endTurn(this.options.clock.now());
    });
  }

  private endTurn(at: number): void {
    this.clearTimer();
    this.awaitingFinal = false;
    const text = [...this.finals, this.interim].filter((t) => t !== '').join(' ');
    const endOfSpeechAt = this.endOfSpeechAt ?? at;
    this.finals = [];
    this.interim = '';
    this.endOfSpeechAt = null;
    this.syncOpen();
    openReply(this.ctx!, this.push, this.options.floor, text, endOfSpeechAt, at, this.words);
  }

  private clearTimer(): void {
    this.options.clock.clearTimer(this.timer);
    this.timer = null;
  }

  close(): void {
    this.clearTimer();
  }
}

/**
 * The caller's turn is over with `text`: `end-of-turn`, then the assistant's reply turn opens
 * (`turn-started`). While the assistant holds the floor (a reply the caller did not interrupt)
 * no turn opens, but the words are kept in `words` (caller-words.ts) for the caller's next turn;
 * held words and keys open that turn, before its own words. Nothing when nothing was heard.
 */
export function openReply(ctx: StageContext, push: Push, floor: Floor, text: string, endOfSpeechAt: number, at: number, words?: CallerWords): void {
  if (floor.assistantSpeaking) {
    if (text === '') return;
    // The words are the caller's personal data (the call's transcript has them): the length only.
    ctx.log.debug({ chars: text.length }, 'caller spoke over the assistant without interrupting; the words wait for their turn');
    words?.hold(text);
    return;
  }
  const said = words ? words.take(text) : text;
  if (said === '') return;
  push({ kind: 'end-of-turn', turn: ctx.turns.current, text: said, endOfSpeechAt, at });
  const turn = ctx.turns.begin();
  floor.assistantTakes(turn);
  push({ kind: 'turn-started', turn, turnKind: 'reply', callerText: said, at: endOfSpeechAt });
}
