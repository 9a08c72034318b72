/**
 * The two frame kinds the end-of-turn signals add to the voice pipeline, and the one mapping
 * from pipeline frames to the policy's signals (policy.ts). Defined here, beside the policy, so
 * this folder stays a leaf while the pipeline's frame union moves; the pipeline adds these two
 * shapes to its `Frame` union when it wires the policy in (docs/architecture.md, "Switching the policy on").
 *
 * - `stt-turn`: a turn event of a turn-detecting STT (Deepgram Flux `TurnInfo`), made by the STT
 *   stage from the provider's `{type: 'turn'}` event. Caller-side: never dropped for a cancelled turn.
 * - `turn-model`: the audio turn model's answer (Smart Turn v3) for one end of speech, made by
 *   whoever ran the model on the policy's `analyze-audio` request.
 */
import type { ProviderTurnEvent, TurnSignal } from './policy.js';

export interface SttTurnFrame {
  kind: 'stt-turn';
  turn: number;
  event: ProviderTurnEvent;
  /** The whole turn's transcript so far. */
  text: string;
  /** The provider's end-of-turn confidence (0–1). */
  confidence: number;
  /** Why an `end` came: `model`, `manual` (after finalize), `timeout`. */
  trigger?: string;
  at: number;
}

export interface TurnModelFrame {
  kind: 'turn-model';
  turn: number;
  /** Probability that the caller's turn is complete. */
  probability: number;
  /** The end of speech the audio ran up to (the policy drops answers for older ones). */
  speechEndAt: number;
  at: number;
}

/** The frames the policy reads, by the fields it reads (the pipeline's frames of these kinds fit). */
type Readable =
  | { kind: 'speech-started'; at: number }
  | { kind: 'speech-stopped'; at: number }
  | { kind: 'transcript'; text: string; final: boolean; speechFinal: boolean }
  | { kind: 'utterance-end' }
  | SttTurnFrame
  | TurnModelFrame;

/** The policy's signal for a pipeline frame, or null for frames it does not read. */
export function turnSignalOf(frame: { kind: string }): TurnSignal | null {
  const f = frame as Readable;
  switch (f.kind) {
    case 'speech-started':
      return { type: 'speech-started', at: f.at };
    case 'speech-stopped':
      return { type: 'speech-stopped', at: f.at };
    case 'transcript':
      return { type: 'transcript', text: f.text, final: f.final, speechFinal: f.speechFinal };
    case 'utterance-end':
      return { type: 'utterance-end' };
    case 'stt-turn':
      return { type: 'provider-turn', event: f.event, text: f.text, confidence: f.confidence };
    case 'turn-model':
      return { type: 'audio-model', probability: f.probability, speechEndAt: f.speechEndAt };
    default:
      return null;
  }
}
