/**
 * The conversation session on a fake clock: timers (max duration, silence with
 * re-engagement), who speaks first, the stand-in's plan, LLM failures. No real waiting.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { CallSession, END_CALL_TOOL, REENGAGEMENT_LINE, SILENT_VOICEMAIL_MS, type SessionSettings, type ToolExecutor } from '../../src/calls/session.js';
import type { MidCallTool, ToolOutcome } from '../../src/calls/tool-runner.js';
import { OfflineStandInLlm } from '../../src/providers/llm/stand-in.js';
import { LlmError, type CompletionRequest, type LlmProvider } from '../../src/providers/llm/types.js';
import { silenceGoodbyeLine } from '../../src/calls/closing-lines.js';
import { FakeClock } from '../../src/telephony/clock.js';
import { SandboxCarrier } from '../../src/telephony/sandbox/carrier.js';
import type { CarrierLeg, LegEvent } from '../../src/telephony/types.js';

const log = pino({ level: 'silent' });
/** The closing line a silent caller hears at defaults (English). */
const GOODBYE_LINE = silenceGoodbyeLine(null, 'en');

function settings(overrides: Partial<SessionSettings> = {}): SessionSettings {
  return {
    systemPrompt: 'You are helpful.',
    initialMessage: 'Hello Ada, this is Switchboard.',
    waitForCustomer: false,
    endCallOnVoicemail: false,
    maxDurationSec: 600,
    maxSilenceSec: 40,
    reengagementSec: 30,
    model: 'test-model',
    temperature: 0.1,
    tools: [],
    endCallDescription: null,
    variables: { customer_name: 'Ada' },
    ...overrides,
  };
}

/** A model that never ends the call: it always asks for more. */
const chatty: LlmProvider = {
  label: 'chatty',
  standIn: false,
  complete: async () => ({ text: 'Tell me more.', toolCalls: [] }),
  extract: async () => ({}),
};

const noTools: ToolExecutor = { run: async () => ({ ok: true, content: '{}', durationMs: 0 }) };

/** A leg the test drives by hand. */
class ManualLeg implements CarrierLeg {
  listener: (e: LegEvent) => void = () => undefined;
  said: string[] = [];
  hungUp = false;
  onEvent(l: (e: LegEvent) => void) {
    this.listener = l;
  }
  start() {}
  async say(text: string) {
    this.said.push(text);
  }
  hangUp() {
    this.hungUp = true;
  }
  emit(e: LegEvent) {
    this.listener(e);
  }
}

