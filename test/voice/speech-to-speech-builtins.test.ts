/**
 * Built-in tools in `mode: multimodal`, as sequences of events against the Realtime double over
 * its WebSocket protocol, in a whole call session on a hand-driven audio leg (the caller speaks
 * with keys: `[keypad: 1#]` reaches the model as text). The model calls a built-in; the stage
 * runs it through the session's toolbox and returns its output to the model: transfer-call says
 * its message (`Say exactly:`) and hands the leg over once it was heard, collect-keypad gets the
 * caller's keys, press-digits presses keys on the line, transfer-to-assistant sends the model a
 * `session.update` with the other assistant's prompt and functions, then its greeting.
 */
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BuiltinToolbox, type AssistantHandOver } from '../../src/calls/builtin-tools/index.js';
import { CallSession, END_CALL_TOOL, type SessionResult } from '../../src/calls/session.js';
import { ToolRunner } from '../../src/calls/tool-runner.js';
import { voiceFactory } from '../../src/voice/factory.js';
import type { StoredBuiltinTool } from '../../src/db/schema.js';
import { systemClock } from '../../src/telephony/clock.js';
import { SandboxMedia } from '../../src/telephony/sandbox/media.js';
import type { CarrierLeg, LegEvent } from '../../src/telephony/types.js';
import { startVoiceDoubles, type VoiceDoubles } from '../support/doubles/voice.js';
import { doublesRegistry, MULTIMODAL_ROW } from '../support/multimodal-call.js';
import { sessionSettings } from '../support/voice-session.js';

const log = pino({ level: process.env.VC_DEBUG ? 'debug' : 'silent' });
const RATE = 16_000;

/** An audio line whose carrier events (the caller's keys) the test sends; records what the assistant did on it. */
class ToolLeg implements CarrierLeg {
  readonly media = new SandboxMedia(RATE, systemClock);
  readonly sentDigits: string[] = [];
  readonly transfers: { to: string; heardMs: number }[] = [];
  hungUp = false;
  /** The carrier refuses to transfer (Twilio refusing the redirect). */
  refuseTransfer = false;
  private listener: (e: LegEvent) => void = () => undefined;
  onEvent(l: (e: LegEvent) => void) {
    this.listener = l;
  }
  start() {
    this.emit({ type: 'answered', answeredBy: 'human' });
  }
  hangUp() {
    this.hungUp = true;
    this.media.close();
  }
  async transfer(to: string) {
    if (this.refuseTransfer) throw new Error('the carrier refused the transfer');
    this.transfers.push({ to, heardMs: (this.media.heard().length / RATE) * 1000 });
  }
  async sendDigits(digits: string) {
    this.sentDigits.push(digits);
  }
  emit(e: LegEvent) {
    this.listener(e);
  }
  keys(keys: string) {
    for (const digit of keys) this.emit({ type: 'dtmf', digit });
  }
}

let voice: VoiceDoubles;

beforeAll(async () => {
  voice = await startVoiceDoubles();
});

beforeEach(() => voice.realtime.forgetScripts());

afterAll(async () => {
  await voice.close();
});

const session = () => voice.realtime.sessions.at(-1)!;
/** The function outputs the model received, by call id. */
const outputs = () =>
  Object.fromEntries(
    session()
      .received.filter((e) => e.type === 'conversation.item.create' && e.item?.type === 'function_call_output')
      .map((e) => [e.item.call_id, JSON.parse(e.item.output)]),
  );

function toolCall(items: StoredBuiltinTool[], assistantFor?: (id: number) => Promise<AssistantHandOver | null>) {
  const leg = new ToolLeg();
  const providers = doublesRegistry(voice);
  const factory = voiceFactory(MULTIMODAL_ROW, providers, { clock: systemClock, log })!;
  const builtins = new BuiltinToolbox(items, { leg, clock: systemClock, log, allowPrivate: true, unseal: (s) => s, timezone: 'Europe/Berlin', assistantFor });
  const done: Promise<SessionResult> = new CallSession(sessionSettings({ systemPrompt: 'You help callers.', initialMessage: '', waitForCustomer: true }), {
    leg,
    llm: providers.llm,
    tools: new ToolRunner({ allowPrivate: true, log }),
    clock: systemClock,
    log,
    voice: factory,
    builtins,
  }).run();
  return { leg, builtins, done };
}

