/**
 * The caller's keys in `mode: multimodal`, against the Realtime double over its WebSocket
 * protocol: keys in a row are a user message `[keypad: 42#]` to the model (then
 * `response.create`), whose answer the caller hears; a key pressed while the assistant speaks
 * cuts it off (playback cleared, the answer cancelled and cut to what was heard) even with
 * interruptions off; keys a collect-keypad call takes are its alone. The transcript and the
 * turn record read as in the pipeline (compared with the same keys on a pipeline call), and a
 * whole call session passes its leg's `dtmf` events on to the model and records the keypad turn.
 */
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallSession } from '../../src/calls/session.js';
import { ToolRunner } from '../../src/calls/tool-runner.js';
import { voiceFactory } from '../../src/voice/factory.js';
import type { Frame } from '../../src/voice/frames.js';
import { KEYPAD_GAP_MS } from '../../src/voice/keypad.js';
import { systemClock } from '../../src/telephony/clock.js';
import { SandboxMedia } from '../../src/telephony/sandbox/media.js';
import type { CarrierLeg, LegEvent } from '../../src/telephony/types.js';
import { fixture } from '../support/audio-fixtures.js';
import { startVoiceDoubles, type VoiceDoubles } from '../support/doubles/voice.js';
import { doublesRegistry, MULTIMODAL_ROW, multimodalCall } from '../support/multimodal-call.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { sessionSettings } from '../support/voice-session.js';

const log = pino({ level: process.env.VC_DEBUG ? 'debug' : 'silent' });
const PROMPT = 'You are the phone menu of a dental practice.';
const BOOK = fixture('book-appointment').text;
const MENU = 'Press one for opening hours, two for an appointment, or type your patient number and press hash.';

let voice: VoiceDoubles;
let endpoint: Receiver;

beforeAll(async () => {
  voice = await startVoiceDoubles();
  endpoint = await startReceiver(() => ({ status: 200, body: '{"free":["10:00"]}' }));
});

beforeEach(() => {
  voice.realtime.forgetScripts();
  voice.realtime.knobs.chunkDelayMs = 0;
});

afterAll(async () => {
  await voice.close();
  await endpoint.close();
});

const session = () => voice.realtime.sessions.at(-1)!;
/** The user messages in text the model received (the caller's keys). */
const textItems = () =>
  session()
    .received.filter((e) => e.type === 'conversation.item.create' && e.item?.type === 'message')
    .map((e) => e.item);
const keypadItem = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });

/** An audio line whose carrier events (the caller's keys, the hang-up) the test sends. */
class KeypadLeg implements CarrierLeg {
  readonly media = new SandboxMedia(16_000, systemClock);
  private listener: (e: LegEvent) => void = () => undefined;
  onEvent(l: (e: LegEvent) => void) {
    this.listener = l;
  }
  start() {
    this.emit({ type: 'answered', answeredBy: 'human' });
  }
  hangUp() {
    this.media.close();
  }
  emit(e: LegEvent) {
    this.listener(e);
  }
}

function call(mode: 'multimodal' | 'pipeline' = 'multimodal', extra: { allowInterruptions?: boolean; keysTaken?: () => boolean } = {}) {
  const { keysTaken, ...row } = extra;
  return multimodalCall({ voice, log, prompt: PROMPT, toolEndpoint: endpoint.url, rate: 16_000, row: { ...row, mode }, keysTaken });
}

