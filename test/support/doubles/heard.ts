/**
 * What a person on a Twilio double's call heard, as utterances named after the clip each one
 * matches (null: none matched): the heard audio is cut by energy (EnergySegmenter) and each
 * piece correlated with the clips the speech doubles spoke.
 *
 * Gaps shorter than `underrunMs` between pieces of heard audio are closed first. On a loaded
 * machine (the service and the double share one event loop in tests) the double's play-out can
 * run dry for a frame or two; such an underrun is a stall of the test process, not a missing
 * word, and would otherwise tear a sentence's envelope apart. Real pauses (between turns, while
 * the caller speaks) are far longer and stay.
 */
import { EnergySegmenter, type ClipBook } from './clips.js';
import type { StreamPerson } from './twilio-media.js';

export interface HeardUtterance {
  text: string | null;
  startMs: number;
  endMs: number;
}

const RATE = 8000;

/** The heard audio with underrun gaps closed; later audio moves earlier by the gaps removed. */
export function heardWithoutUnderruns(person: StreamPerson, underrunMs = 200): Int16Array {
  const pieces: Array<{ at: number; samples: Int16Array }> = [];
  let shift = 0;
  let end = -Infinity;
  for (const seg of person.heard) {
    const at = Math.round((seg.atMs / 1000) * RATE);
    const gap = at - end;
    if (gap > 0 && gap < (underrunMs / 1000) * RATE) shift += gap;
    pieces.push({ at: at - shift, samples: seg.samples });
    end = at + seg.samples.length;
  }
  const last = pieces.at(-1);
  const out = new Int16Array(last ? last.at + last.samples.length : 0);
  for (const p of pieces) out.set(p.samples, p.at);
  return out;
}

export function heardUtterances(person: StreamPerson, clips: ClipBook, underrunMs = 200): HeardUtterance[] {
  const segmenter = new EnergySegmenter(RATE);
  const utterances = segmenter.push(heardWithoutUnderruns(person, underrunMs)).flatMap((e) => (e.type === 'end' ? [e.utterance] : []));
  const last = segmenter.flush();
  if (last) utterances.push(last);
  return utterances.map((u) => ({ text: clips.matchAudio(u.samples, RATE)?.text ?? null, startMs: u.startMs, endMs: u.endMs }));
}
