/**
 * The caller's keypad as frames on a virtual clock: keys in a row are one turn (`#` ends it at
 * once, else the gap after the last key), a key cuts the speaking assistant off, and keys a
 * collect-keypad tool takes make no turn. Every `dtmf` frame flows on.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Frame } from '../../src/voice/frames.js';
import { KEYPAD_GAP_MS, KeypadStage } from '../../src/voice/keypad.js';
import { Pipeline } from '../../src/voice/pipeline.js';
import { Floor } from '../../src/voice/settings.js';
import { FakeClock } from '../../src/telephony/clock.js';

const log = pino({ level: 'silent' });

function setup(keysTaken?: () => boolean, opensTurn?: boolean) {
  const clock = new FakeClock();
  const floor = new Floor();
  const p = new Pipeline([new KeypadStage({ floor, clock, keysTaken, opensTurn })], { clock, log });
  const out: string[] = [];
  p.onOutput((f: Frame) => {
    if (f.kind === 'dtmf') out.push(`dtmf:${f.digit}`);
    else if (f.kind === 'end-of-turn') out.push(`end-of-turn#${f.turn}:${f.text}`);
    else if (f.kind === 'turn-started') out.push(`turn-started#${f.turn}:${f.turnKind}:${f.callerText}`);
    else if (f.kind === 'cancel') out.push(`cancel#${f.turn}:${f.reason}`);
  });
  const press = (digit: string) => p.push({ kind: 'dtmf', turn: p.turns.current, digit, at: clock.now() });
  return { clock, floor, p, out, press };
}

describe('KeypadStage', () => {
  it('makes keys in a row one caller turn, after the gap following the last key', async () => {
    const { clock, out, press, floor } = setup();
    press('1');
    await clock.advance(500);
    press('2');
    await clock.advance(KEYPAD_GAP_MS - 1);
    expect(out).toEqual(['dtmf:1', 'dtmf:2']);
    await clock.advance(1);
    expect(out).toEqual(['dtmf:1', 'dtmf:2', 'end-of-turn#0:[keypad: 12]', 'turn-started#1:reply:[keypad: 12]']);
    expect(floor.assistantTurn).toBe(1);
  });

  it('ends the keys at once on #', async () => {
    const { out, press } = setup();
    press('4');
    press('2');
    press('#');
    expect(out.slice(3)).toEqual(['end-of-turn#0:[keypad: 42#]', 'turn-started#1:reply:[keypad: 42#]']);
  });

  it('cuts the speaking assistant off with the first key', async () => {
    const { out, press, floor, p, clock } = setup();
    const speaking = p.turns.begin();
    floor.assistantTakes(speaking);
    press('5');
    expect(out).toEqual(['dtmf:5', `cancel#${speaking}:barge-in`]);
    expect(floor.assistantSpeaking).toBe(false);
    await clock.advance(KEYPAD_GAP_MS);
    expect(out.slice(2)).toEqual([`end-of-turn#${speaking}:[keypad: 5]`, `turn-started#${speaking + 1}:reply:[keypad: 5]`]);
  });

  it('opensTurn false (multimodal: the model\'s answer opens the reply): the keys end the caller\'s turn only; a key still cuts the assistant off', async () => {
    const { out, press, floor, p } = setup(undefined, false);
    const speaking = p.turns.begin();
    floor.assistantTakes(speaking);
    press('4');
    press('#');
    expect(out).toEqual(['dtmf:4', `cancel#${speaking}:barge-in`, 'dtmf:#', `end-of-turn#${speaking}:[keypad: 4#]`]);
    expect(floor.assistantSpeaking).toBe(false);
    expect(p.turns.current).toBe(speaking);
  });

  it('leaves keys a collect-keypad tool takes to it: no turn, the frames still flow', async () => {
    let taken = true;
    const { out, press, clock } = setup(() => taken);
    press('9');
    press('#');
    await clock.advance(KEYPAD_GAP_MS * 2);
    expect(out).toEqual(['dtmf:9', 'dtmf:#']);
    taken = false;
    press('3');
    await clock.advance(KEYPAD_GAP_MS);
    expect(out.slice(2)).toEqual(['dtmf:3', 'end-of-turn#0:[keypad: 3]', 'turn-started#1:reply:[keypad: 3]']);
  });
});