/** Resolves once `check` holds (polled; generous for a loaded machine). */
async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('mode multimodal: built-in tools', () => {
  it('transfer-call: its output reaches the model, its message is said, then the leg is handed over; the transcript ends with the transfer line', { timeout: 30_000 }, async () => {
    voice.realtime.on('[keypad: 0#]', { toolCalls: [{ id: 'tr_1', name: 'transfer-call', args: {} }] });
    const { leg, done } = toolCall([{ type: 'call_transfer', data: { phone_number: '+4930123456', warm_transfer: true, warm_transfer_message: 'Connecting you to sales now.' } }]);
    await until(() => voice.realtime.sessions.length > 0 && session().received.some((e) => e.type === 'session.update'), 'the session');
    leg.keys('0#');
    const result = await done;
    expect(outputs()).toEqual({ tr_1: { ok: true, transferred_to: '+4930123456' } });
    // The output asks for no answer of the model's own; the message is asked for exactly.
    const events = session().received.filter((e) => e.type !== 'input_audio_buffer.append');
    const at = events.findIndex((e) => e.item?.type === 'function_call_output');
    expect(events.slice(at + 1).map((e) => [e.type, e.response?.instructions])).toEqual([['response.create', 'Say exactly: Connecting you to sales now.']]);
    expect(leg.transfers.map((t) => t.to)).toEqual(['+4930123456']);
    // The message was played out before the hand-over.
    expect(leg.transfers[0]!.heardMs).toBeGreaterThan(1000);
    expect(leg.hungUp).toBe(false);
    expect(result.status).toBe('completed');
    expect(result.transcript.split('\n')).toEqual(['Customer: [keypad: 0#]', 'AI: Connecting you to sales now.', 'Transfer: the call was transferred to +4930123456.']);
    expect(result.toolCalls.map((c) => [c.name, c.ok])).toEqual([['transfer-call', true]]);
  });

  it('transfer-call refused by the carrier: the transcript says so, the model is asked to tell the caller, the call goes on', { timeout: 30_000 }, async () => {
    voice.realtime.on('[keypad: 9#]', { toolCalls: [{ id: 'tr_2', name: 'transfer-call', args: {} }] }, { text: 'I could not put you through, sorry. Goodbye.', toolCalls: [{ name: END_CALL_TOOL, args: {} }] });
    const { leg, done } = toolCall([{ type: 'call_transfer', data: { phone_number: '+4930123456', warm_transfer: true, warm_transfer_message: 'Connecting you now.' } }]);
    leg.refuseTransfer = true;
    await until(() => voice.realtime.sessions.length > 0 && session().received.some((e) => e.type === 'session.update'), 'the session');
    leg.keys('9#');
    const result = await done;
    const asked = session().received.filter((e) => e.type === 'response.create').map((e) => e.response?.instructions ?? null);
    expect(asked).toEqual([null, 'Say exactly: Connecting you now.', 'The transfer failed: the carrier could not transfer the call. Tell the caller.']);
    expect(result.transcript.split('\n')).toEqual([
      'Customer: [keypad: 9#]',
      'AI: Connecting you now.',
      'Transfer: the carrier could not transfer the call.',
      'AI: I could not put you through, sorry. Goodbye.',
    ]);
    expect(result.status).toBe('completed');
  });

  it('collect-keypad: the caller types 4, 2, # and the model gets {"digits":"42","ended_by":"stop_key"}', { timeout: 30_000 }, async () => {
    voice.realtime.on('[keypad: 1#]', { toolCalls: [{ id: 'ck_1', name: 'collect-keypad', args: {} }] }, { text: 'Thank you, forty-two.', toolCalls: [{ name: END_CALL_TOOL, args: {} }] });
    const { leg, builtins, done } = toolCall([{ type: 'collect_keypad', data: { timeout: 10, stop_key: '#' } }]);
    await until(() => voice.realtime.sessions.length > 0 && session().received.some((e) => e.type === 'session.update'), 'the session');
    leg.keys('1#');
    await until(() => builtins.collectingKeys, 'the collect-keypad call');
    leg.keys('42#');
    const result = await done;
    expect(outputs()).toEqual({ ck_1: { digits: '42', ended_by: 'stop_key' } });
    // The keys the tool took were no turn of the caller's.
    expect(result.transcript.split('\n')).toEqual(['Customer: [keypad: 1#]', 'AI: Thank you, forty-two.']);
    expect(result.status).toBe('completed');
  });

  it('press-digits: the keys are pressed on the line and the transcript says so', { timeout: 30_000 }, async () => {
    voice.realtime.on('[keypad: 2#]', { toolCalls: [{ id: 'pd_1', name: 'press-digits', args: { digits: '5w1' } }] }, { text: 'Done, goodbye.', toolCalls: [{ name: END_CALL_TOOL, args: {} }] });
    const { leg, done } = toolCall([{ type: 'dtmf_input', data: {} }]);
    await until(() => voice.realtime.sessions.length > 0 && session().received.some((e) => e.type === 'session.update'), 'the session');
    leg.keys('2#');
    const result = await done;
    expect(leg.sentDigits).toEqual(['5w1']);
    expect(outputs()).toEqual({ pd_1: { ok: true, pressed: '5w1' } });
    expect(result.transcript.split('\n')).toEqual(['Customer: [keypad: 2#]', 'DTMF: the assistant pressed 5w1.', 'AI: Done, goodbye.']);
    expect(result.status).toBe('completed');
  });

  it('transfer-to-assistant: the message, then a session.update with the new prompt and functions, then its greeting; it takes the next turn', { timeout: 40_000 }, async () => {
    voice.realtime.on('[keypad: 3#]', { toolCalls: [{ id: 'ta_1', name: 'transfer-to-assistant', args: {} }] });
    voice.realtime.on('[keypad: 4#]', { text: 'Nothing is owed. Goodbye.', toolCalls: [{ name: END_CALL_TOOL, args: {} }] });
    const { leg, done } = toolCall([{ type: 'assistant_transfer', data: { assistant_id: 7, message_before_transfer: 'One moment, billing takes over.', speak_transfer_greeting: true } }], async (id) => ({
      id,
      name: 'Billing',
      systemPrompt: 'You are the billing assistant.',
      initialMessage: 'Billing here, hello.',
      model: 'billing-model',
      temperature: 0.3,
      tools: [],
      builtinTools: [{ type: 'dtmf_input', data: {} }],
      timezone: 'America/New_York',
      endCallDescription: 'End when billing is settled.',
      voice: () => null,
    }));
    await until(() => voice.realtime.sessions.length > 0 && session().received.some((e) => e.type === 'session.update'), 'the session');
    leg.keys('3#');
    // The greeting (the third answer) has been produced and played out.
    await until(() => session().received.some((e) => e.response?.instructions === 'Say exactly: Billing here, hello.'), 'the greeting asked for', 25_000);
    const heardBefore = leg.media.heard().length;
    await until(() => session().sent.filter((e) => e.type === 'response.done').length === 3, 'the greeting', 25_000);
    // Then the line plays (the double answers faster than real time): the caller types once it has.
    await until(() => leg.media.heard().length > heardBefore && leg.media.pendingMs === 0, 'the greeting played');
    await new Promise((r) => setTimeout(r, 300));
    expect(voice.clips.matchAudio(leg.media.heard().subarray(heardBefore), RATE)?.text).toBe('Billing here, hello.');
    const updates = session().received.filter((e) => e.type === 'session.update');
    expect(updates).toHaveLength(2);
    expect(updates[1]!.session.instructions).toBe('You are the billing assistant.');
    expect(updates[1]!.session.tools.map((t: { name: string }) => t.name)).toEqual(['press-digits', END_CALL_TOOL]);
    expect(outputs()).toEqual({ ta_1: { ok: true, transferred_to_assistant: 'Billing' } });
    const asked = session().received.filter((e) => e.type === 'response.create').map((e) => e.response?.instructions ?? null);
    expect(asked).toEqual([null, 'Say exactly: One moment, billing takes over.', 'Say exactly: Billing here, hello.']);
    leg.keys('4#');
    const result = await done;
    expect(result.transcript.split('\n')).toEqual([
      'Customer: [keypad: 3#]',
      'AI: One moment, billing takes over.',
      'Assistant transfer: the call continues with assistant 7 (Billing).',
      'AI: Billing here, hello.',
      'Customer: [keypad: 4#]',
      'AI: Nothing is owed. Goodbye.',
    ]);
    expect(result.status).toBe('completed');
  });
});