describe('mode multimodal: the caller\'s keys', () => {
  it('4, 2, # are a message [keypad: 42#] to the model and a response.create; its answer is heard; transcript, turn and record as in the pipeline', { timeout: 30_000 }, async () => {
    const ANSWER = 'Thank you, patient number forty-two.';
    voice.realtime.on('[keypad: 42#]', { text: ANSWER });
    const c = call();
    const answered = c.waitFor((f) => f.kind === 'playback-done');
    for (const key of ['4', '2', '#']) c.vc.dtmf(key);
    const done = await answered;

    const received = session().received;
    const i = received.findIndex((e) => e.type === 'conversation.item.create');
    expect(received[i].item).toEqual(keypadItem('[keypad: 42#]'));
    expect(received[i + 1]).toEqual({ type: 'response.create' });
    expect(textItems()).toHaveLength(1);
    // The model's answer is what the caller heard.
    expect(voice.clips.matchAudio(c.media.heard(), 16_000)?.text).toBe(ANSWER);
    expect(c.audioOf(done.turn).length).toBe(c.media.heard().length);
    // Every key still flows as a frame of its own.
    expect(c.frames.flatMap((f) => (f.kind === 'dtmf' ? [f.digit] : []))).toEqual(['4', '2', '#']);
    expect(c.lines).toEqual([
      { speaker: 'Customer', text: '[keypad: 42#]' },
      { speaker: 'AI', text: ANSWER },
    ]);
    expect(c.recorder.turns).toMatchObject([{ kind: 'reply', callerText: '[keypad: 42#]', assistantText: ANSWER, interrupted: false }]);
    expect(c.messages.slice(1)).toEqual([
      { role: 'user', content: '[keypad: 42#]' },
      { role: 'assistant', content: ANSWER },
    ]);
    await c.vc.close('test over');

    // The same keys on a pipeline call (the chat double as the LLM): the same transcript, turn and record.
    voice.llm.on('[keypad: 42#]', { text: ANSWER });
    const p = call('pipeline');
    const spoken = p.waitFor((f) => f.kind === 'playback-done');
    for (const key of ['4', '2', '#']) p.vc.dtmf(key);
    await spoken;
    expect(p.lines).toEqual(c.lines);
    expect(p.recorder.turns.map((t) => [t.kind, t.callerText, t.assistantText])).toEqual(c.recorder.turns.map((t) => [t.kind, t.callerText, t.assistantText]));
    expect(p.messages).toEqual(c.messages);
    await p.vc.close('test over');
  });

  it("a whole call: the leg's dtmf events reach the model through the session; the call's transcript has the keypad turn", { timeout: 30_000 }, async () => {
    const GREETING = 'Hello, dental practice. Type your patient number and press hash.';
    const ANSWER = 'Thank you, patient forty-two. Goodbye!';
    voice.realtime.on('[keypad: 42#]', { text: ANSWER, toolCalls: [{ name: 'end-call', args: {} }] });
    const leg = new KeypadLeg();
    const providers = doublesRegistry(voice);
    const factory = voiceFactory(MULTIMODAL_ROW, providers, { clock: systemClock, log })!;
    const done = new CallSession(sessionSettings({ systemPrompt: PROMPT, initialMessage: GREETING }), {
      leg,
      llm: providers.llm,
      tools: new ToolRunner({ allowPrivate: true, log }),
      clock: systemClock,
      log,
      voice: factory,
    }).run();
    // The greeting has been heard to its end (a key during it would cut it off), then the caller types.
    await vi.waitFor(
      () => {
        expect(voice.clips.matchAudio(leg.media.heard(), 16_000)?.text).toBe(GREETING);
        expect(leg.media.pendingMs).toBe(0);
      },
      { timeout: 10_000, interval: 50 },
    );
    await new Promise((r) => setTimeout(r, 300));
    for (const digit of ['4', '2', '#']) leg.emit({ type: 'dtmf', digit });
    const result = await done;
    expect(result.status).toBe('completed');
    expect(result.transcript.split('\n')).toEqual([`AI: ${GREETING}`, 'Customer: [keypad: 42#]', `AI: ${ANSWER}`]);
    expect(result.customerUtterances).toBe(1);
    expect(textItems()).toEqual([keypadItem('[keypad: 42#]')]);
  });

  it(`a key without # is the caller's turn ${KEYPAD_GAP_MS} ms after the last key`, { timeout: 30_000 }, async () => {
    voice.realtime.on('[keypad: 2]', { text: 'An appointment, then.' });
    const c = call();
    const answered = c.waitFor((f) => f.kind === 'playback-done');
    const pressedAt = Date.now();
    c.vc.dtmf('2');
    const customer = (await c.waitFor((f) => f.kind === 'end-of-turn')) as Extract<Frame, { kind: 'end-of-turn' }>;
    expect(Date.now() - pressedAt).toBeGreaterThanOrEqual(KEYPAD_GAP_MS - 20);
    expect(customer.text).toBe('[keypad: 2]');
    await answered;
    expect(textItems()).toEqual([keypadItem('[keypad: 2]')]);
    expect(c.lines).toEqual([
      { speaker: 'Customer', text: '[keypad: 2]' },
      { speaker: 'AI', text: 'An appointment, then.' },
    ]);
    await c.vc.close('test over');
  });

  it('a key during the assistant\'s speech clears playback, cancels the answer and cuts it to what was heard (interruptions off); then the keys are answered', { timeout: 40_000 }, async () => {
    voice.realtime.on(BOOK, { text: MENU });
    voice.realtime.on('[keypad: 1#]', { text: 'We are open from eight to six.' });
    // The model is still producing the menu when the caller presses a key (faster than real time).
    voice.realtime.knobs.chunkDelayMs = 60;
    const c = call('multimodal', { allowInterruptions: false });
    const audible = c.waitFor((f) => f.kind === 'audio-out');
    await c.speak('book-appointment', 800);
    const first = await audible;
    // About a second of the menu plays, then the caller presses 1 and # (the keys end at once).
    await new Promise((r) => setTimeout(r, 1000));
    const cut = c.waitFor((f) => f.kind === 'interruption');
    const answered = c.waitFor((f) => f.kind === 'playback-done' && f.turn > first.turn, 20_000);
    c.vc.dtmf('1');
    const interruption = (await cut) as Extract<Frame, { kind: 'interruption' }>;
    c.vc.dtmf('#');
    await answered;

    expect(interruption.turn).toBe(first.turn);
    expect(c.media.clears).toBe(1);
    const record = session();
    const types = record.received.map((e) => e.type);
    expect(types.slice(types.indexOf('response.cancel'))).toEqual(['response.cancel', 'conversation.item.truncate', 'conversation.item.create', 'response.create']);
    expect(record.truncations).toHaveLength(1);
    expect(record.truncations[0]!.audio_end_ms).toBe(Math.floor(interruption.heardMs!));
    // The double refuses a second active answer: none was asked for while the cut one was ending.
    expect(record.sent.filter((e) => e.type === 'error')).toEqual([]);
    const heardText = interruption.heardText;
    expect(heardText.length).toBeGreaterThan(0);
    expect(heardText.length).toBeLessThan(MENU.length);
    expect(MENU.startsWith(heardText)).toBe(true);

    expect(c.lines).toEqual([
      { speaker: 'Customer', text: BOOK },
      { speaker: 'AI', text: heardText },
      { speaker: 'Customer', text: '[keypad: 1#]' },
      { speaker: 'AI', text: 'We are open from eight to six.' },
    ]);
    expect(c.recorder.turns).toMatchObject([
      { callerText: BOOK, assistantText: heardText, interrupted: true },
      { callerText: '[keypad: 1#]', assistantText: 'We are open from eight to six.', interrupted: false },
    ]);
    expect(c.messages.slice(1)).toEqual([
      { role: 'user', content: BOOK },
      { role: 'assistant', content: heardText },
      { role: 'user', content: '[keypad: 1#]' },
      { role: 'assistant', content: 'We are open from eight to six.' },
    ]);
    await c.vc.close('test over');
  });

  it('keys a collect-keypad call takes are its alone: no message to the model, no turn; the frames still flow', { timeout: 30_000 }, async () => {
    voice.realtime.on('[keypad: 5#]', { text: 'Five it is.' });
    let collecting = true;
    const c = call('multimodal', { keysTaken: () => collecting });
    // The session is open (a scripted line went through it) before the keys come.
    await c.vc.say('Please type your PIN.', 'reply');
    for (const key of ['7', '3', '1', '#']) c.vc.dtmf(key);
    await new Promise((r) => setTimeout(r, 300));
    expect(textItems()).toEqual([]);
    expect(c.frames.some((f) => f.kind === 'end-of-turn')).toBe(false);
    expect(c.frames.flatMap((f) => (f.kind === 'dtmf' ? [f.digit] : []))).toEqual(['7', '3', '1', '#']);

    // Done collecting: the next keys are the caller's turn again.
    collecting = false;
    const answered = c.waitFor((f) => f.kind === 'playback-done' && f.text === 'Five it is.');
    c.vc.dtmf('5');
    c.vc.dtmf('#');
    await answered;
    expect(textItems()).toEqual([keypadItem('[keypad: 5#]')]);
    expect(c.lines).toEqual([
      { speaker: 'AI', text: 'Please type your PIN.' },
      { speaker: 'Customer', text: '[keypad: 5#]' },
      { speaker: 'AI', text: 'Five it is.' },
    ]);
    await c.vc.close('test over');
  });
});
