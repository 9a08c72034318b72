/**
 * Per-turn timings from the frame stream: a pass-through stage at the tail of the pipeline that
 * stamps the call's `TurnTracker` (src/calls/turns.ts), which hands each finished turn to its
 * `TurnRecorder` (the database one in the engine). The stages themselves know nothing of turn
 * records: the caller's end of speech, the final transcript, the LLM's first token, the TTS's
 * first byte, the first audio frame sent, barge-ins, fillers and the model's function calls with
 * their answers are all visible as frames.
 */
import type { TurnError, TurnLog } from './ports.js';
import type { Frame, TurnId } from './frames.js';
import type { Push, Stage } from './pipeline.js';

export class TurnRecordingStage implements Stage {
  readonly name = 'turn-recording';
  /** Tracker positions of our turns (the tracker numbers turns itself). */
  private readonly positions = new Map<TurnId, number>();
  /** Turns whose text comes with their audio (`tts-text`: speech-to-speech), not from `speak`. */
  private readonly textWithAudio = new Set<TurnId>();
  /** The last end of turn (its `at` is when the final transcript was there). */
  private lastEndOfTurn: { turn: TurnId; at: number } | null = null;
  /** Function calls the model made that have no result yet, by call id. */
  private readonly calling = new Map<string, { name: string; arguments: string; at: number }>();

  constructor(private readonly tracker: TurnLog) {}

  process(frame: Frame, push: Push): void {
    this.observe(frame);
    push(frame);
  }

  private observe(frame: Frame): void {
    const t = this.tracker;
    switch (frame.kind) {
      case 'end-of-turn':
        // The words of a reply already under way (speech-to-speech): they join that turn.
        if (frame.late) {
          if (this.positions.get(frame.turn) === t.current) {
            t.callerSaid(frame.text);
            t.stage('finalTranscript', frame.at);
          }
          return;
        }
        this.lastEndOfTurn = { turn: frame.turn, at: frame.at };
        return;
      case 'turn-started': {
        const position = t.begin(frame.turnKind, frame.callerText, frame.at);
        this.positions.set(frame.turn, position);
        if (frame.turnKind === 'reply' && this.lastEndOfTurn) t.stage('finalTranscript', this.lastEndOfTurn.at);
        this.lastEndOfTurn = null;
        return;
      }
      case 'hang-up':
        t.finish();
        return;
      case 'error':
        // A provider's failure says why a stage never came: on the turn it broke, whichever it is
        // (a caller-side failure carries the current turn, not necessarily the tracker's).
        if (isProviderStage(frame.stage)) t.error({ stage: frame.stage, message: frame.message });
        return;
    }
    // Everything below belongs to the tracker's open turn, and only when that is this frame's turn.
    if (this.positions.get(frame.turn) !== t.current) return;
    switch (frame.kind) {
      case 'llm-delta':
      case 'llm-done':
        t.stage('llmFirstToken', frame.at);
        return;
      case 'tool-call':
        t.stage('llmFirstToken', frame.at);
        this.calling.set(frame.id, { name: frame.name, arguments: frame.arguments, at: frame.at });
        return;
      case 'tool-result': {
        const call = this.calling.get(frame.id);
        this.calling.delete(frame.id);
        t.toolCall({ at: call?.at ?? frame.at, name: frame.name, arguments: call?.arguments ?? '', ok: frame.ok, answer: frame.content, durationMs: Math.max(0, Math.round(frame.at - (call?.at ?? frame.at))) });
        return;
      }
      case 'speak':
        if (frame.source !== 'filler') t.assistantSaid(frame.text);
        return;
      case 'tts-text':
        this.textWithAudio.add(frame.turn);
        return;
      case 'tts-spoken':
        if (this.textWithAudio.has(frame.turn)) t.assistantSaid(frame.text);
        return;
      case 'tts-audio':
        t.stage('ttsFirstByte', frame.at);
        return;
      case 'audio-out':
        t.stage('firstAudio', frame.at);
        return;
      case 'filler':
        t.filler(frame.text, frame.reason, frame.at);
        return;
      case 'knowledge':
        t.knowledge(frame.lookup);
        return;
      case 'interruption':
        t.bargeIn(frame.heardText, frame.at);
        t.finish({ interrupted: true, heardText: frame.heardText, position: this.positions.get(frame.turn) });
        this.textWithAudio.delete(frame.turn);
        return;
      case 'playback-done':
        t.finish({ position: this.positions.get(frame.turn) });
        this.textWithAudio.delete(frame.turn);
        return;
    }
  }
}

/** The stages that are a provider (the stages' own names; see stt.ts, llm.ts, tts.ts). */
export function isProviderStage(stage: string): stage is TurnError['stage'] {
  return stage === 'stt' || stage === 'llm' || stage === 'tts';
}