describe('max_call_duration', () => {
  it('ends the call as `ended` exactly when the maximum duration since the answer is reached', async () => {
    const clock = new FakeClock();
    const leg = new SandboxCarrier({ timeScale: 1, clock }).dial({ customer: '+4915100000000', assistant: '', direction: 'outbound' });
    let answeredAt = -1;
    const session = new CallSession(
      settings({ maxDurationSec: 20, reengagementSec: 600, maxSilenceSec: 120 }),
      { leg, llm: chatty, tools: noTools, clock, log },
      { onAnswered: () => (answeredAt = clock.now()) },
    );
    let over = false;
    const done = session.run().then((r) => {
      over = true;
      return r;
    });
    await clock.advance(3300);
    expect(answeredAt).toBe(3300); // connect 300 ms + ring 3000 ms at scale 1
    await clock.advance(19_999);
    expect(over).toBe(false);
    await clock.advance(1);
    const result = await done;
    expect(result.status).toBe('ended');
    expect(result.connected).toBe(true);
    expect(result.talkMs).toBe(20_000);
    expect(result.transcript.split('\n')[0]).toBe('AI: Hello Ada, this is Switchboard.');
    expect(result.transcript).toContain('Customer: Hello, yes, speaking.');
    expect(result.transcript).toContain('AI: Tell me more.');
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('max_silence_duration with re-engagement', () => {
  it('re-engages every interval of silence and hangs up (ended_by_assistant) after max silence past the first re-engagement', async () => {
    const clock = new FakeClock();
    // …94: a voicemail box greets, then stays silent.
    const leg = new SandboxCarrier({ timeScale: 1, clock }).dial({ customer: '+4915100000094', assistant: '', direction: 'outbound' });
    const session = new CallSession(settings({ reengagementSec: 7, maxSilenceSec: 10 }), { leg, llm: chatty, tools: noTools, clock, log });
    let over = false;
    const done = session.run().then((r) => ((over = true), r));
    // answered 3300, greeting at 3600, the assistant's 5-word message takes 5 × 350 ms: silence from 5350.
    const silenceFrom = 5350;
    await clock.advance(silenceFrom + 6_999);
    expect((session as any).lines).not.toContain(`AI: ${REENGAGEMENT_LINE}`);
    await clock.advance(1);
    expect((session as any).lines.filter((l: string) => l === `AI: ${REENGAGEMENT_LINE}`)).toHaveLength(1);
    await clock.advance(7_000);
    expect((session as any).lines.filter((l: string) => l === `AI: ${REENGAGEMENT_LINE}`)).toHaveLength(2);
    await clock.advance(2_999); // 7 s + 10 s − 1 ms
    expect((session as any).lines).not.toContain(`AI: ${GOODBYE_LINE}`);
    await clock.advance(1);
    // At the limit the closing line is said; the hang-up comes once the sandbox said it (8 words × 350 ms).
    expect((session as any).lines.at(-1)).toBe(`AI: ${GOODBYE_LINE}`);
    await clock.advance(2_799);
    expect(over).toBe(false);
    await clock.advance(1);
    const result = await done;
    expect(result).toMatchObject({ status: 'ended_by_assistant', answeredBy: 'machine', connected: true, talkMs: silenceFrom + 17_000 + 2_800 - 3300 });
    expect(result.transcript).toBe(
      [
        'Customer: Hello, you have reached the voicemail of this number. Please leave a message after the tone.',
        'AI: Hello Ada, this is Switchboard.',
        `AI: ${REENGAGEMENT_LINE}`,
        `AI: ${REENGAGEMENT_LINE}`,
        `AI: ${GOODBYE_LINE}`,
      ].join('\n'),
    );
    // The model's history ends with it too.
    expect(result.messages.at(-1)).toEqual({ role: 'assistant', content: GOODBYE_LINE });
  });

  it('what the customer says resets the silence clock', async () => {
    const clock = new FakeClock();
    const leg = new ManualLeg();
    const session = new CallSession(settings({ reengagementSec: 7, maxSilenceSec: 5 }), { leg, llm: chatty, tools: noTools, clock, log });
    let over = false;
    const done = session.run().then((r) => ((over = true), r));
    leg.emit({ type: 'ringing' });
    leg.emit({ type: 'answered', answeredBy: 'human' });
    await clock.advance(6_000);
    leg.emit({ type: 'customer-said', text: 'Hmm, let me think.' });
    await clock.advance(6_000); // 12 s since the answer, but only 6 s since the customer spoke
    expect(leg.said).toEqual(['Hello Ada, this is Switchboard.', 'Tell me more.']);
    await clock.advance(1_000);
    expect(leg.said.at(-1)).toBe(REENGAGEMENT_LINE);
    leg.emit({ type: 'customer-said', text: 'Yes, still here.' });
    await clock.advance(11_000); // re-engage at 7 s, limit 5 s later would be 12 s
    expect(over).toBe(false);
    await clock.advance(1_000);
    expect((await done).status).toBe('ended_by_assistant');
    expect(leg.said.at(-1)).toBe(GOODBYE_LINE);
    expect(leg.hungUp).toBe(true);
  });

  it('silence_goodbye_message: its own line, or none at all (\'\'), before the hang-up', async () => {
    for (const [message, line] of [
      ['Thanks for calling. Bye!', 'Thanks for calling. Bye!'],
      ['', null],
    ] as const) {
      const clock = new FakeClock();
      const leg = new ManualLeg();
      const done = new CallSession(settings({ reengagementSec: 2, maxSilenceSec: 1, silenceGoodbyeMessage: message }), { leg, llm: chatty, tools: noTools, clock, log }).run();
      leg.emit({ type: 'answered', answeredBy: 'human' });
      await clock.advance(5_000);
      const result = await done;
      expect(result.status).toBe('ended_by_assistant');
      expect(leg.said).toEqual(['Hello Ada, this is Switchboard.', REENGAGEMENT_LINE, ...(line ? [line] : [])]);
      expect(leg.hungUp).toBe(true);
    }
  });

  it('a caller who types during the closing line keeps the call going; silence after ends it again', async () => {
    const clock = new FakeClock();
    // A leg whose lines take 1 s to hand over, so the caller can answer while the closing line goes out.
    const leg = new ManualLeg();
    const said = leg.say.bind(leg);
    leg.say = async (text: string) => {
      await said(text);
      await new Promise<void>((resolve) => clock.setTimer(1_000, resolve));
    };
    let over = false;
    const done = new CallSession(settings({ reengagementSec: 2, maxSilenceSec: 3 }), { leg, llm: chatty, tools: noTools, clock, log })
      .run()
      .then((r) => ((over = true), r));
    leg.emit({ type: 'answered', answeredBy: 'human' });
    // Greeting (1 s), 2 s of silence, re-engagement (1 s), 3 s after it: the closing line.
    await clock.advance(6_000);
    expect(leg.said.at(-1)).toBe(GOODBYE_LINE);
    leg.emit({ type: 'customer-said', text: 'Wait, I am here!' });
    await clock.advance(1_000);
    expect(over).toBe(false);
    expect(leg.said.at(-1)).toBe('Tell me more.');
    // Silent again: re-engaged, then the closing line, then the hang-up.
    await clock.advance(20_000);
    const result = await done;
    expect(result.status).toBe('ended_by_assistant');
    expect(leg.said.filter((l) => l === GOODBYE_LINE)).toHaveLength(2);
    expect(result.transcript.split('\n')).toContain('Customer: Wait, I am here!');
  });
});

describe('who speaks first, voicemail, hang-ups', () => {
  it('with wait_for_customer the assistant says nothing until the customer speaks', async () => {
    const clock = new FakeClock();
    const leg = new ManualLeg();
    const session = new CallSession(settings({ waitForCustomer: true }), { leg, llm: chatty, tools: noTools, clock, log });
    const done = session.run();
    leg.emit({ type: 'answered', answeredBy: 'human' });
    await clock.advance(5_000);
    expect(leg.said).toEqual([]);
    leg.emit({ type: 'customer-said', text: 'Hello?' });
    await clock.advance(0);
    expect(leg.said).toEqual(['Hello Ada, this is Switchboard.']);
    leg.emit({ type: 'hung-up' });
    expect((await done).status).toBe('ended_by_customer');
    expect(leg.hungUp).toBe(false);
  });

  it('hangs up on a voicemail box at once with end_call_on_voicemail', async () => {
    const clock = new FakeClock();
    const leg = new ManualLeg();
    const done = new CallSession(settings({ endCallOnVoicemail: true }), { leg, llm: chatty, tools: noTools, clock, log }).run();
    leg.emit({ type: 'answered', answeredBy: 'machine' });
    const result = await done;
    expect(result).toMatchObject({ status: 'ended_by_assistant', answeredBy: 'machine', transcript: '' });
    expect(leg.hungUp).toBe(true);
  });

  it('voice_mail_message: left once the box’s greeting has ended, then ended_by_assistant (with or without end_call_on_voicemail)', async () => {
    for (const endCallOnVoicemail of [false, true]) {
      const clock = new FakeClock();
      const leg = new ManualLeg();
      const done = new CallSession(settings({ endCallOnVoicemail, voicemailMessage: 'Hi Ada, please call us back.' }), { leg, llm: chatty, tools: noTools, clock, log }).run();
      leg.emit({ type: 'answered', answeredBy: 'machine' });
      await clock.advance(2_000);
      // Nothing is said while the box greets.
      expect(leg.said).toEqual([]);
      leg.emit({ type: 'customer-said', text: 'Please leave a message after the tone.' });
      const result = await done;
      expect(leg.said).toEqual(['Hi Ada, please call us back.']);
      expect(result).toMatchObject({ status: 'ended_by_assistant', answeredBy: 'machine' });
      expect(result.transcript.split('\n')).toEqual(['Customer: Please leave a message after the tone.', 'AI: Hi Ada, please call us back.']);
      expect(leg.hungUp).toBe(true);
    }
  });

  it('voice_mail_message: a box that stays silent gets the message after SILENT_VOICEMAIL_MS', async () => {
    const clock = new FakeClock();
    const leg = new ManualLeg();
    let over = false;
    const done = new CallSession(settings({ voicemailMessage: 'Please call back.' }), { leg, llm: chatty, tools: noTools, clock, log })
      .run()
      .then((r) => ((over = true), r));
    leg.emit({ type: 'answered', answeredBy: 'machine' });
    await clock.advance(SILENT_VOICEMAIL_MS - 1);
    expect(leg.said).toEqual([]);
    expect(over).toBe(false);
    await clock.advance(1);
    expect(await done).toMatchObject({ status: 'ended_by_assistant', transcript: 'AI: Please call back.' });
  });

  it('a person (answered by a human) never hears the voicemail message', async () => {
    const clock = new FakeClock();
    const leg = new ManualLeg();
    const done = new CallSession(settings({ voicemailMessage: 'Please call back.' }), { leg, llm: chatty, tools: noTools, clock, log }).run();
    leg.emit({ type: 'answered', answeredBy: 'human' });
    await clock.advance(SILENT_VOICEMAIL_MS + 1);
    leg.emit({ type: 'customer-said', text: 'Hi.' });
    await clock.advance(10);
    expect(leg.said).toEqual(['Hello Ada, this is Switchboard.', 'Tell me more.']);
    leg.emit({ type: 'hung-up' });
    expect((await done).status).toBe('ended_by_customer');
  });

  it('a call that is never answered ends with the carrier’s outcome and no transcript', async () => {
    for (const [digits, outcome] of [['91', 'busy'], ['92', 'no-answer'], ['93', 'failed']] as const) {
      const clock = new FakeClock();
      const leg = new SandboxCarrier({ timeScale: 1, clock }).dial({ customer: `+49151000000${digits}`, assistant: '', direction: 'outbound' });
      const done = new CallSession(settings(), { leg, llm: new OfflineStandInLlm(END_CALL_TOOL), tools: noTools, clock, log }).run();
      await clock.advance(25_000);
      expect(await done).toMatchObject({ status: outcome, connected: false, transcript: '', talkMs: 0, answeredBy: 'unknown' });
    }
  });
});

describe('a carrier that goes quiet', () => {
  it('gives up after two minutes without an answer or a failure (failed)', async () => {
    const clock = new FakeClock();
    const leg = new ManualLeg();
    let over = false;
    const done = new CallSession(settings(), { leg, llm: chatty, tools: noTools, clock, log }).run().then((r) => ((over = true), r));
    leg.emit({ type: 'ringing' });
    await clock.advance(119_999);
    expect(over).toBe(false);
    await clock.advance(1);
    expect(await done).toMatchObject({ status: 'failed', connected: false });
    expect(leg.hungUp).toBe(true);
  });
});

describe('LLM stage', () => {
  it('the stand-in calls every mid-call tool once (variables by name, else samples), then ends with the end-call tool', async () => {
    const clock = new FakeClock();
    const leg = new ManualLeg();
    const calls: { name: string; args: unknown }[] = [];
    const executor: ToolExecutor = {
      run: async (tool: MidCallTool, args: string): Promise<ToolOutcome> => {
        calls.push({ name: tool.name, args: JSON.parse(args) });
        return { ok: true, status: 200, content: '{"status":200,"body":"ok"}', durationMs: 1 };
      },
    };
    const tools: MidCallTool[] = [
      { id: 1, name: 'lookup_order', description: 'd', endpoint: 'http://x.test', method: 'GET', timeout: 5, headers: [], schema: [
        { name: 'customer_name', type: 'string', description: 'name' },
        { name: 'order_id', type: 'number', description: 'order' },
      ] },
      { id: 2, name: 'book_slot', description: 'd', endpoint: 'http://x.test', method: 'POST', timeout: 5, headers: [], schema: [
        { name: 'confirmed', type: 'boolean', description: 'ok?' },
        { name: 'note', type: 'string', description: 'note' },
      ] },
    ];
    const session = new CallSession(settings({ tools, variables: { customer_name: 'Ada', order_id: '42' } }), { leg, llm: new OfflineStandInLlm(END_CALL_TOOL), tools: executor, clock, log });
    const done = session.run();
    leg.emit({ type: 'answered', answeredBy: 'human' });
    leg.emit({ type: 'customer-said', text: 'Hi.' });
    const result = await done;
    expect(calls).toEqual([
      { name: 'lookup_order', args: { customer_name: 'Ada', order_id: 42 } },
      { name: 'book_slot', args: { confirmed: true, note: 'sample note' } },
    ]);
    expect(result.status).toBe('completed');
    expect(result.transcript).toBe(
      ['[offline stand-in: no LLM configured]', 'AI: Hello Ada, this is Switchboard.', 'Customer: Hi.', 'AI: Thank you for your time. Goodbye!'].join('\n'),
    );
    expect(result.toolCalls.map((c) => c.name)).toEqual(['lookup_order', 'book_slot']);
    expect(leg.hungUp).toBe(true);
  });

  it('offers the end-call tool with the assistant’s description and the system prompt first', async () => {
    const clock = new FakeClock();
    const leg = new ManualLeg();
    const seen: CompletionRequest[] = [];
    const llm: LlmProvider = {
      label: 'spy',
      standIn: false,
      complete: async (req) => {
        seen.push(req);
        return { text: 'Bye.', toolCalls: [{ id: 'c1', name: END_CALL_TOOL, arguments: '{}' }] };
      },
      extract: async () => ({}),
    };
    const done = new CallSession(settings({ endCallDescription: 'End when the booking is done.', initialMessage: '' }), { leg, llm, tools: noTools, clock, log }).run();
    leg.emit({ type: 'answered', answeredBy: 'human' });
    expect((await done).status).toBe('completed');
    expect(seen[0].messages[0]).toEqual({ role: 'system', content: 'You are helpful.' });
    expect(seen[0].tools).toEqual([
      { name: END_CALL_TOOL, description: 'End when the booking is done.', parameters: { type: 'object', properties: {}, additionalProperties: false } },
    ]);
    expect(seen[0].model).toBe('test-model');
    expect(leg.said).toEqual(['Bye.']);
  });

  it('an LLM failure is apologised for and ends the call as `ended`', async () => {
    const clock = new FakeClock();
    const leg = new ManualLeg();
    const llm: LlmProvider = { ...chatty, complete: async () => Promise.reject(new LlmError('LLM request failed with status 500', 500)) };
    const done = new CallSession(settings(), { leg, llm, tools: noTools, clock, log }).run();
    leg.emit({ type: 'answered', answeredBy: 'human' });
    leg.emit({ type: 'customer-said', text: 'Hello' });
    const result = await done;
    expect(result.status).toBe('ended');
    expect(leg.said.at(-1)).toBe('I am sorry, I am having technical difficulties. Goodbye.');
  });
});
