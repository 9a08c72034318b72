/**
 * End of the caller's turn decided by the end-of-turn policy (src/voice/turn/policy.ts): VAD
 * silence, the words (completeness per language), the STT's own turn events (`stt-turn`,
 * speech_final, UtteranceEnd) and, when the deployment has it, Smart Turn's probability on the
 * turn's audio. The pipeline's turn-taking stage (voice-call.ts); frames out: `end-of-turn`, then
 * `turn-started`. At default settings it waits 200 ms after a finished sentence and up to 1920 ms
 * after an open one (turnWaits in turn/policy.ts; docs/voice-settings.md).
 *
 * While the assistant holds the floor (a reply the caller did not interrupt), the caller's
 * utterance does not start a new turn, but its words are kept (caller-words.ts): they open the
 * caller's next turn, or, when the assistant's line is over and they are more than a
 * backchannel, a turn at once. `words.utteranceOpen` says whether the caller is in an utterance
 * this stage has not ended (the keypad stage holds keys pressed during it).
 *
 * `likely-over` / `resumed` go to the speculative reply (`speculation`: speculation.ts) when
 * there is one: it starts the reply early and holds it until `confirmed`.
 */
import type { Clock, TimerHandle } from '../telephony/clock.js';
import type { Frame } from './frames.js';
import type { Push, Stage, StageContext } from './pipeline.js';
import type { EndpointType, Floor } from './settings.js';
import { CallerWords } from './caller-words.js';
import type { Speculation } from './speculation.js';
import { openReply } from './turn-taking.js';
import { EndOfTurnPolicy, turnWaits, type TurnDecision } from './turn/policy.js';
import { turnSignalOf } from './turn/signals.js';
import type { SmartTurn } from './turn/smart-turn.js';
import { TurnAudio } from './turn/turn-audio.js';

export interface PolicyTurnTakingOptions {
  endpointType: EndpointType;
  /** The assistant's endpoint_sensitivity (0–5). */
  endpointSensitivity: number;
  /** The caller's language (ISO 639-1) for the word lists. */
  language: string;
  floor: Floor;
  clock: Clock;
  /** Asks the STT stream for its final transcript now. */
  finalize?: () => void;
  /** The process's Smart Turn model (TURN_MODEL_PATH), or none. */
  smartTurn?: SmartTurn | null;
  /** What the caller said or typed that no turn has taken yet (shared with the keypad stage). */
  words?: CallerWords;
  /** Words that are only a backchannel ("mhm", "okay"): held over a line, they wait for the caller's next turn. */
  isBackchannel?: (text: string) => boolean;
  /** Speculative replies on `likely-over` (speculation.ts); none: the reply starts at `confirmed`. */
  speculation?: Speculation;
}

export class PolicyTurnTakingStage implements Stage {
  readonly name = 'turn-taking';
  private readonly policy: EndOfTurnPolicy;
  private turnAudio: TurnAudio | null = null;
  private timer: TimerHandle | null = null;
  private push: Push = () => undefined;
  private ctx: StageContext | null = null;
  private closed = false;
  private inSpeech = false;
  private readonly words: CallerWords;

  constructor(private readonly options: PolicyTurnTakingOptions) {
    this.words = options.words ?? new CallerWords();
    this.policy = new EndOfTurnPolicy({
      endpointType: options.endpointType,
      language: options.language,
      waits: turnWaits(options.endpointSensitivity),
      audioModel: Boolean(options.smartTurn),
    });
  }

  start(ctx: StageContext, push: Push): void {
    this.ctx = ctx;
    this.push = push;
  }

  process(frame: Frame, push: Push): void {
    push(frame);
    if (this.closed) return;
    this.observe(frame);
    this.syncOpen();
  }

  /** The caller is in an utterance this stage has not ended: speaking, words so far, or a decision still to come. */
  private syncOpen(): void {
    this.words.utteranceOpen = !this.closed && (this.inSpeech || this.policy.text !== '' || this.policy.nextDeadline() !== null);
  }

