/**
 * Interruptions in two steps, as frame sequences on a virtual clock: the caller's speech onset
 * pauses the assistant's output at once (the line is cleared, the rest kept), then the words
 * decide — a backchannel or a sound without words resumes the same reply where it stopped and
 * the caller hears it whole; real words end the turn. While the assistant is still thinking, a
 * caller who goes on speaking keeps the floor: the reply never starts. The line is the sandbox's
 * media channel (plays at real pace, returns marks, keeps what the caller heard); the words come
 * as the STT stage would send them.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Frame } from '../../src/voice/frames.js';
import { InterruptionStage } from '../../src/voice/interruption.js';
import { OutputStage } from '../../src/voice/output.js';
import { Pipeline } from '../../src/voice/pipeline.js';
import { Floor } from '../../src/voice/settings.js';
import { PolicyTurnTakingStage } from '../../src/voice/turn-policy-stage.js';
import { BackchannelDetector } from '../../src/voice/turn/backchannel.js';
import { FakeClock } from '../../src/telephony/clock.js';
import { SandboxMedia } from '../../src/telephony/sandbox/media.js';

const RATE = 8000;
const log = pino({ level: 'silent' });
const REPLY = 'We open at eight. We close at six. On Sundays we stay closed.';

/** A frame without its turn and time (the pipeline's current turn, the clock's now). */
type Loose<F> = F extends Frame ? Omit<F, 'at' | 'turn'> & { turn?: number } : never;

/** Audio whose every sample says where it is in the reply (a ramp), so what was heard can be checked sample by sample. */
function ramp(ms: number, from = 0): Int16Array {
  const out = new Int16Array((ms / 1000) * RATE);
  for (let i = 0; i < out.length; i++) out[i] = (from + i) % 30_000;
  return out;
}

function call(opts: { minWords?: number; allow?: boolean; language?: string; extra?: string[]; twoStep?: boolean } = {}) {
  const clock = new FakeClock();
  const media = new SandboxMedia(RATE, clock);
  const floor = new Floor();
  const output = new OutputStage({ media, clock, floor });
  let finalizes = 0;
  const detector = new BackchannelDetector(opts.language ?? 'en', opts.extra);
  const stages = [
    new InterruptionStage({
      allowInterruptions: opts.allow ?? true,
      minInterruptWords: opts.minWords ?? 0,
      floor,
      twoStep: opts.twoStep === false ? undefined : { output, detector, finalize: () => finalizes++ },
    }),
    new PolicyTurnTakingStage({ endpointType: 'vad', endpointSensitivity: 0.5, language: opts.language ?? 'en', floor, clock, isBackchannel: (text) => detector.isBackchannel(text) }),
    output,
  ];
  const pipeline = new Pipeline(stages, { clock, log });
  const frames: Frame[] = [];
  pipeline.onOutput((f) => frames.push(f));
  const push = (f: Loose<Frame>) => pipeline.push({ turn: pipeline.turns.current, at: clock.now(), ...f } as Frame);
  const say = (text: string, final = false) => push({ kind: 'transcript', text, final, speechFinal: false });
  /** The assistant's reply: three sentences of 1 s each, all synthesised at once. */
  const reply = () => {
    const turn = pipeline.turns.begin();
    floor.assistantTakes(turn);
    const at = clock.now();
    pipeline.pushAt('output', { kind: 'turn-started', turn, turnKind: 'reply', callerText: 'when are you open', at });
    REPLY.split(/(?<=\.) /).forEach((sentence, i) => {
      pipeline.pushAt('output', { kind: 'speak', turn, text: sentence, source: 'llm', at });
      pipeline.pushAt('output', { kind: 'tts-audio', turn, samples: ramp(1000, i * RATE), sampleRate: RATE, at });
      pipeline.pushAt('output', { kind: 'tts-spoken', turn, text: sentence, at });
    });
    pipeline.pushAt('output', { kind: 'tts-done', turn, at });
    return turn;
  };
  const kinds = (turn: number) =>
    frames.filter((f) => f.turn === turn && ['playback-paused', 'playback-resumed', 'cancel', 'interruption', 'playback-done'].includes(f.kind)).map((f) => f.kind);
  const find = <K extends Frame['kind']>(kind: K) => frames.find((f): f is Extract<Frame, { kind: K }> => f.kind === kind);
  return { clock, media, floor, pipeline, frames, push, say, reply, kinds, find, finalizes: () => finalizes };
}

