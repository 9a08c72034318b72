/**
 * collect_keypad in a session (issue 20): the caller's key presses (the leg's `dtmf` events)
 * are collected until the stop key, or until `timeout` seconds after the last key, and handed
 * to the LLM as the function's result. On a fake clock; the leg is driven by hand (a carrier's
 * events), the LLM is a scripted provider that calls the function and then ends the call.
 * The first timeout counts from when the caller has heard the request for keys (the call's
 * `spokenSoFar` hook), not from the function's call: the model asks and calls in one answer.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { BuiltinToolbox, type BuiltinResult } from '../../../src/calls/builtin-tools/index.js';
import { CallSession, END_CALL_TOOL, type SessionSettings } from '../../../src/calls/session.js';
import type { ChatMessage, CompletionRequest, LlmProvider } from '../../../src/providers/llm/types.js';
import { FakeClock } from '../../../src/telephony/clock.js';
import type { CarrierLeg, LegEvent } from '../../../src/telephony/types.js';

const log = pino({ level: 'silent' });

class ManualLeg implements CarrierLeg {
  listener: (e: LegEvent) => void = () => undefined;
  said: string[] = [];
  onEvent(l: (e: LegEvent) => void) {
    this.listener = l;
  }
  start() {}
  async say(text: string) {
    this.said.push(text);
  }
  hangUp() {}
  emit(e: LegEvent) {
    this.listener(e);
  }
}

const settings: SessionSettings = {
  systemPrompt: 'Collect the PIN.',
  initialMessage: 'Please type your PIN.',
  waitForCustomer: false,
  endCallOnVoicemail: false,
  maxDurationSec: 600,
  maxSilenceSec: 120,
  reengagementSec: 100,
  model: 'm',
  temperature: 0,
  tools: [],
  endCallDescription: null,
  variables: {},
};

/** Calls collect-keypad on the first request, ends the call on the second; keeps every request. */
function keypadModel(requests: CompletionRequest[]): LlmProvider {
  return {
    label: 'scripted',
    standIn: false,
    extract: async () => ({}),
    complete: async (req) => {
      requests.push({ ...req, messages: [...req.messages] });
      return requests.length === 1
        ? { text: '', toolCalls: [{ id: 'k1', name: 'collect-keypad', arguments: '{}' }] }
        : { text: 'Thank you.', toolCalls: [{ id: 'k2', name: END_CALL_TOOL, arguments: '{}' }] };
    },
  };
}

async function run(stopKey: '#' | null, press: (leg: ManualLeg, clock: FakeClock, requests: CompletionRequest[]) => Promise<void>) {
  const clock = new FakeClock();
  const leg = new ManualLeg();
  const requests: CompletionRequest[] = [];
  const builtins = new BuiltinToolbox([{ type: 'collect_keypad', data: { timeout: 5, stop_key: stopKey } }], {
    leg,
    clock,
    log,
    allowPrivate: false,
    unseal: () => '',
    timezone: 'UTC',
  });
  const session = new CallSession(settings, { leg, llm: keypadModel(requests), tools: { run: async () => ({ ok: true, content: '{}', durationMs: 0 }) }, clock, log, builtins });
  const done = session.run();
  leg.emit({ type: 'answered', answeredBy: 'human' });
  leg.emit({ type: 'customer-said', text: 'Okay.' });
  await clock.advance(0);
  await press(leg, clock, requests);
  const result = await done;
  const toolMessage = requests[1]?.messages.at(-1) as Extract<ChatMessage, { role: 'tool' }> | undefined;
  return { result, requests, toolMessage };
}

describe('collect_keypad', () => {
  it('offers collect-keypad and returns the keys pressed before the stop key', async () => {
    const { result, requests, toolMessage } = await run('#', async (leg, clock) => {
      for (const d of ['4', '2', '*', '7']) {
        leg.emit({ type: 'dtmf', digit: d });
        await clock.advance(1_000);
      }
      leg.emit({ type: 'dtmf', digit: '#' });
      await clock.advance(0);
    });
    expect(requests[0].tools.map((x) => x.name)).toEqual(['collect-keypad', END_CALL_TOOL]);
    expect(toolMessage).toEqual({ role: 'tool', tool_call_id: 'k1', content: JSON.stringify({ digits: '42*7', ended_by: 'stop_key' }) });
    expect(result.status).toBe('completed');
    expect(result.toolCalls).toEqual([{ name: 'collect-keypad', ok: true, durationMs: 4_000 }]);
  });

  it('ends the collection `timeout` seconds after the last key when no stop key comes', async () => {
    const { toolMessage, result } = await run(null, async (leg, clock, requests) => {
      leg.emit({ type: 'dtmf', digit: '1' });
      await clock.advance(4_999);
      leg.emit({ type: 'dtmf', digit: '9' });
      await clock.advance(4_999);
      expect(requests).toHaveLength(1); // still collecting: the model has not been asked again

      await clock.advance(1);
    });
    expect(toolMessage?.content).toBe(JSON.stringify({ digits: '19', ended_by: 'timeout' }));
    expect(result.toolCalls[0].durationMs).toBe(9_999);
  });
});

