/**
 * Deepgram Flux in the pipeline: the STT stage on the Flux adapter (against the Flux protocol
 * double, over its WebSocket) and the pipeline's turn-taking stage (the end-of-turn policy,
 * src/voice/turn/policy.ts). Flux's own turn events flow as `stt-turn` frames the policy reads, so
 * endpoint_type ai ends the turn on Flux's EndOfTurn.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concat, silence } from '../../../src/audio/pcm.js';
import { DeepgramFluxStt } from '../../../src/providers/stt/deepgram/flux.js';
import { systemClock } from '../../../src/telephony/clock.js';
import type { Frame } from '../../../src/voice/frames.js';
import { Pipeline } from '../../../src/voice/pipeline.js';
import { Floor, type EndpointType } from '../../../src/voice/settings.js';
import { SttStage } from '../../../src/voice/stt.js';
import { PolicyTurnTakingStage } from '../../../src/voice/turn-policy-stage.js';
import { turnSignalOf } from '../../../src/voice/turn/signals.js';
import { fixture, fixtureAudio } from '../../support/audio-fixtures.js';
import { ClipBook } from '../../support/doubles/clips.js';
import { DeepgramFluxDouble } from '../../support/doubles/deepgram-flux.js';
import { waitFor } from '../../support/wait.js';

const RATE = 8000;
const QUESTION = fixture('book-appointment');
let flux: DeepgramFluxDouble;

beforeAll(async () => {
  const clips = new ClipBook();
  clips.add(QUESTION.text, fixtureAudio(QUESTION.name, RATE), RATE);
  flux = await new DeepgramFluxDouble(clips).start();
});
afterAll(() => flux.close());

function run(endpointType: EndpointType) {
  const floor = new Floor();
  const stt = new SttStage(new DeepgramFluxStt({ url: flux.url, apiKey: flux.knobs.apiKey, maxPendingMs: 30_000 }), { sampleRate: RATE, language: 'en', turn: { eagerEotThreshold: 0.5 } });
  const p = new Pipeline([stt, new PolicyTurnTakingStage({ endpointType, endpointSensitivity: 0.5, language: 'en', floor, clock: systemClock, finalize: () => stt.finalize() })], { clock: systemClock, log: pino({ level: 'silent' }) });
  const out: Frame[] = [];
  p.onOutput((f) => out.push(f));
  const audio = concat([silence(300, RATE), fixtureAudio(QUESTION.name, RATE), silence(1000, RATE)]);
  for (let i = 0; i < audio.length; i += 160) p.push({ kind: 'audio-in', turn: p.turns.current, samples: audio.subarray(i, i + 160), sampleRate: RATE, at: systemClock.now() });
  return { p, out };
}

describe('Deepgram Flux in the pipeline', () => {
  it('endpoint_type ai: Flux’s EndOfTurn ends the caller’s turn with its words; its turn events flow as stt-turn frames', async () => {
    const { p, out } = run('ai');
    const end = await waitFor('the end of the turn', () => out.find((f) => f.kind === 'end-of-turn') ?? null);
    expect(end).toMatchObject({ text: QUESTION.text });
    const turnEvents = out.filter((f): f is Extract<Frame, { kind: 'stt-turn' }> => f.kind === 'stt-turn').map((f) => f.event);
    expect(turnEvents[0]).toBe('start');
    expect(turnEvents).toContain('eager-end');
    expect(turnEvents.at(-1)).toBe('end');
    // The policy reads them as provider turn signals.
    expect(turnSignalOf(out.find((f) => f.kind === 'stt-turn' && f.event === 'end')!)).toEqual({ type: 'provider-turn', event: 'end', text: QUESTION.text, confidence: 0.9 });
    expect(out.filter((f) => f.kind === 'turn-started')).toHaveLength(1);
    await p.close();
  });
});
