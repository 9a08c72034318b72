/**
 * Caller-side stages as sequences of frames on a virtual clock: the VAD stage on audio, the
 * end of turn by the multi-signal policy for endpoint_type vad and ai (short after a finished
 * sentence, long after an open one, endpoint_sensitivity on top, a dropped speech_final), and
 * barge-in under allow_interruptions / min_interrupt_words.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { concat, silence } from '../../src/audio/pcm.js';
import type { Frame } from '../../src/voice/frames.js';
import { InterruptionStage } from '../../src/voice/interruption.js';
import { Pipeline } from '../../src/voice/pipeline.js';
import { Floor, type EndpointType } from '../../src/voice/settings.js';
import { PolicyTurnTakingStage } from '../../src/voice/turn-policy-stage.js';
import { turnWaits } from '../../src/voice/turn/policy.js';
import { VAD_STOP_MS } from '../../src/voice/voice-call.js';
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

function turnPipeline(endpointType: EndpointType, opts: { allow?: boolean; minWords?: number; log?: pino.Logger; sensitivity?: number; language?: string } = {}) {
  const clock = new FakeClock();
  const floor = new Floor();
  let finalizes = 0;
  const p = new Pipeline(
    [
      new InterruptionStage({ allowInterruptions: opts.allow ?? true, minInterruptWords: opts.minWords ?? 0, floor }),
      new PolicyTurnTakingStage({ endpointType, endpointSensitivity: opts.sensitivity ?? 0.5, language: opts.language ?? 'en', floor, clock, finalize: () => finalizes++ }),
    ],
    { clock, log: opts.log ?? log },
  );
  const out: Frame[] = [];
  p.onOutput((f) => out.push(f));
  const transcript = (text: string, final: boolean, speechFinal = false) =>
    p.push({ kind: 'transcript', turn: p.turns.current, text, final, speechFinal, at: clock.now() });
  /** The VAD's report of the end of speech comes after its stop window (the call's VAD_STOP_MS). */
  const stopped = async (endOfSpeech: number) => {
    await clock.advance(endOfSpeech + VAD_STOP_MS - clock.now());
    p.push({ kind: 'speech-stopped', turn: p.turns.current, at: endOfSpeech });
  };
  const ended = () => out.some((f) => f.kind === 'end-of-turn');
  return { clock, floor, p, out, transcript, stopped, ended, finalizes: () => finalizes };
}

const W = turnWaits(0.5);