describe('collect_keypad while the request for keys is still playing', () => {
  /** A toolbox on the call's hooks, whose `spokenSoFar` resolves when the test says the request has played. */
  function toolbox(timeout: number) {
    const clock = new FakeClock();
    const builtins = new BuiltinToolbox([{ type: 'collect_keypad', data: { timeout, stop_key: null } }], {
      leg: new ManualLeg(),
      clock,
      log,
      allowPrivate: false,
      unseal: () => '',
      timezone: 'UTC',
    });
    let played!: () => void;
    const playing = new Promise<void>((resolve) => (played = resolve));
    builtins.attach({ sayToCaller: async () => undefined, spokenSoFar: () => playing, note: () => undefined, callEnded: new AbortController().signal, brief: async () => undefined });
    const result: { value: BuiltinResult | null; at: number | null } = { value: null, at: null };
    void builtins.run('collect-keypad', '{}').then((value) => Object.assign(result, { value, at: clock.now() }));
    return { clock, builtins, played, result };
  }

  it('keeps keys typed during the request and counts the timeout from when it was heard', async () => {
    const { clock, builtins, played, result } = toolbox(1);
    expect(builtins.collectingKeys).toBe(true);
    await clock.advance(5_000); // a long request: far longer than the timeout, and nothing ends
    expect(result.value).toBeNull();
    builtins.onDigit('4'); // typed before the request ended
    await clock.advance(2_000);
    expect(result.value).toBeNull();

    played(); // at 7 s
    await clock.advance(999);
    builtins.onDigit('2'); // a later key restarts the timer, as before
    await clock.advance(999);
    expect(result.value).toBeNull();
    await clock.advance(1);
    expect(result).toEqual({ value: { ok: true, content: JSON.stringify({ digits: '42', ended_by: 'timeout' }) }, at: 8_999 });
  });

  it('ends empty `timeout` seconds after the request was heard when no key comes', async () => {
    const { clock, played, result } = toolbox(1);
    await clock.advance(3_000);
    played();
    await clock.advance(999);
    expect(result.value).toBeNull();
    await clock.advance(1);
    expect(result).toEqual({ value: { ok: true, content: JSON.stringify({ digits: '', ended_by: 'timeout' }) }, at: 4_000 });
  });

  it('on a text leg, counts from when the line with the request was said', async () => {
    const clock = new FakeClock();
    // The leg takes 3 s to say a line (a carrier reading it out); the model asks and calls in one answer.
    const leg = new (class extends ManualLeg {
      override async say(text: string) {
        this.said.push(text);
        await new Promise<void>((resolve) => clock.setTimer(3_000, resolve));
      }
    })();
    const requests: CompletionRequest[] = [];
    const llm: LlmProvider = {
      label: 'scripted',
      standIn: false,
      extract: async () => ({}),
      complete: async (req) => {
        requests.push({ ...req, messages: [...req.messages] });
        return requests.length === 1
          ? { text: 'Please type your PIN.', toolCalls: [{ id: 'k1', name: 'collect-keypad', arguments: '{}' }] }
          : { text: '', toolCalls: [{ id: 'k2', name: END_CALL_TOOL, arguments: '{}' }] };
      },
    };
    const builtins = new BuiltinToolbox([{ type: 'collect_keypad', data: { timeout: 1, stop_key: null } }], { leg, clock, log, allowPrivate: false, unseal: () => '', timezone: 'UTC' });
    const session = new CallSession({ ...settings, initialMessage: '', waitForCustomer: true }, { leg, llm, tools: { run: async () => ({ ok: true, content: '{}', durationMs: 0 }) }, clock, log, builtins });
    const done = session.run();
    leg.emit({ type: 'answered', answeredBy: 'human' });
    leg.emit({ type: 'customer-said', text: 'Hello.' });
    await clock.advance(3_500); // said at 3 s
    leg.emit({ type: 'dtmf', digit: '8' });
    await clock.advance(999);
    expect(requests).toHaveLength(1);
    await clock.advance(1);
    const result = await done;
    expect(requests[1].messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'k1', content: JSON.stringify({ digits: '8', ended_by: 'timeout' }) });
    expect(result.toolCalls[0]).toEqual({ name: 'collect-keypad', ok: true, durationMs: 1_500 });
  });
});
