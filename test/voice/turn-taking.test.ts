/**
 * Caller-side stages as sequences of frames on a virtual clock: the VAD stage on audio, the
 * end of turn for endpoint_type vad and ai (including a dropped speech_final), and barge-in
 * under allow_interruptions / min_interrupt_words.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { concat, silence } from '../../src/audio/pcm.js';
import type { Frame } from '../../src/voice/frames.js';
import { InterruptionStage } from '../../src/voice/interruption.js';
import { Pipeline } from '../../src/voice/pipeline.js';
import { Floor, type EndpointType } from '../../src/voice/settings.js';
import { TurnTakingStage } from '../../src/voice/turn-taking.js';
import { EnergyVad, VadStage } from '../../src/voice/vad.js';
import { FakeClock } from '../../src/telephony/clock.js';

const log = pino({ level: 'silent' });
const RATE = 8000;

/** A voiced sound: a 140 Hz fundamental with harmonics, loud like speech on a phone line. */
function voiced(ms: number): Int16Array {
  const n = Math.round((ms / 1000) * RATE);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) {
    const t = i / RATE;
    out[i] = Math.round(6000 * Math.sin(2 * Math.PI * 140 * t) + 3000 * Math.sin(2 * Math.PI * 280 * t) + 1500 * Math.sin(2 * Math.PI * 560 * t));
  }
  return out;
}

function summary(frames: Frame[]): string[] {
  return frames
    .filter((f) => f.kind !== 'audio-in')
    .map((f) => {
      switch (f.kind) {
        case 'end-of-turn':
          return `end-of-turn#${f.turn}:${f.text}@${f.at}`;
        case 'turn-started':
          return `turn-started#${f.turn}:${f.callerText}@${f.at}`;
        case 'cancel':
          return `cancel#${f.turn}:${f.reason}`;
        case 'transcript':
          return `transcript:${f.text}`;
        default:
          return `${f.kind}#${f.turn}@${f.at}`;
      }
    });
}

describe('VadStage', () => {
  it('reports speech onset and end on audio, at 20 ms resolution', async () => {
    const clock = new FakeClock();
    const vad = new VadStage({ model: new EnergyVad(RATE), inputRate: RATE, threshold: () => 0.5 });
    const p = new Pipeline([vad], { clock, log });
    const out: Frame[] = [];
    p.onOutput((f) => out.push(f));
    const audio = concat([silence(500, RATE), voiced(600), silence(800, RATE)]);
    for (let i = 0; i < audio.length; i += 160) {
      await clock.advance(20);
      p.push({ kind: 'audio-in', turn: p.turns.current, samples: audio.subarray(i, i + 160), sampleRate: RATE, at: clock.now() });
    }
    // Speech begins in the chunk ending at 520 ms; 90 ms of it starts the utterance.
    expect(summary(out)).toEqual(['speech-started#0@600', 'speech-stopped#0@1120']);
  });

  it('resamples to the model rate and never hears silence as speech', async () => {
    const clock = new FakeClock();
    const vad = new VadStage({ model: new EnergyVad(16000), inputRate: RATE, threshold: () => 0.5 });
    const p = new Pipeline([vad], { clock, log });
    const out: Frame[] = [];
    p.onOutput((f) => out.push(f));
    const audio = concat([silence(1000, RATE), voiced(400), silence(600, RATE)]);
    for (let i = 0; i < audio.length; i += 160) {
      await clock.advance(20);
      p.push({ kind: 'audio-in', turn: 0, samples: audio.subarray(i, i + 160), sampleRate: RATE, at: clock.now() });
    }
    expect(out.filter((f) => f.kind === 'speech-started')).toHaveLength(1);
    expect(out.filter((f) => f.kind === 'speech-stopped')).toHaveLength(1);
  });
});

function turnPipeline(endpointType: EndpointType, opts: { allow?: boolean; minWords?: number; log?: pino.Logger } = {}) {
  const clock = new FakeClock();
  const floor = new Floor();
  let finalizes = 0;
  const p = new Pipeline(
    [
      new InterruptionStage({ allowInterruptions: opts.allow ?? true, minInterruptWords: opts.minWords ?? 0, floor }),
      new TurnTakingStage({ endpointType, endpointMs: 700, floor, clock, finalize: () => finalizes++ }),
    ],
    { clock, log: opts.log ?? log },
  );
  const out: Frame[] = [];
  p.onOutput((f) => out.push(f));
  const transcript = (text: string, final: boolean, speechFinal = false) =>
    p.push({ kind: 'transcript', turn: p.turns.current, text, final, speechFinal, at: clock.now() });
  return { clock, floor, p, out, transcript, finalizes: () => finalizes };
}

