/**
 * Turn-taking settings as the voice core's stages use them (the sensitivity tables are in
 * sensitivity.ts), and the floor: who is speaking.
 */
export type EndpointType = 'vad' | 'ai';

export interface TurnTakingSettings {
  endpointType: EndpointType;
  /** 0–5 (sensitivity.ts): higher ends the caller's turn after a shorter silence. */
  endpointSensitivity: number;
  /** 0–5 (sensitivity.ts): higher lets quieter or shorter speech cut the assistant off. */
  interruptSensitivity: number;
  allowInterruptions: boolean;
  /** 0 = off; else an interruption needs this many words in the caller's (interim) transcript. */
  minInterruptWords: number;
  /** `backchannel_words`: words of the assistant's own that, said over it, never interrupt (with its language's list). */
  backchannelWords?: readonly string[];
}

/** VAD speech threshold while the caller has the floor (Silero's recommended default); barge-in uses `bargeInRule` (sensitivity.ts). */
export const SPEECH_THRESHOLD = 0.5;

/**
 * Who holds the floor: the assistant from the start of one of its turns until its playback is
 * done or the turn is cancelled. Written by the stages that open and finish turns, read by
 * the ones that decide on interruptions and thresholds.
 */
export class Floor {
  private turn: number | null = null;

  assistantTakes(turn: number): void {
    this.turn = turn;
  }

  /** The assistant's turn `turn` is over (played out or cancelled). */
  assistantDone(turn: number): void {
    if (this.turn === turn) this.turn = null;
  }

  get assistantTurn(): number | null {
    return this.turn;
  }

  get assistantSpeaking(): boolean {
    return this.turn !== null;
  }
}