  private observe(frame: Frame): void {
    const now = this.options.clock.now();
    switch (frame.kind) {
      case 'audio-in':
        if (this.options.smartTurn) (this.turnAudio ??= new TurnAudio(frame.sampleRate)).push(frame.samples);
        return;
      case 'customer-said':
        // Words the leg knows for sure end the turn at once.
        this.policy.reset();
        this.options.speculation?.drop('customer-said');
        this.turnAudio?.endTurn();
        this.reschedule();
        this.endTurn(frame.text.trim(), frame.at, frame.at);
        return;
      case 'playback-done': {
        // The assistant's line is over (sent back up by the output stage): what the caller said
        // over it, when more than a backchannel, is a turn now; a backchannel waits for the next.
        const o = this.options;
        this.syncOpen();
        if (!o.floor.assistantSpeaking && !this.words.utteranceOpen && this.words.holding && !o.isBackchannel?.(this.words.heldText)) {
          this.endTurn('', frame.at, frame.at);
        }
        return;
      }
      case 'hang-up':
        this.close();
        return;
      case 'speech-started':
        this.inSpeech = true;
        this.turnAudio?.speechStarted();
        break;
      case 'speech-stopped':
        this.inSpeech = false;
        break;
    }
    const signal = turnSignalOf(frame);
    if (signal) this.apply(this.policy.handle(signal, now));
  }

  private endTurn(text: string, endOfSpeechAt: number, at: number): void {
    this.turnAudio?.endTurn();
    openReply(this.ctx!, this.push, this.options.floor, text, endOfSpeechAt, at, this.words, this.options.speculation);
  }

  private apply(decisions: TurnDecision[]): void {
    if (this.closed) return;
    const wasOpen = this.words.utteranceOpen;
    for (const d of decisions) {
      switch (d.type) {
        case 'finalize':
          this.options.finalize?.();
          break;
        case 'analyze-audio':
          this.analyze(d.speechEndAt);
          break;
        case 'likely-over':
          this.ctx!.log.debug({ decision: d.type, at: d.at, probability: d.probability }, 'end of turn');
          // Only a turn that would open a reply: not while the assistant holds the floor.
          if (!this.options.floor.assistantSpeaking) this.options.speculation?.start(this.ctx!, this.words.preview(d.text));
          break;
        case 'resumed':
          this.ctx!.log.debug({ decision: d.type, at: d.at, why: d.why }, 'end of turn');
          this.options.speculation?.drop(`resumed-${d.why}`);
          break;
        case 'confirmed':
          this.endTurn(d.text, d.endOfSpeechAt, d.at);
          break;
      }
    }
    this.reschedule();
    this.syncOpen();
    // The policy gave up on an utterance without words (a cough, a word the STT never finalized):
    // keys pressed during it, which waited for its words, are the caller's turn now.
    if (wasOpen && !this.words.utteranceOpen && !decisions.some((d) => d.type === 'confirmed') && this.words.holding) {
      this.endTurn('', this.options.clock.now(), this.options.clock.now());
    }
  }

  /** Smart Turn on the turn's audio, off the event loop; its answer goes back into the policy. */
  private analyze(speechEndAt: number): void {
    const model = this.options.smartTurn;
    const audio = this.turnAudio?.segment();
    if (!model || !audio || audio.length === 0) return;
    model.predict(audio).then(
      (r) => this.apply(this.policy.handle({ type: 'audio-model', probability: r.probability, speechEndAt }, this.options.clock.now())),
      (err: unknown) => this.ctx?.log.debug({ err }, 'Smart Turn gave no answer; the turn is judged without it'),
    );
  }

  private reschedule(): void {
    const clock = this.options.clock;
    clock.clearTimer(this.timer);
    this.timer = null;
    const due = this.policy.nextDeadline();
    if (due === null || this.closed) return;
    this.timer = clock.setTimer(Math.max(0, due - clock.now()), () => {
      this.timer = null;
      this.apply(this.policy.tick(clock.now()));
    });
  }

  close(): void {
    this.closed = true;
    this.words.utteranceOpen = false;
    this.options.speculation?.drop('closed');
    this.options.clock.clearTimer(this.timer);
    this.timer = null;
  }
}