describe('end of turn', () => {
  it('vad: ends the turn after the endpoint silence; speech resuming within it keeps the turn open', async () => {
    const { clock, p, out, transcript } = turnPipeline('vad');
    await clock.advance(1000);
    p.push({ kind: 'speech-started', turn: 0, at: 1000, probability: 0.9 });
    transcript('I would like', true);
    await clock.advance(500);
    p.push({ kind: 'speech-stopped', turn: 0, at: 1500 });
    await clock.advance(400);
    p.push({ kind: 'speech-started', turn: 0, at: 1900, probability: 0.9 });
    transcript('an appointment', true);
    await clock.advance(300);
    p.push({ kind: 'speech-stopped', turn: 0, at: 2200 });
    await clock.advance(699);
    expect(out.some((f) => f.kind === 'end-of-turn')).toBe(false);
    await clock.advance(1);
    expect(summary(out).slice(-2)).toEqual(['end-of-turn#0:I would like an appointment@2900', 'turn-started#1:I would like an appointment@2200']);
  });

  it('vad: without a final transcript yet, asks STT to finalize and ends on its final', async () => {
    const { clock, p, out, transcript, finalizes } = turnPipeline('vad');
    p.push({ kind: 'speech-started', turn: 0, at: 0, probability: 0.9 });
    transcript('book me', false);
    await clock.advance(800);
    p.push({ kind: 'speech-stopped', turn: 0, at: 800 });
    await clock.advance(700);
    expect(finalizes()).toBe(1);
    expect(out.some((f) => f.kind === 'end-of-turn')).toBe(false);
    await clock.advance(120);
    transcript('book me in', true);
    expect(summary(out).slice(-2)).toEqual(['end-of-turn#0:book me in@1620', 'turn-started#1:book me in@800']);
  });

  it('ai: ends the turn on speech_final', async () => {
    const { clock, out, transcript } = turnPipeline('ai');
    transcript('hello', false);
    await clock.advance(300);
    transcript('hello there', true, true);
    expect(summary(out).slice(-2)).toEqual(['end-of-turn#0:hello there@300', 'turn-started#1:hello there@300']);
  });

  it('ai: when speech_final is dropped, UtteranceEnd ends the turn', async () => {
    const { clock, p, out, transcript } = turnPipeline('ai');
    transcript('hello there', true, false);
    await clock.advance(1000);
    expect(out.some((f) => f.kind === 'end-of-turn')).toBe(false);
    p.push({ kind: 'utterance-end', turn: 0, at: clock.now() });
    expect(summary(out).slice(-2)).toEqual(['end-of-turn#0:hello there@1000', 'turn-started#1:hello there@1000']);
  });

  it("the leg's own words end the turn at once", () => {
    const { p, out } = turnPipeline('vad');
    p.push({ kind: 'customer-said', turn: 0, text: 'Yes, that works.', at: 5 });
    expect(summary(out).slice(-2)).toEqual(['end-of-turn#0:Yes, that works.@5', 'turn-started#1:Yes, that works.@5']);
  });
});

describe('barge-in', () => {
  function speakingAssistant(opts: { allow?: boolean; minWords?: number; log?: pino.Logger }) {
    const t = turnPipeline('ai', opts);
    const turn = t.p.turns.begin();
    t.floor.assistantTakes(turn);
    return { ...t, turn };
  }

  it('speech onset cancels the assistant turn at once when no word minimum is set', () => {
    const { p, out, turn, floor } = speakingAssistant({});
    p.push({ kind: 'speech-started', turn, at: 10, probability: 0.8 });
    expect(summary(out)).toEqual([`speech-started#${turn}@10`, `cancel#${turn}:barge-in`]);
    expect(p.turns.signal(turn).aborted).toBe(true);
    expect(floor.assistantSpeaking).toBe(false);
  });

  it('min_interrupt_words 2: "mhm" does not interrupt and starts no turn (it joins the next); "wait, stop" does', () => {
    const { p, out, turn, transcript } = speakingAssistant({ minWords: 2 });
    p.push({ kind: 'speech-started', turn, at: 10, probability: 0.8 });
    transcript('mhm', false);
    transcript('mhm', true, true);
    expect(out.some((f) => f.kind === 'cancel' || f.kind === 'end-of-turn')).toBe(false);
    expect(p.turns.isCancelled(turn)).toBe(false);
    transcript('wait', false);
    expect(p.turns.isCancelled(turn)).toBe(false);
    transcript('wait, stop', false);
    expect(p.turns.isCancelled(turn)).toBe(true);
    transcript('wait, stop', true, true);
    expect(summary(out).filter((s) => s.startsWith('cancel') || s.startsWith('end-of-turn') || s.startsWith('turn-started'))).toEqual([
      `cancel#${turn}:barge-in`,
      // The caller's words are the next turn; the "mhm" said over the reply is kept and opens it.
      `end-of-turn#${turn}:mhm wait, stop@0`,
      `turn-started#${turn + 1}:mhm wait, stop@0`,
    ]);
  });

  it('allow_interruptions false never interrupts, whatever the caller says', () => {
    const { p, out, turn, transcript } = speakingAssistant({ allow: false, minWords: 0 });
    p.push({ kind: 'speech-started', turn, at: 10, probability: 0.99 });
    transcript('stop stop stop please stop talking', true, true);
    expect(p.turns.isCancelled(turn)).toBe(false);
    expect(out.some((f) => f.kind === 'cancel' || f.kind === 'end-of-turn')).toBe(false);
  });

  it("words said over the assistant are logged by their length, never as words (personal data), even at trace level", () => {
    const lines: string[] = [];
    const traceLog = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
    const { p, turn, transcript } = speakingAssistant({ minWords: 2, log: traceLog });
    p.push({ kind: 'speech-started', turn, at: 10, probability: 0.8 });
    transcript('mhm', true, true);
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg?.startsWith('caller spoke over the assistant'));
    expect(logged).toMatchObject({ chars: 3 });
    expect(lines.join('')).not.toContain('mhm');
  });
});
