/**
 * The policy-driven turn-taking stage as frame sequences on a virtual clock: a finished sentence
 * ends the turn after the short wait, an open one waits the long one and a resumed caller makes
 * one turn of it, Smart Turn's answer (an ONNX stand-in, on its worker thread) shortens the wait,
 * the leg's own words end the turn at once, and nothing opens while the assistant holds the floor.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/telephony/clock.js';
import type { Frame } from '../../src/voice/frames.js';
import { Pipeline } from '../../src/voice/pipeline.js';
import { Floor, type EndpointType } from '../../src/voice/settings.js';
import { PolicyTurnTakingStage } from '../../src/voice/turn-policy-stage.js';
import { SmartTurn } from '../../src/voice/turn/smart-turn.js';
import { turnWaits, waitFor } from '../../src/voice/turn/policy.js';
import { VAD_STOP_MS } from '../../src/voice/voice-call.js';
import { fixtureAudio } from '../support/audio-fixtures.js';
import { logit, writeSmartTurnStandIn } from '../support/onnx-stand-in.js';

const log = pino({ level: 'silent' });
/** The default waits and the VAD's stop window (its report comes this long after the end of speech). */
const W = turnWaits(0.5);
const V = VAD_STOP_MS;

function stage(opts: { endpointType?: EndpointType; language?: string; smartTurn?: SmartTurn } = {}) {
  const clock = new FakeClock();
  const floor = new Floor();
  let finalizes = 0;
  const p = new Pipeline(
    [new PolicyTurnTakingStage({ endpointType: opts.endpointType ?? 'vad', endpointSensitivity: 0.5, language: opts.language ?? 'en', floor, clock, finalize: () => finalizes++, smartTurn: opts.smartTurn })],
    { clock, log },
  );
  const out: Frame[] = [];
  p.onOutput((f) => out.push(f));
  const at = () => clock.now();
  const say = async (text: string, speechMs: number) => {
    const start = at();
    p.push({ kind: 'speech-started', turn: p.turns.current, at: start, probability: 0.9 });
    await clock.advance(speechMs);
    p.push({ kind: 'transcript', turn: p.turns.current, text, final: true, speechFinal: false, at: at() });
    // The VAD reports the end of speech after its stop window.
    await clock.advance(V);
    p.push({ kind: 'speech-stopped', turn: p.turns.current, at: at() - V });
    return at() - V;
  };
  const ends = () => out.filter((f): f is Extract<Frame, { kind: 'end-of-turn' }> => f.kind === 'end-of-turn');
  return { clock, floor, p, out, say, ends, finalizes: () => finalizes };
}

describe('policy-driven turn-taking stage', () => {
  it(`a finished sentence ends the turn ${W.completeMs} ms after the end of speech (default sensitivity)`, async () => {
    const s = stage();
    const end = await s.say('I would like to book an appointment for Tuesday.', 1500);
    // The VAD reported at end + V: the rest of the short wait to go.
    await s.clock.advance(W.completeMs - V - 1);
    expect(s.ends()).toEqual([]);
    await s.clock.advance(1);
    expect(s.ends()).toMatchObject([{ text: 'I would like to book an appointment for Tuesday.', endOfSpeechAt: end, at: end + W.completeMs }]);
    expect(s.out.filter((f) => f.kind === 'turn-started')).toHaveLength(1);
  });

  it(`an open clause with a 1.2 s pause stays one turn; alone it ends after ${W.incompleteMs} ms`, async () => {
    const s = stage({ language: 'de' });
    await s.say('Ich würde gerne einen Termin für', 1200);
    await s.clock.advance(1200 - V);
    expect(s.ends()).toEqual([]);
    const end = await s.say('nächsten Montag buchen.', 900);
    await s.clock.advance(W.completeMs - V);
    expect(s.ends()).toMatchObject([{ text: 'Ich würde gerne einen Termin für nächsten Montag buchen.', at: end + W.completeMs }]);

    const alone = stage();
    const end2 = await alone.say('I was thinking about', 900);
    await alone.clock.advance(W.incompleteMs - V - 10);
    expect(alone.ends()).toEqual([]);
    await alone.clock.advance(10);
    expect(alone.ends()).toMatchObject([{ at: end2 + W.incompleteMs }]);
  });

  it("the leg's own words end the turn at once; nothing opens while the assistant holds the floor", async () => {
    const s = stage();
    s.p.push({ kind: 'customer-said', turn: 0, text: 'Yes please.', at: s.clock.now() });
    await s.clock.advance(1);
    expect(s.ends()).toMatchObject([{ text: 'Yes please.' }]);
    // Turn 1 is the assistant's now: the caller's "mhm" is no turn.
    await s.say('Mhm.', 300);
    await s.clock.advance(3000);
    expect(s.ends()).toHaveLength(1);
  });

  describe('with Smart Turn', () => {
    let sure: SmartTurn;
    beforeAll(async () => {
      sure = await SmartTurn.load(writeSmartTurnStandIn(0, logit(0.95)));
    });
    afterAll(() => sure.close());

    it("the model's answer on the turn's audio moves the wait (text open, audio finished → in between)", async () => {
      const s = stage({ smartTurn: sure });
      // Caller audio flows through the stage (Smart Turn hears the turn's audio).
      const audio = fixtureAudio('book-appointment', 8000);
      s.p.push({ kind: 'audio-in', turn: 0, samples: new Int16Array(1600), sampleRate: 8000, at: 0 });
      s.p.push({ kind: 'speech-started', turn: 0, at: 0, probability: 0.9 });
      for (let i = 0; i < audio.length; i += 160) s.p.push({ kind: 'audio-in', turn: 0, samples: audio.subarray(i, i + 160), sampleRate: 8000, at: 0 });
      await s.clock.advance(1000);
      s.p.push({ kind: 'transcript', turn: 0, text: 'I want to book the', final: true, speechFinal: false, at: s.clock.now() });
      s.p.push({ kind: 'speech-stopped', turn: 0, at: 1000 });
      await s.clock.advance(1);
      // The worker answers in real time; the virtual clock stands still meanwhile.
      const started = Date.now();
      while (sure.stats.predictions === 0 && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 20));
      await s.clock.advance(3000);
      // Text 0.15, audio 0.95 → p 0.55.
      expect(s.ends()).toMatchObject([{ text: 'I want to book the', at: 1000 + waitFor(0.55, turnWaits(0.5)) }]);
    });
  });
});
