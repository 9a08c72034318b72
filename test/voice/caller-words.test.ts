/**
 * No caller word lost (issue 26, item 5), as sequences of frames on a virtual clock through the
 * caller-side stages (interruption → turn-taking → keypad): keys pressed during a sentence and
 * the sentence are one turn; words said over a line the caller could not cut off (interruptions
 * off, too few words, speech that began just before the line) are held and reach the next turn —
 * at once when the line is over and they are more than a backchannel.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { CallerWords } from '../../src/voice/caller-words.js';
import type { Frame } from '../../src/voice/frames.js';
import { InterruptionStage } from '../../src/voice/interruption.js';
import { KEYPAD_GAP_MS, KeypadStage } from '../../src/voice/keypad.js';
import { Pipeline } from '../../src/voice/pipeline.js';
import { Floor } from '../../src/voice/settings.js';
import { PolicyTurnTakingStage } from '../../src/voice/turn-policy-stage.js';
import { turnWaits } from '../../src/voice/turn/policy.js';
import { BackchannelDetector } from '../../src/voice/turn/backchannel.js';
import { FakeClock } from '../../src/telephony/clock.js';

const log = pino({ level: 'silent' });
/** The longest the turn-taking policy waits at default settings (after an open clause). */
const ENDPOINT_MS = turnWaits(0.5).incompleteMs;

function setup(opts: { allowInterruptions?: boolean; minInterruptWords?: number } = {}) {
  const clock = new FakeClock();
  const floor = new Floor();
  const words = new CallerWords();
  const backchannels = new BackchannelDetector('en');
  const p = new Pipeline(
    [
      new InterruptionStage({ allowInterruptions: opts.allowInterruptions ?? true, minInterruptWords: opts.minInterruptWords ?? 0, floor }),
      new PolicyTurnTakingStage({ endpointType: 'vad', endpointSensitivity: 0.5, language: 'en', floor, clock, words, isBackchannel: (t) => backchannels.isBackchannel(t) }),
      new KeypadStage({ floor, clock, words }),
    ],
    { clock, log },
  );
  const out: string[] = [];
  p.onOutput((f: Frame) => {
    if (f.kind === 'end-of-turn') out.push(`end-of-turn:${f.text}`);
    else if (f.kind === 'turn-started') out.push(`turn-started#${f.turn}:${f.callerText}`);
    else if (f.kind === 'cancel') out.push(`cancel#${f.turn}`);
  });
  const at = () => clock.now();
  const caller = {
    starts: () => p.push({ kind: 'speech-started', turn: p.turns.current, probability: 0.9, at: at() }),
    stops: () => p.push({ kind: 'speech-stopped', turn: p.turns.current, at: at() }),
    says: (text: string) => p.push({ kind: 'transcript', turn: p.turns.current, text, final: true, speechFinal: false, at: at() }),
    interim: (text: string) => p.push({ kind: 'transcript', turn: p.turns.current, text, final: false, speechFinal: false, at: at() }),
    presses: (digit: string) => p.push({ kind: 'dtmf', turn: p.turns.current, digit, at: at() }),
  };
  /** The assistant says a line (as VoiceCall.say: a turn of its own that holds the floor). */
  const line = () => {
    const turn = p.turns.begin();
    floor.assistantTakes(turn);
    return turn;
  };
  /** The line played out: the output stage frees the floor and sends playback-done up. */
  const played = (turn: number) => {
    floor.assistantDone(turn);
    p.push({ kind: 'playback-done', turn, text: 'the line', at: at() });
  };
  return { clock, floor, p, out, caller, line, played };
}

