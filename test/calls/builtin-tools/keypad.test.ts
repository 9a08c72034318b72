/**
 * collect_keypad in a session (issue 20): the caller's key presses (the leg's `dtmf` events)
 * are collected until the stop key, or until `timeout` seconds after the last key, and handed
 * to the LLM as the function's result. On a fake clock; the leg is driven by hand (a carrier's
 * events), the LLM is a scripted provider that calls the function and then ends the call.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { BuiltinToolbox } from '../../../src/calls/builtin-tools/index.js';
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
