/**
 * End of the caller's turn decided by the end-of-turn policy (src/voice/turn/policy.ts): VAD
 * silence, the words (completeness per language), the STT's own turn events (`stt-turn`,
 * speech_final, UtteranceEnd) and, when the deployment has it, Smart Turn's probability on the
 * turn's audio. A drop-in for TurnTakingStage (same place in the pipeline, same frames out:
 * `end-of-turn`, then `turn-started`); not chosen by the factory yet — flipping that changes the
 * waits at default settings (290 ms after a finished sentence instead of 840 ms, up to 1920 ms
 * after an open one) and the timing tests with them (docs/architecture.md, "Switching the policy on").
 *
 * `likely-over` / `resumed` are logged only, until a speculative-reply stage takes them.
 */
import type { Clock, TimerHandle } from '../telephony/clock.js';
import type { Frame } from './frames.js';
import type { Push, Stage, StageContext } from './pipeline.js';
import type { EndpointType, Floor } from './settings.js';
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
}

export class PolicyTurnTakingStage implements Stage {
  readonly name = 'turn-taking';
  private readonly policy: EndOfTurnPolicy;
  private turnAudio: TurnAudio | null = null;
  private timer: TimerHandle | null = null;
  private push: Push = () => undefined;
  private ctx: StageContext | null = null;
  private closed = false;

  constructor(private readonly options: PolicyTurnTakingOptions) {
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
    const now = this.options.clock.now();
    switch (frame.kind) {
      case 'audio-in':
        if (this.options.smartTurn) (this.turnAudio ??= new TurnAudio(frame.sampleRate)).push(frame.samples);
        return;
      case 'customer-said':
        // Words the leg knows for sure end the turn at once.
        this.policy.reset();
        this.turnAudio?.endTurn();
        this.reschedule();
        openReply(this.ctx!, this.push, this.options.floor, frame.text.trim(), frame.at, frame.at);
        return;
      case 'hang-up':
        this.close();
        return;
      case 'speech-started':
        this.turnAudio?.speechStarted();
        break;
    }
    const signal = turnSignalOf(frame);
    if (signal) this.apply(this.policy.handle(signal, now));
  }

  private apply(decisions: TurnDecision[]): void {
    if (this.closed) return;
    for (const d of decisions) {
      switch (d.type) {
        case 'finalize':
          this.options.finalize?.();
          break;
        case 'analyze-audio':
          this.analyze(d.speechEndAt);
          break;
        case 'likely-over':
        case 'resumed':
          this.ctx!.log.debug({ decision: d.type, at: d.at }, 'end of turn');
          break;
        case 'confirmed':
          this.turnAudio?.endTurn();
          openReply(this.ctx!, this.push, this.options.floor, d.text, d.endOfSpeechAt, d.at);
          break;
      }
    }
    this.reschedule();
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
    this.options.clock.clearTimer(this.timer);
    this.timer = null;
  }
}
