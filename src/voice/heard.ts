/**
 * What the caller heard of a turn's playout (output.ts): whole pieces whose playout finished (or
 * whose mark came back), then the played fraction of the next, proportional by characters and cut
 * back to a whole word; and how long they heard it.
 */
import type { Piece } from './playout.js';

/** Text heard of `pieces` by `now` (`rate`: the leg's sample rate). */
export function heardTextOf(pieces: Piece[], rate: number, now: number): string {
  const parts: string[] = [];
  for (const piece of pieces) {
    const total = (piece.samples / rate) * 1000;
    const played = piece.playout.reduce((sum, f) => sum + Math.min(f.ms, Math.max(0, now - f.start)), 0);
    if (piece.confirmed || (piece.complete && total > 0 && played >= total - 1)) {
      parts.push(piece.text.trim());
      continue;
    }
    if (played > 0 && total > 0) parts.push(prefixOf(piece.text.trim(), played / total));
    break;
  }
  return parts.filter((t) => t !== '').join(' ');
}

/** Milliseconds of `pieces` played by `now`, rounded. */
export function heardMsOf(pieces: Piece[], now: number): number {
  return Math.round(pieces.reduce((sum, piece) => sum + piece.playout.reduce((s, f) => s + Math.min(f.ms, Math.max(0, now - f.start)), 0), 0));
}

/** The first `fraction` of `text`, cut back to a whole word. */
export function prefixOf(text: string, fraction: number): string {
  if (fraction >= 1) return text;
  const cut = Math.floor(text.length * Math.max(0, fraction));
  if (cut >= text.length) return text;
  const head = text.slice(0, cut);
  // A word counts as heard only once it is heard to its end.
  const atBoundary = /\s/.test(text[cut] ?? ' ');
  const words = head.trimEnd();
  if (atBoundary) return words;
  const lastSpace = words.lastIndexOf(' ');
  return lastSpace < 0 ? '' : words.slice(0, lastSpace).trimEnd();
}

/** What the caller did not hear of frames handed out by `now` is no longer theirs (a pause took it back). */
export function cutPlayoutAt(pieces: Piece[], now: number): void {
  for (const piece of pieces) {
    piece.playout = piece.playout.filter((f) => f.start < now);
    const last = piece.playout.at(-1);
    if (last && last.start + last.ms > now) last.ms = now - last.start;
  }
}
