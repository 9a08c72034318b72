/**
 * Reports each finished turn's stage timings to the process's metrics and, when tracing is
 * on, as spans under the call's span (issue 18): one span per stage, from the previous
 * stage's moment to its own — caller's end of speech → final transcript (`stt`) → LLM's first
 * token (`llm`) → TTS's first byte (`tts`) → first audio frame sent (`playout`). Wraps the
 * call's real recorder, so the conversation code stamps its `TurnTracker` as before.
 */
import type { TurnMetrics } from '../observability/metrics.js';
import type { TraceSpan, Tracing } from '../observability/tracing.js';
import type { TurnRecord, TurnRecorder, TurnStage } from './turns.js';

const SPAN_OF_STAGE: Record<TurnStage, string> = {
  finalTranscript: 'stt',
  llmFirstToken: 'llm',
  ttsFirstByte: 'tts',
  firstAudio: 'playout',
};
const ORDER: TurnStage[] = ['finalTranscript', 'llmFirstToken', 'ttsFirstByte', 'firstAudio'];

export interface TurnTelemetry {
  metrics?: TurnMetrics;
  tracing?: Tracing;
  /** The call's span; stage spans become its grandchildren (call → turn → stage). */
  callSpan?: TraceSpan;
}

export function observeTurns(inner: TurnRecorder, telemetry: TurnTelemetry): TurnRecorder {
  const { metrics, tracing, callSpan } = telemetry;
  if (!metrics && !(tracing && callSpan)) return inner;
  return {
    record(turn: TurnRecord): void {
      inner.record(turn);
      for (const stage of ORDER) {
        const ms = turn.timings[stage];
        if (ms !== null) metrics?.turnStage(stage, ms);
      }
      if (tracing && callSpan) traceTurn(tracing, callSpan, turn);
    },
    flush: () => inner.flush(),
  };
}

function traceTurn(tracing: Tracing, callSpan: TraceSpan, turn: TurnRecord): void {
  const stamps = ORDER.filter((s) => turn.timings[s] !== null);
  const endMs = Math.max(0, ...stamps.map((s) => turn.timings[s]!));
  const span = tracing.child(callSpan, `turn ${turn.kind}`, { 'switchboard.turn.position': turn.position, 'switchboard.turn.interrupted': turn.interrupted }, turn.startedAt);
  let previous = 0;
  for (const stage of stamps) {
    const at = turn.timings[stage]!;
    // A speculative reply's first token can come before the final transcript (src/voice/speculation.ts):
    // its span then starts where it ends rather than after the transcript's (never a negative span).
    const child = tracing.child(span, SPAN_OF_STAGE[stage], { 'switchboard.turn.stage': stage, 'switchboard.turn.stage_ms': at }, turn.startedAt + Math.min(previous, at));
    child.end(turn.startedAt + at);
    previous = Math.max(previous, at);
  }
  span.end(turn.startedAt + endMs);
}
