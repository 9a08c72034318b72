/**
 * The assistant's 0–5 sensitivity settings as numbers the voice core uses. Both scales read
 * "higher = reacts sooner" (docs/decisions.md has the tables):
 *
 * - `interrupt_sensitivity` → how sure the VAD must be, and for how long the caller must speak,
 *   before the assistant stops talking: threshold 0.85 − 0.1·s (0.85 … 0.35), minimum speech
 *   300 − 50·s ms (300 … 50 ms; the VAD counts it in 32 ms windows, so 5 means two windows).
 *   The word rule (`min_interrupt_words`) applies on top. That is the rule of an interruption in one
 *   step (a call without speech-to-text, whose words cannot be known). With speech-to-text the
 *   interruption has two steps (interruption.ts) and the first, a pause the words may undo, follows
 *   `pauseRule`: threshold 0.6 − 0.05·s (0.6 … 0.35), minimum speech 100 − 20·s ms (100 … 0: the
 *   VAD's 32 ms windows make it 4 windows at 0, 3 at the default 0.5, 1 at 5).
 * - `endpoint_sensitivity` → the end-of-turn policy's waits (turnWaits in turn/policy.ts: after a
 *   finished sentence 300 − 20·s ms, after an open one 2000 − 160·s ms); `endpointRule` here is
 *   the STT provider's endpointing, 900 − 120·s ms (900 … 300 ms; also the policy's wait when no
 *   words came yet and the speech-to-speech model's silence), and its utterance-end fallback,
 *   twice that, at least 1000 ms (Deepgram refuses less).
 * Out-of-range or non-numeric values (the column is numeric text) are clamped to 0–5; a
 * missing one counts as the column's default.
 */
export const SENSITIVITY_MIN = 0;
export const SENSITIVITY_MAX = 5;

function level(value: number | string | null | undefined, fallback: number): number {
  const n = typeof value === 'string' ? Number(value) : value;
  if (n === null || n === undefined || !Number.isFinite(n)) return fallback;
  return Math.min(SENSITIVITY_MAX, Math.max(SENSITIVITY_MIN, n));
}

export interface BargeInRule {
  /** VAD speech probability at or above which caller audio counts as speech for barge-in. */
  vadThreshold: number;
  /** Speech must last this long before it interrupts the assistant. */
  minSpeechMs: number;
}

export function bargeInRule(interruptSensitivity: number | string | null | undefined): BargeInRule {
  const s = level(interruptSensitivity, 0.5);
  return { vadThreshold: round2(0.85 - 0.1 * s), minSpeechMs: Math.round(300 - 50 * s) };
}

/**
 * When the caller's sound pauses the assistant (the first of an interruption's two steps): sooner
 * than `bargeInRule`, because a pause costs the caller nothing when the words turn out to be a
 * backchannel or no words at all (the reply plays on where it stopped).
 */
export function pauseRule(interruptSensitivity: number | string | null | undefined): BargeInRule {
  const s = level(interruptSensitivity, 0.5);
  return { vadThreshold: round2(0.6 - 0.05 * s), minSpeechMs: Math.round(100 - 20 * s) };
}

export interface EndpointRule {
  /** VAD silence that ends the caller's turn. */
  silenceMs: number;
  /** Deepgram `endpointing` (speech_final after this silence). */
  sttEndpointingMs: number;
  /** Deepgram `utterance_end_ms` (the fallback when speech_final is dropped). */
  utteranceEndMs: number;
}

export function endpointRule(endpointSensitivity: number | string | null | undefined): EndpointRule {
  const s = level(endpointSensitivity, 0.5);
  const silenceMs = Math.round(900 - 120 * s);
  return { silenceMs, sttEndpointingMs: silenceMs, utteranceEndMs: Math.max(1000, 2 * silenceMs) };
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
