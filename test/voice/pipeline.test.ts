/**
 * The voice pipeline's runner as sequences of frames: order, forwarding, upstream pushes,
 * per-turn cancellation (signal aborted, `cancel` frame, late frames of the turn dropped), and
 * the turn-recording stage stamping the call's TurnTracker from the frames.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Frame } from '../../src/voice/frames.js';
import { wordCount } from '../../src/voice/frames.js';
import { Pipeline, stage, type Push, type Stage } from '../../src/voice/pipeline.js';
import { TurnRecordingStage } from '../../src/voice/turn-recording.js';
import { MemoryTurnRecorder, TurnTracker } from '../../src/calls/turns.js';
import { FakeClock } from '../../src/telephony/clock.js';

const log = pino({ level: 'silent' });

function describeFrame(f: Frame): string {
  switch (f.kind) {
    case 'llm-delta':
    case 'speak':
      return `${f.kind}#${f.turn}:${f.text}`;
    case 'cancel':
      return `cancel#${f.turn}:${f.reason}`;
    default:
      return `${f.kind}#${f.turn}`;
  }
}

describe('Pipeline', () => {
  it('delivers frames through the stages in push order, without re-entering a stage', () => {
    const clock = new FakeClock();
    const seen: string[] = [];
    let depth = 0;
    // Turns every llm-delta into two `speak` frames; the next stage records what it sees.
    const splitter = stage('splitter', (frame, push) => {
      depth++;
      expect(depth).toBe(1);
      if (frame.kind === 'llm-delta') {
        for (const word of frame.text.split(' ')) push({ kind: 'speak', turn: frame.turn, text: word, source: 'llm', at: frame.at });
      } else push(frame);
      depth--;
    });
    const recorder = stage('recorder', (frame, push) => {
      seen.push(describeFrame(frame));
      push(frame);
    });
    const p = new Pipeline([splitter, recorder], { clock, log });
    const out: string[] = [];
    p.onOutput((f) => out.push(describeFrame(f)));
    p.push({ kind: 'llm-delta', turn: 0, text: 'hello there', at: 0 });
    p.push({ kind: 'llm-delta', turn: 0, text: 'you', at: 0 });
    expect(seen).toEqual(['speak#0:hello', 'speak#0:there', 'speak#0:you']);
    expect(out).toEqual(seen);
  });

  it('sends frames upstream with pushUp, forwarded further up by the stages on the way', () => {
    const clock = new FakeClock();
    const heads: string[] = [];
    const middles: string[] = [];
    const head = stage('head', (frame, push) => {
      heads.push(describeFrame(frame));
      push(frame);
    });
    const middle = stage('middle', (frame, push) => {
      middles.push(describeFrame(frame));
      push(frame);
    });
    const tail: Stage = {
      name: 'tail',
      process(frame, push, ctx) {
        if (frame.kind === 'speak') ctx.pushUp({ kind: 'playback-done', turn: frame.turn, text: frame.text, at: 5 });
        push(frame);
      },
    };
    const p = new Pipeline([head, middle, tail], { clock, log });
    const out: string[] = [];
    p.onOutput((f) => out.push(describeFrame(f)));
    p.push({ kind: 'speak', turn: 0, text: 'Hi.', source: 'scripted', at: 0 });
    expect(heads).toEqual(['speak#0:Hi.', 'playback-done#0']);
    expect(middles).toEqual(['speak#0:Hi.', 'playback-done#0']);
    expect(out).toEqual(['speak#0:Hi.']);
  });

  it('cancels a turn: aborts its signal, tells every stage, and drops its later work frames', async () => {
    const clock = new FakeClock();
    const seen: string[] = [];
    let pushLater: Push | null = null;
    let signal: AbortSignal | null = null;
    // A slow "LLM": on end-of-turn it opens a turn and streams text later.
    const llm: Stage = {
      name: 'llm',
      process(frame, push, ctx) {
        push(frame);
        if (frame.kind === 'end-of-turn') {
          const turn = ctx.turns.begin();
          signal = ctx.turns.signal(turn);
          push({ kind: 'turn-started', turn, turnKind: 'reply', callerText: frame.text, at: frame.at });
          pushLater = push;
        }
      },
    };
    const sink = stage('sink', (frame, push) => {
      seen.push(describeFrame(frame));
      push(frame);
    });
    const p = new Pipeline([llm, sink], { clock, log });
    p.push({ kind: 'end-of-turn', turn: 0, text: 'hi', endOfSpeechAt: 0, at: 0 });
    pushLater!({ kind: 'llm-delta', turn: 1, text: 'Hello', at: 1 });
    expect(p.turns.cancel(1, 'barge-in')).toBe(true);
    expect(signal!.aborted).toBe(true);
    // Arrives after the cancellation: dropped.
    pushLater!({ kind: 'llm-delta', turn: 1, text: 'world', at: 2 });
    // Caller-side frames of the cancelled turn still flow.
    p.push({ kind: 'speech-started', turn: 1, at: 3, probability: 0.9 });
    expect(p.turns.cancel(1, 'barge-in')).toBe(false);
    expect(seen).toEqual(['end-of-turn#0', 'turn-started#1', 'llm-delta#1:Hello', 'cancel#1:barge-in', 'speech-started#1']);
    await p.close();
  });

  it('turns a throwing stage into an error frame and goes on', () => {
    const clock = new FakeClock();
    const out: Frame[] = [];
    const bad = stage('bad', (frame, push) => {
      if (frame.kind === 'dtmf') throw new Error('boom');
      push(frame);
    });
    const p = new Pipeline([bad], { clock, log });
    p.onOutput((f) => out.push(f));
    p.push({ kind: 'dtmf', turn: 0, digit: '1', at: 0 });
    p.push({ kind: 'dtmf', turn: 0, digit: '2', at: 0 }); // throws too
    p.push({ kind: 'speech-stopped', turn: 0, at: 1 });
    expect(out.map((f) => f.kind)).toEqual(['error', 'error', 'speech-stopped']);
    expect(out[0]).toMatchObject({ stage: 'bad', message: 'boom', fatal: false });
  });

  it('counts words the way min_interrupt_words does', () => {
    expect(wordCount('mhm')).toBe(1);
    expect(wordCount('  wait, stop  ')).toBe(2);
    expect(wordCount('… -')).toBe(0);
  });
});

describe('TurnRecordingStage', () => {
  it('stamps a reply turn from the frames and records what was heard when interrupted', async () => {
    const clock = new FakeClock();
    const recorder = new MemoryTurnRecorder();
    const tracker = new TurnTracker(recorder, clock, () => 1_000_000 + clock.now());
    const p = new Pipeline([new TurnRecordingStage(tracker)], { clock, log });
    await clock.advance(1000);
    p.push({ kind: 'speech-stopped', turn: 0, at: 1000 });
    p.push({ kind: 'end-of-turn', turn: 0, text: 'book me in', endOfSpeechAt: 1000, at: 1150 });
    p.push({ kind: 'turn-started', turn: 1, turnKind: 'reply', callerText: 'book me in', at: 1000 });
    p.push({ kind: 'llm-delta', turn: 1, text: 'Sure', at: 1400 });
    p.push({ kind: 'speak', turn: 1, text: 'Sure, what time suits you?', source: 'llm', at: 1450 });
    p.push({ kind: 'tool-call', turn: 1, id: 'c1', name: 'check_slots', arguments: '{"day":"Monday"}', at: 1455 });
    p.push({ kind: 'filler', turn: 1, text: 'One moment.', reason: 'tool', at: 1460 });
    p.push({ kind: 'tool-result', turn: 1, id: 'c1', name: 'check_slots', ok: true, content: '{"status":200,"body":["10:00"]}', at: 1495 });
    const lookup = { mode: 'function_call' as const, query: 'free slots', passages: [{ documentId: 2, documentName: 'Hours', chunkId: 9, heading: 'Hours', score: 0.03 }] };
    p.push({ kind: 'knowledge', turn: 1, lookup, at: 1470 });
    // Another turn's lookup is not this turn's.
    p.push({ kind: 'knowledge', turn: 7, lookup: { ...lookup, query: 'elsewhere' }, at: 1471 });
    p.push({ kind: 'tts-audio', turn: 1, samples: new Int16Array(160), sampleRate: 8000, at: 1500 });
    p.push({ kind: 'audio-out', turn: 1, samples: new Int16Array(160), at: 1510 });
    p.push({ kind: 'audio-out', turn: 1, samples: new Int16Array(160), at: 1530 });
    p.push({ kind: 'interruption', turn: 1, heardText: 'Sure, what', at: 2000 });
    // A late frame of the finished turn changes nothing.
    p.push({ kind: 'playback-done', turn: 1, text: 'Sure, what', at: 2010 });
    expect(recorder.turns).toEqual([
      {
        position: 0,
        kind: 'reply',
        startedAt: 1_001_000,
        callerText: 'book me in',
        assistantText: 'Sure, what',
        interrupted: true,
        timings: { finalTranscript: 150, llmFirstToken: 400, ttsFirstByte: 500, firstAudio: 510 },
        bargeIns: [{ atMs: 1000, heardText: 'Sure, what' }],
        fillers: [{ atMs: 460, text: 'One moment.', reason: 'tool' }],
        error: null,
        knowledge: [lookup],
        // The function the model called, with its answer: from the call to the result.
        toolCalls: [{ atMs: 455, name: 'check_slots', arguments: '{"day":"Monday"}', ok: true, answer: '{"status":200,"body":["10:00"]}', durationMs: 40 }],
      },
    ]);
  });

  it('records a greeting that played to the end', () => {
    const clock = new FakeClock();
    const recorder = new MemoryTurnRecorder();
    const tracker = new TurnTracker(recorder, clock, () => clock.now());
    const p = new Pipeline([new TurnRecordingStage(tracker)], { clock, log });
    p.push({ kind: 'turn-started', turn: 1, turnKind: 'greeting', callerText: null, at: 0 });
    p.push({ kind: 'speak', turn: 1, text: 'Hello!', source: 'scripted', at: 0 });
    p.push({ kind: 'playback-done', turn: 1, text: 'Hello!', at: 900 });
    expect(recorder.turns).toHaveLength(1);
    expect(recorder.turns[0]).toMatchObject({ kind: 'greeting', assistantText: 'Hello!', interrupted: false });
  });
});