describe('no caller word lost', () => {
  it('a key pressed during a sentence: the sentence and the key are one turn, after the words', async () => {
    const { clock, out, caller } = setup();
    caller.starts();
    caller.interim('I would like to pay');
    await clock.advance(300);
    caller.presses('5');
    // The caller goes on speaking well past the keypad gap: the keys wait for the words.
    await clock.advance(KEYPAD_GAP_MS + 500);
    expect(out).toEqual([]);
    caller.says('I would like to pay my bill');
    caller.stops();
    await clock.advance(ENDPOINT_MS);
    expect(out).toEqual(['end-of-turn:I would like to pay my bill [keypad: 5]', 'turn-started#1:I would like to pay my bill [keypad: 5]']);
  });

  it('"#" during a sentence ends nothing early: one turn with the words and the keys', async () => {
    const { clock, out, caller } = setup();
    caller.starts();
    caller.says('my account number is');
    caller.presses('4');
    caller.presses('2');
    caller.presses('#');
    expect(out).toEqual([]);
    caller.stops();
    await clock.advance(ENDPOINT_MS);
    expect(out).toEqual(['end-of-turn:my account number is [keypad: 42#]', 'turn-started#1:my account number is [keypad: 42#]']);
  });

  it('keys pressed during a sound that never becomes words (a cough) are a turn once the end of turn gives up on its words', async () => {
    const { clock, out, caller } = setup();
    caller.starts();
    caller.presses('5');
    await clock.advance(KEYPAD_GAP_MS + 100);
    caller.stops();
    expect(out).toEqual([]);
    // No words: the policy waits the plain silence, asks the STT for a final, and gives up.
    await clock.advance(5000);
    expect(out).toEqual(['end-of-turn:[keypad: 5]', 'turn-started#1:[keypad: 5]']);
  });

  it('keys while the caller is silent are a turn of their own, as before', async () => {
    const { clock, out, caller } = setup();
    caller.presses('1');
    await clock.advance(KEYPAD_GAP_MS);
    expect(out).toEqual(['end-of-turn:[keypad: 1]', 'turn-started#1:[keypad: 1]']);
  });

  it('a key that cuts a line off, then words: the keys wait for the words and both are answered', async () => {
    const { clock, out, caller, line } = setup({ allowInterruptions: false });
    const turn = line();
    caller.presses('3');
    expect(out).toEqual([`cancel#${turn}`]);
    caller.starts();
    caller.says('and I want the second option');
    await clock.advance(KEYPAD_GAP_MS + 100);
    caller.stops();
    await clock.advance(ENDPOINT_MS);
    expect(out.slice(1)).toEqual([
      'end-of-turn:and I want the second option [keypad: 3]',
      `turn-started#${turn + 1}:and I want the second option [keypad: 3]`,
    ]);
  });

  it('words over a line the caller cannot cut off (interruptions off) are answered once the line is over', async () => {
    const { clock, out, caller, line, played } = setup({ allowInterruptions: false });
    const turn = line();
    caller.starts();
    caller.says('what about Tuesday');
    caller.stops();
    await clock.advance(ENDPOINT_MS);
    expect(out).toEqual([]);
    played(turn);
    expect(out).toEqual(['end-of-turn:what about Tuesday', `turn-started#${turn + 1}:what about Tuesday`]);
  });

  it('speech that began just before a line: its words are not dropped', async () => {
    const { clock, out, caller, line, played } = setup();
    caller.starts();
    await clock.advance(100);
    // The re-engagement line starts while the caller is already speaking (no onset to cut it off).
    const turn = line();
    caller.says('yes I am still here');
    caller.stops();
    await clock.advance(ENDPOINT_MS);
    expect(out).toEqual([]);
    played(turn);
    expect(out).toEqual(['end-of-turn:yes I am still here', `turn-started#${turn + 1}:yes I am still here`]);
  });

  it('a backchannel over a reply opens no turn; it joins the caller\'s next words', async () => {
    const { clock, out, caller, line, played } = setup({ minInterruptWords: 2 });
    const turn = line();
    caller.starts();
    caller.says('mhm');
    caller.stops();
    await clock.advance(ENDPOINT_MS);
    played(turn);
    expect(out).toEqual([]);
    caller.starts();
    caller.says('yes please book it');
    caller.stops();
    await clock.advance(ENDPOINT_MS);
    expect(out).toEqual(['end-of-turn:mhm yes please book it', `turn-started#${turn + 1}:mhm yes please book it`]);
  });

  it('words held over a line and keys pressed after it are one turn', async () => {
    const { clock, out, caller, line, played } = setup({ minInterruptWords: 3 });
    const turn = line();
    caller.starts();
    caller.says('okay');
    caller.stops();
    await clock.advance(ENDPOINT_MS);
    played(turn);
    caller.presses('7');
    await clock.advance(KEYPAD_GAP_MS);
    expect(out).toEqual(['end-of-turn:okay [keypad: 7]', `turn-started#${turn + 1}:okay [keypad: 7]`]);
  });
});