/** The heard audio holds every sample of the reply in order; a resume may repeat the last 20 ms frame before it. */
function heardWhole(heard: Int16Array, total: number): boolean {
  let next = 0;
  for (const v of heard) {
    if (v === next % 30_000) next++;
    else if (v > next % 30_000 || next % 30_000 - v > RATE / 50) return false;
  }
  return next === total;
}

describe('interruption in two steps', () => {
  it('"mhm" over a reply: paused at the onset, resumed once the caller is quiet, heard whole; no turn for the caller', async () => {
    const { clock, media, push, say, reply, kinds, find, pipeline } = call();
    const turn = reply();
    await clock.advance(1200);
    push({ kind: 'speech-started', probability: 0.7 });
    expect(kinds(turn)).toEqual(['playback-paused']);
    expect(media.clears).toBe(1);
    const heardAtPause = media.heard().length;
    await clock.advance(250);
    say('mhm');
    await clock.advance(100);
    expect(media.heard().length).toBe(heardAtPause);
    push({ kind: 'speech-stopped' });
    expect(kinds(turn)).toEqual(['playback-paused', 'playback-resumed']);
    expect(find('playback-resumed')!.pausedMs).toBe(350);
    say('mhm', true);
    await clock.advance(3000);
    expect(kinds(turn)).toEqual(['playback-paused', 'playback-resumed', 'playback-done']);
    expect(find('playback-done')!.text).toBe(REPLY);
    expect(pipeline.turns.isCancelled(turn)).toBe(false);
    expect(heardWhole(media.heard(), 3 * RATE)).toBe(true);
    // The backchannel is no turn of the caller's: no end of turn, no new reply.
    expect(find('end-of-turn')).toBeUndefined();
  });

  it('a backchannel the caller trails on without words resumes after a short settle, before the VAD hears the end', async () => {
    const { clock, media, push, say, reply, kinds } = call({ language: 'de' });
    const turn = reply();
    await clock.advance(500);
    push({ kind: 'speech-started', probability: 0.7 });
    await clock.advance(250);
    say('ja genau');
    await clock.advance(199);
    expect(kinds(turn)).toEqual(['playback-paused']);
    await clock.advance(1);
    expect(kinds(turn)).toEqual(['playback-paused', 'playback-resumed']);
    push({ kind: 'speech-stopped' });
    await clock.advance(3000);
    expect(kinds(turn)).toEqual(['playback-paused', 'playback-resumed', 'playback-done']);
    expect(heardWhole(media.heard(), 3 * RATE)).toBe(true);
  });

  it('"Stop." over a reply: paused at the onset, ended by the word; the caller heard it only up to the pause', async () => {
    const { clock, media, push, say, reply, kinds, find, floor } = call();
    const turn = reply();
    await clock.advance(1500);
    push({ kind: 'speech-started', probability: 0.7 });
    const heardAtPause = media.heard().length;
    await clock.advance(250);
    say('Stop');
    expect(kinds(turn)).toEqual(['playback-paused', 'interruption', 'cancel']);
    // 1.5 s in: the first sentence and half of the second (cut back to whole words).
    expect(find('interruption')!.heardText).toBe('We open at eight. We close');
    expect(floor.assistantSpeaking).toBe(false);
    await clock.advance(3000);
    // Nothing more of the reply was played after the pause, and the line was cleared once.
    expect(media.heard().length).toBe(heardAtPause);
    expect(Math.abs(heardAtPause - 1.5 * RATE)).toBeLessThanOrEqual(1);
    expect(media.clears).toBe(1);
  });

  it('"yeah" then "but not on Sunday" in the same breath: resumed on "yeah", ended by the words that follow', async () => {
    const { clock, push, say, reply, kinds } = call();
    const turn = reply();
    await clock.advance(800);
    push({ kind: 'speech-started', probability: 0.7 });
    await clock.advance(250);
    say('yeah');
    await clock.advance(200);
    expect(kinds(turn)).toEqual(['playback-paused', 'playback-resumed']);
    say('yeah but not on Sunday');
    expect(kinds(turn)).toEqual(['playback-paused', 'playback-resumed', 'interruption', 'cancel']);
  });

  it('a sound without words: the STT is asked to finalize; nothing comes, the reply resumes and is heard whole', async () => {
    const { clock, media, push, say, reply, kinds, finalizes } = call();
    const turn = reply();
    await clock.advance(700);
    push({ kind: 'speech-started', probability: 0.6 });
    await clock.advance(300);
    push({ kind: 'speech-stopped' });
    expect(finalizes()).toBe(1);
    say('', true);
    await clock.advance(399);
    expect(kinds(turn)).toEqual(['playback-paused']);
    await clock.advance(1);
    expect(kinds(turn)).toEqual(['playback-paused', 'playback-resumed']);
    await clock.advance(3000);
    expect(kinds(turn)).toEqual(['playback-paused', 'playback-resumed', 'playback-done']);
    expect(heardWhole(media.heard(), 3 * RATE)).toBe(true);
  });

  it('a long sentence from an STT without interim words: the reply stays paused while the caller speaks, and their words end it', async () => {
    const { clock, media, push, say, reply, kinds } = call();
    const turn = reply();
    await clock.advance(500);
    push({ kind: 'speech-started', probability: 0.7 });
    const heardAtPause = media.heard().length;
    await clock.advance(3500);
    expect(kinds(turn)).toEqual(['playback-paused']);
    expect(media.heard().length).toBe(heardAtPause);
    push({ kind: 'speech-stopped' });
    say('I would like to book an appointment for Tuesday', true);
    expect(kinds(turn)).toEqual(['playback-paused', 'interruption', 'cancel']);
  });

  it('min_interrupt_words 3: "no thanks" pauses and resumes (too few words), "no that is wrong" ends the turn', async () => {
    const { clock, push, say, reply, kinds } = call({ minWords: 3 });
    const turn = reply();
    await clock.advance(500);
    push({ kind: 'speech-started', probability: 0.7 });
    await clock.advance(300);
    say('no thanks', true);
    push({ kind: 'speech-stopped' });
    expect(kinds(turn)).toEqual(['playback-paused', 'playback-resumed']);
    await clock.advance(300);
    push({ kind: 'speech-started', probability: 0.7 });
    await clock.advance(300);
    say('no that is wrong');
    expect(kinds(turn)).toEqual(['playback-paused', 'playback-resumed', 'playback-paused', 'interruption', 'cancel']);
  });

  it("the assistant's own backchannel_words count: 'passt scho' resumes the reply", async () => {
    const { clock, push, say, reply, kinds } = call({ language: 'de', extra: ['passt scho'] });
    const turn = reply();
    await clock.advance(500);
    push({ kind: 'speech-started', probability: 0.7 });
    await clock.advance(300);
    say('Passt scho.', true);
    push({ kind: 'speech-stopped' });
    expect(kinds(turn)).toEqual(['playback-paused', 'playback-resumed']);
  });

  it('allow_interruptions false: speech over the reply neither pauses nor ends it', async () => {
    const { clock, media, push, say, reply, kinds } = call({ allow: false });
    const turn = reply();
    await clock.advance(500);
    push({ kind: 'speech-started', probability: 0.9 });
    await clock.advance(300);
    say('stop stop stop', true);
    await clock.advance(3000);
    expect(kinds(turn)).toEqual(['playback-done']);
    expect(media.clears).toBe(0);
  });

  it('without speech-to-text (one step): the onset ends the turn at once, as before', async () => {
    const { clock, push, reply, kinds } = call({ twoStep: false });
    const turn = reply();
    await clock.advance(500);
    push({ kind: 'speech-started', probability: 0.9 });
    expect(kinds(turn)).toEqual(['interruption', 'cancel']);
  });

  it('thinking (no audio yet) and the caller goes on speaking: the reply never starts and the words extend the caller\'s turn', async () => {
    const { clock, media, push, say, pipeline, frames, floor } = call();
    // The caller's first words end a turn: the assistant thinks (its reply turn has no audio yet).
    push({ kind: 'speech-started', probability: 0.9 });
    say('I need a taxi.', true);
    await clock.advance(600);
    push({ kind: 'speech-stopped' });
    await clock.advance(300);
    const first = frames.find((f) => f.kind === 'turn-started')!;
    expect(first).toMatchObject({ callerText: 'I need a taxi.' });
    expect(floor.assistantTurn).toBe(first.turn);
    // The caller goes on; the model's first sentence arrives meanwhile.
    await clock.advance(200);
    push({ kind: 'speech-started', probability: 0.9 });
    pipeline.pushAt('output', { kind: 'speak', turn: first.turn, text: 'Sure.', source: 'llm', at: clock.now() });
    pipeline.pushAt('output', { kind: 'tts-audio', turn: first.turn, samples: ramp(500), sampleRate: RATE, at: clock.now() });
    await clock.advance(250);
    say('to the airport');
    // Words: the reply that was never heard is dropped, nothing of it was played.
    expect(pipeline.turns.isCancelled(first.turn)).toBe(true);
    expect(frames.filter((f) => f.kind === 'audio-out')).toHaveLength(0);
    expect(media.heard().length).toBe(0);
    say('to the airport please', true);
    await clock.advance(500);
    push({ kind: 'speech-stopped' });
    await clock.advance(300);
    // The caller's words go on in the next turn: no assistant line came between the two parts.
    const turns = frames.filter((f) => f.kind === 'turn-started');
    expect(turns.map((f) => f.kind === 'turn-started' && f.callerText)).toEqual(['I need a taxi.', 'to the airport please']);
    expect(frames.find((f) => f.kind === 'interruption')).toMatchObject({ turn: first.turn, heardText: '' });
    expect(frames.some((f) => f.kind === 'playback-done')).toBe(false);
  });

  it('thinking, and the caller only coughs: the reply is held while they do, then plays whole', async () => {
    const { clock, media, push, say, pipeline, floor, kinds, finalizes } = call();
    const turn = pipeline.turns.begin();
    floor.assistantTakes(turn);
    pipeline.pushAt('output', { kind: 'turn-started', turn, turnKind: 'reply', callerText: 'hello', at: clock.now() });
    push({ kind: 'speech-started', probability: 0.6 });
    expect(kinds(turn)).toEqual(['playback-paused']);
    // The reply's audio arrives while the caller makes their sound: it waits.
    pipeline.pushAt('output', { kind: 'speak', turn, text: 'Hello there.', source: 'llm', at: clock.now() });
    pipeline.pushAt('output', { kind: 'tts-audio', turn, samples: ramp(1000), sampleRate: RATE, at: clock.now() });
    pipeline.pushAt('output', { kind: 'tts-spoken', turn, text: 'Hello there.', at: clock.now() });
    pipeline.pushAt('output', { kind: 'tts-done', turn, at: clock.now() });
    await clock.advance(200);
    push({ kind: 'speech-stopped' });
    expect(finalizes()).toBe(1);
    expect(media.heard().length).toBe(0);
    await clock.advance(400);
    expect(kinds(turn)).toEqual(['playback-paused', 'playback-resumed']);
    await clock.advance(1200);
    expect(kinds(turn)).toEqual(['playback-paused', 'playback-resumed', 'playback-done']);
    expect(heardWhole(media.heard(), RATE)).toBe(true);
    expect(media.clears).toBe(0);
  });
});
