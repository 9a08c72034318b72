/**
 * Sentence aggregator: the LLM's text deltas become `speak` pieces at sentence boundaries, so
 * text-to-speech starts on the first sentence instead of after the whole reply. What is left at
 * the end of an LLM round (or before a tool call) is spoken as it is.
 */
import type { Frame, TurnId } from './frames.js';
import type { Push, Stage } from './pipeline.js';

/** End of a sentence: terminal punctuation (and closing quotes/brackets) followed by white space. */
const BOUNDARY = /[.!?…]+["'”’)\]]*\s+/g;
/** Pieces shorter than this wait for more text ("Dr. Smith", "1. …" stay whole). */
const MIN_PIECE = 4;

export class SentenceAggregator implements Stage {
  readonly name = 'sentences';
  private readonly buffers = new Map<TurnId, string>();

  process(frame: Frame, push: Push): void {
    switch (frame.kind) {
      case 'llm-delta': {
        push(frame);
        let buffer = (this.buffers.get(frame.turn) ?? '') + frame.text;
        for (;;) {
          const piece = nextSentence(buffer);
          if (!piece) break;
          buffer = buffer.slice(piece.end);
          push({ kind: 'speak', turn: frame.turn, text: piece.text, source: 'llm', at: frame.at });
        }
        this.buffers.set(frame.turn, buffer);
        return;
      }
      case 'llm-done':
      case 'tool-call':
        this.flush(frame.turn, frame.at, push);
        push(frame);
        return;
      case 'cancel':
        this.buffers.delete(frame.turn);
        push(frame);
        return;
      default:
        push(frame);
    }
  }

  private flush(turn: TurnId, at: number, push: Push): void {
    const rest = (this.buffers.get(turn) ?? '').trim();
    this.buffers.delete(turn);
    if (rest !== '') push({ kind: 'speak', turn, text: rest, source: 'llm', at });
  }
}

export function nextSentence(buffer: string): { text: string; end: number } | null {
  BOUNDARY.lastIndex = 0;
  for (let m = BOUNDARY.exec(buffer); m; m = BOUNDARY.exec(buffer)) {
    const end = m.index + m[0].length;
    const text = buffer.slice(0, end).trim();
    if (text.length >= MIN_PIECE) return { text, end };
  }
  return null;
}