describe(`end of turn (the multi-signal policy at default settings: ${W.completeMs} ms after a finished sentence, up to ${W.incompleteMs} ms after an open one)`, () => {
  it('vad: a finished sentence ends the turn the short wait after the end of speech, not at the VAD\'s report', async () => {
    const { clock, p, out, transcript, stopped, ended } = turnPipeline('vad');
    await clock.advance(1000);
    p.push({ kind: 'speech-started', turn: 0, at: 1000, probability: 0.9 });
    await clock.advance(1200);
    transcript('I would like an appointment on Tuesday.', true);
    await stopped(2200);
    // The VAD reports before the short wait is over: the turn is not over yet…
    expect(ended()).toBe(false);
    await clock.advance(2200 + W.completeMs - 1 - clock.now());
    expect(ended()).toBe(false);
    // …and ends the short wait after the end of speech.
    await clock.advance(1);
    expect(summary(out).slice(-2)).toEqual([
      `end-of-turn#0:I would like an appointment on Tuesday.@${2200 + W.completeMs}`,
      'turn-started#1:I would like an appointment on Tuesday.@2200',
    ]);
    expect(ended()).toBe(true);
  });

  it('vad: an open clause waits long, and the caller going on within it makes one turn of it', async () => {
    const { clock, p, out, transcript, stopped, ended } = turnPipeline('vad');
    p.push({ kind: 'speech-started', turn: 0, at: 0, probability: 0.9 });
    await clock.advance(800);
    transcript('I would like to book', true);
    await stopped(800);
    // A 1.2 s thinking pause: no turn ends (the old fixed 840 ms silence ended it here).
    await clock.advance(2000 - clock.now());
    expect(ended()).toBe(false);
    p.push({ kind: 'speech-started', turn: 0, at: 2000, probability: 0.9 });
    await clock.advance(1000);
    transcript('an appointment for Tuesday.', true);
    await stopped(3000);
    await clock.advance(3000 + W.completeMs - clock.now());
    expect(summary(out).filter((s) => !s.startsWith('transcript') && !s.startsWith('speech')).slice(-2)).toEqual([
      `end-of-turn#0:I would like to book an appointment for Tuesday.@${3000 + W.completeMs}`,
      'turn-started#1:I would like to book an appointment for Tuesday.@3000',
    ]);
  });

  it(`vad: an open clause alone ends after ${W.incompleteMs} ms of silence`, async () => {
    const { clock, p, out, transcript, stopped, ended } = turnPipeline('vad');
    p.push({ kind: 'speech-started', turn: 0, at: 0, probability: 0.9 });
    await clock.advance(900);
    transcript('I was thinking about', true);
    await stopped(900);
    await clock.advance(900 + W.incompleteMs - 1 - clock.now());
    expect(ended()).toBe(false);
    await clock.advance(1);
    expect(summary(out).slice(-2)).toEqual([`end-of-turn#0:I was thinking about@${900 + W.incompleteMs}`, 'turn-started#1:I was thinking about@900']);
  });

  it('vad: with only interim words at the end of speech, asks STT to finalize at once and ends on its final', async () => {
    const { clock, p, out, transcript, stopped, ended, finalizes } = turnPipeline('vad');
    p.push({ kind: 'speech-started', turn: 0, at: 0, probability: 0.9 });
    transcript('book me', false);
    await clock.advance(800);
    await stopped(800);
    expect(finalizes()).toBe(1);
    // The interim is not the whole utterance: the turn waits for the final, past the short wait.
    await clock.advance(800 + W.completeMs + 100 - clock.now());
    expect(ended()).toBe(false);
    transcript('book me in for Monday', true);
    expect(summary(out).slice(-2)).toEqual([`end-of-turn#0:book me in for Monday@${800 + W.completeMs + 100}`, 'turn-started#1:book me in for Monday@800']);
  });

  it(`endpoint_sensitivity keeps its meaning on top: higher reacts sooner (5: ${turnWaits(5).completeMs} / ${turnWaits(5).incompleteMs} ms), lower later (0: ${turnWaits(0).completeMs} / ${turnWaits(0).incompleteMs} ms)`, async () => {
    const ends: Record<string, number[]> = {};
    for (const sensitivity of [0, 5]) {
      for (const text of ['Please call me back tomorrow.', 'I need a table for']) {
        const { clock, p, out, transcript } = turnPipeline('vad', { sensitivity });
        p.push({ kind: 'speech-started', turn: 0, at: 0, probability: 0.9 });
        await clock.advance(1000);
        transcript(text, true);
        // A VAD that reports at once, so the short wait shows.
        p.push({ kind: 'speech-stopped', turn: 0, at: 1000 });
        await clock.advance(3000);
        const end = out.find((f) => f.kind === 'end-of-turn');
        (ends[sensitivity] ??= []).push(end!.at - 1000);
      }
    }
    expect(ends).toEqual({ 0: [turnWaits(0).completeMs, turnWaits(0).incompleteMs], 5: [turnWaits(5).completeMs, turnWaits(5).incompleteMs] });
    expect(ends[5]![0]).toBeLessThan(ends[0]![0]!);
    expect(ends[5]![1]).toBeLessThan(ends[0]![1]!);
    // A finished sentence always waits less than an open one.
    for (const s of [0, 5]) expect(ends[s]![0]).toBeLessThan(ends[s]![1]!);
  });

  it('ai: ends the turn on speech_final', async () => {
    const { clock, out, transcript } = turnPipeline('ai');
    transcript('hello', false);
    await clock.advance(300);
    transcript('hello there', true, true);
    expect(summary(out).slice(-2)).toEqual(['end-of-turn#0:hello there@300', 'turn-started#1:hello there@300']);
  });

  it('ai: a speech_final on words that clearly go on is held for the long wait (Deepgram endpointing is only silence)', async () => {
    const { clock, out, transcript, ended } = turnPipeline('ai');
    await clock.advance(300);
    transcript('I need a table for', true, true);
    await clock.advance(W.incompleteMs - 1);
    expect(ended()).toBe(false);
    await clock.advance(1);
    expect(summary(out).slice(-2)).toEqual([`end-of-turn#0:I need a table for@${300 + W.incompleteMs}`, 'turn-started#1:I need a table for@300']);
  });

  it('ai: when speech_final is dropped, UtteranceEnd ends the turn', async () => {
    const { clock, p, out, transcript, ended } = turnPipeline('ai');
    transcript('hello there', true, false);
    await clock.advance(1000);
    expect(ended()).toBe(false);
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

  it('min_interrupt_words 2: "mhm" does not interrupt and starts no turn (it joins the next); "wait, stop" does', async () => {
    const { p, out, turn, transcript, clock } = speakingAssistant({ minWords: 2 });
    p.push({ kind: 'speech-started', turn, at: 10, probability: 0.8 });
    transcript('mhm', false);
    transcript('mhm', true, true);
    p.push({ kind: 'speech-stopped', turn, at: 10 });
    await clock.advance(2500);
    expect(out.some((f) => f.kind === 'cancel' || f.kind === 'end-of-turn')).toBe(false);
    expect(p.turns.isCancelled(turn)).toBe(false);
    p.push({ kind: 'speech-started', turn, at: 2510, probability: 0.8 });
    transcript('wait', false);
    expect(p.turns.isCancelled(turn)).toBe(false);
    transcript('wait, stop', false);
    expect(p.turns.isCancelled(turn)).toBe(true);
    transcript('wait, stop', true, true);
    p.push({ kind: 'speech-stopped', turn, at: 2510 });
    expect(summary(out).filter((s) => s.startsWith('cancel') || s.startsWith('end-of-turn') || s.startsWith('turn-started'))).toEqual([
      `cancel#${turn}:barge-in`,
      // The caller's words are the next turn; the "mhm" said over the reply is kept and opens it.
      `end-of-turn#${turn}:mhm wait, stop@2500`,
      `turn-started#${turn + 1}:mhm wait, stop@2510`,
    ]);
  });

  it('allow_interruptions false never interrupts, whatever the caller says', () => {
    const { p, out, turn, transcript } = speakingAssistant({ allow: false, minWords: 0 });
    p.push({ kind: 'speech-started', turn, at: 10, probability: 0.99 });
    transcript('stop stop stop please stop talking', true, true);
    expect(p.turns.isCancelled(turn)).toBe(false);
    expect(out.some((f) => f.kind === 'cancel' || f.kind === 'end-of-turn')).toBe(false);
  });

  it("words said over the assistant are logged by their length, never as words (personal data), even at trace level", async () => {
    const lines: string[] = [];
    const traceLog = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
    const { p, turn, transcript, clock } = speakingAssistant({ minWords: 2, log: traceLog });
    p.push({ kind: 'speech-started', turn, at: 10, probability: 0.8 });
    transcript('mhm', true, true);
    p.push({ kind: 'speech-stopped', turn, at: 10 });
    await clock.advance(2500);
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg?.startsWith('caller spoke over the assistant'));
    expect(logged).toMatchObject({ chars: 3 });
    expect(lines.join('')).not.toContain('mhm');
  });
});
