/**
 * Built-in tools on audio legs (issue 20): the voice pipeline's LLM stage runs them through the
 * same toolbox as text legs. The leg is an audio line driven by hand (the sandbox's media line,
 * real audio at real pace; the caller's words arrive as the leg knows them), the LLM is the
 * chat-completions double scripted to call the tool, the voice is the OpenAI speech double.
 * Observed per type: the transfer reaches the leg (or is simulated) after its message played,
 * keys are pressed on the line, the caller's keys are the tool's result, the calendar double
 * gets the booking, a built-in end_call describes end-call.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinToolbox, type AssistantHandOver, type BuiltinContext } from '../../../src/calls/builtin-tools/index.js';
import { CallSession, END_CALL_TOOL, type SessionResult } from '../../../src/calls/session.js';
import { ToolRunner } from '../../../src/calls/tool-runner.js';
import { voiceFactory } from '../../../src/voice/factory.js';
import { holdMusicLoop } from '../../../src/audio/hold-music.js';
import type { StoredBuiltinTool } from '../../../src/db/schema.js';
import { OpenAiCompatibleLlm } from '../../../src/providers/llm/openai.js';
import { ProviderRegistry } from '../../../src/providers/registry.js';
import { OpenAiTts } from '../../../src/providers/tts/openai/index.js';
import { systemClock } from '../../../src/telephony/clock.js';
import { SandboxMedia } from '../../../src/telephony/sandbox/media.js';
import type { CarrierLeg, LegEvent } from '../../../src/telephony/types.js';
import { ChatDouble } from '../../support/doubles/chat.js';
import { OpenAiSpeechDouble } from '../../support/doubles/openai-speech.js';
import { startReceiver, type Receiver } from '../../support/receiver.js';

const log = pino({ level: process.env.VC_DEBUG ? 'debug' : 'silent' });

/** An audio leg whose carrier events the test sends; records what the assistant did on the line. */
class AudioLeg implements CarrierLeg {
  readonly media = new SandboxMedia(8000, systemClock);
  readonly sentDigits: string[] = [];
  readonly transfers: { to: string; heardMs: number }[] = [];
  hungUp = false;
  transfer?: (to: string) => Promise<void>;
  private listener: (e: LegEvent) => void = () => undefined;

  constructor(canTransfer: boolean) {
    if (canTransfer) {
      this.transfer = async (to) => {
        this.transfers.push({ to, heardMs: (this.media.heard().length / 8000) * 1000 });
      };
    }
  }
  onEvent(l: (e: LegEvent) => void) {
    this.listener = l;
  }
  start() {}
  hangUp() {
    this.hungUp = true;
    this.media.close();
  }
  async sendDigits(digits: string) {
    this.sentDigits.push(digits);
  }
  emit(e: LegEvent) {
    this.listener(e);
  }
}

let chat: ChatDouble;
let speech: OpenAiSpeechDouble;
let calendar: Receiver;

beforeAll(async () => {
  chat = await new ChatDouble().start();
  speech = await new OpenAiSpeechDouble().start();
  calendar = await startReceiver(() => ({ status: 201, body: JSON.stringify({ status: 'success', data: { uid: 'bk_9' } }) }));
});
afterAll(async () => {
  await chat.close();
  await speech.close();
  await calendar.close();
});

function audioCall(items: StoredBuiltinTool[], opts: { canTransfer?: boolean; assistantFor?: BuiltinContext['assistantFor']; warm?: BuiltinContext['warm'] } = {}) {
  const leg = new AudioLeg(opts.canTransfer ?? false);
  const tts = new OpenAiTts({ baseUrl: speech.baseUrl, apiKey: speech.knobs.apiKey!, model: 'tts-1' });
  const llm = new OpenAiCompatibleLlm({ baseUrl: chat.baseUrl });
  const factory = voiceFactory(
    {
      voiceProvider: 'openai',
      providerVoiceId: 'alloy',
      languageIso2: 'en',
      voiceStability: '0.7',
      voiceSimilarity: '0.5',
      speechSpeed: '1',
      endpointSensitivity: '2.5',
      endpointType: 'vad',
      interruptSensitivity: '2.5',
      allowInterruptions: true,
      minInterruptWords: 0,
      noiseCancellation: false,
    },
    new ProviderRegistry(llm, { tts: [tts] }),
    { clock: systemClock, log },
  );
  const builtins = new BuiltinToolbox(items, { leg, clock: systemClock, log, allowPrivate: true, unseal: (s) => s, timezone: 'Europe/Berlin', assistantFor: opts.assistantFor, warm: opts.warm });
  const session = new CallSession(
    {
      systemPrompt: 'You help callers.',
      initialMessage: '',
      waitForCustomer: true,
      endCallOnVoicemail: false,
      maxDurationSec: 120,
      maxSilenceSec: 60,
      reengagementSec: 30,
      model: 'double',
      temperature: 0,
      tools: [],
      endCallDescription: null,
      variables: {},
    },
    { leg, llm, tools: new ToolRunner({ allowPrivate: true, log }), clock: systemClock, log, voice: factory, builtins },
  );
  const startIndex = chat.received.length;
  const done: Promise<SessionResult> = session.run();
  leg.emit({ type: 'answered', answeredBy: 'human' });
  return { leg, done, builtins, tts, requests: () => chat.received.slice(startIndex).map((r) => r.body) };
}

/** Resolves once `check` holds (polled; generous for a loaded machine). */
async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const spoken = () => speech.received.map((r) => r.body.input as string);

describe('built-in tools on an audio leg', () => {
  it('call_transfer: the caller hears the transfer message, then the leg is handed to the number', { timeout: 30_000 }, async () => {
    chat.on('Put me through to sales.', { toolCalls: [{ id: 'x1', name: 'transfer-call', args: {} }] });
    const { leg, done } = audioCall([{ type: 'call_transfer', data: { phone_number: '+4930123456', warm_transfer: true, warm_transfer_message: 'Connecting you to sales now.' } }], { canTransfer: true });
    leg.emit({ type: 'customer-said', text: 'Put me through to sales.' });
    const result = await done;
    expect(result.status).toBe('completed');
    expect(leg.transfers.map((t) => t.to)).toEqual(['+4930123456']);
    // The message was played before the hand-over (at least a second of it at the double's pace).
    expect(leg.transfers[0].heardMs).toBeGreaterThan(1000);
    expect(leg.hungUp).toBe(false); // the line is the carrier's now
    expect(spoken()).toContain('Connecting you to sales now.');
    expect(result.transcript.split('\n').slice(-2)).toEqual(['AI: Connecting you to sales now.', 'Transfer: the call was transferred to +4930123456.']);
    expect(result.toolCalls.map((c) => [c.name, c.ok])).toEqual([['transfer-call', true]]);
  });

  it('call_transfer on a line that cannot transfer: simulated, the call ends completed', { timeout: 30_000 }, async () => {
    chat.on('Transfer me, simulated.', { toolCalls: [{ id: 'x2', name: 'transfer-call', args: {} }] });
    const { leg, done } = audioCall([{ type: 'call_transfer', data: { phone_number: '+4930999999', warm_transfer: false } }]);
    leg.emit({ type: 'customer-said', text: 'Transfer me, simulated.' });
    const result = await done;
    expect(result.status).toBe('completed');
    expect(leg.hungUp).toBe(true);
    expect(result.transcript).toContain('Transfer: the call was transferred to +4930999999 (simulated: this line cannot transfer).');
  });

  it('dtmf_input and end_call: keys are pressed on the line; the built-in end_call describes end-call', { timeout: 30_000 }, async () => {
    chat.on(
      'Navigate the menu.',
      { toolCalls: [{ id: 'd1', name: 'press-digits', args: { digits: '2#' } }] },
      { text: 'Done, goodbye.', toolCalls: [{ id: 'd2', name: END_CALL_TOOL, args: {} }] },
    );
    const { leg, done, requests } = audioCall([{ type: 'dtmf_input', data: {} }, { type: 'end_call', data: { description: 'End when the menu is done.' } }]);
    leg.emit({ type: 'customer-said', text: 'Navigate the menu.' });
    const result = await done;
    expect(leg.sentDigits).toEqual(['2#']);
    const [first, second] = requests();
    expect(first.tools.map((x: any) => x.function.name)).toEqual(['press-digits', END_CALL_TOOL]);
    expect(first.tools[1].function.description).toBe('End when the menu is done.');
    expect(second.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'd1', content: JSON.stringify({ ok: true, pressed: '2#' }) });
    expect(result.transcript).toContain('DTMF: the assistant pressed 2#.');
    expect(result.transcript.split('\n').at(-1)).toBe('AI: Done, goodbye.');
    expect(result.status).toBe('completed');
  });

  it("collect_keypad: the caller's keys until the stop key are the tool's result", { timeout: 30_000 }, async () => {
    chat.on(
      'I will type my PIN.',
      { toolCalls: [{ id: 'k1', name: 'collect-keypad', args: {} }] },
      { text: 'Thank you.', toolCalls: [{ id: 'k2', name: END_CALL_TOOL, args: {} }] },
    );
    const { leg, done, requests, builtins } = audioCall([{ type: 'collect_keypad', data: { timeout: 10, stop_key: '#' } }]);
    leg.emit({ type: 'customer-said', text: 'I will type my PIN.' });
    await until(() => builtins.collectingKeys, 'the collect-keypad call');
    for (const d of ['7', '3', '1', '#']) leg.emit({ type: 'dtmf', digit: d });
    const result = await done;
    expect(requests()[1].messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'k1', content: JSON.stringify({ digits: '731', ended_by: 'stop_key' }) });
    expect(result.status).toBe('completed');
  });

  it('calendar_integration: the booking reaches the calendar double with the fields; its answer reaches the LLM', { timeout: 30_000 }, async () => {
    chat.on(
      'Book me for Tuesday.',
      { toolCalls: [{ id: 'b1', name: 'book-appointment', args: { start: '2026-12-01T09:00:00.000Z', name: 'Ada', email: 'ada@example.com', company: 'AE' } }] },
      { text: 'You are booked. Goodbye.', toolCalls: [{ id: 'b2', name: END_CALL_TOOL, args: {} }] },
    );
    const before = calendar.received.length;
    const { leg, done, requests } = audioCall([
      {
        type: 'calendar_integration',
        data: { calcom_api_key_sealed: 'cal_key_audio', calcom_api_key_hint: 'cal…', calcom_event_slug: 'intro', calcom_endpoint: 'custom', calcom_custom_endpoint: calendar.url, calcom_booking_fields: ['company'] },
      },
    ]);
    leg.emit({ type: 'customer-said', text: 'Book me for Tuesday.' });
    const result = await done;
    const booking = calendar.received.slice(before);
    expect(booking).toHaveLength(1);
    expect(booking[0].path).toBe('/v2/bookings');
    expect(booking[0].headers.authorization).toBe('Bearer cal_key_audio');
    expect(JSON.parse(booking[0].body)).toMatchObject({ start: '2026-12-01T09:00:00.000Z', eventTypeSlug: 'intro', attendee: { name: 'Ada', email: 'ada@example.com' }, bookingFieldsResponses: { company: 'AE' } });
    expect(JSON.parse(requests()[1].messages.at(-1).content)).toEqual({ status: 201, body: { status: 'success', data: { uid: 'bk_9' } } });
    expect(result.transcript.split('\n').at(-1)).toBe('AI: You are booked. Goodbye.');
  });

  it('assistant_transfer: after the message, the other assistant greets in its own voice and its prompt reaches the LLM', { timeout: 30_000 }, async () => {
    chat.on('Billing, please.', { toolCalls: [{ id: 'h1', name: 'transfer-to-assistant', args: {} }] });
    chat.on('What do I owe?', { text: 'Nothing at all. Goodbye.', toolCalls: [{ id: 'h2', name: END_CALL_TOOL, args: {} }] });
    let handOver: AssistantHandOver | null = null;
    const { leg, done, requests, tts } = audioCall([{ type: 'assistant_transfer', data: { assistant_id: 7, message_before_transfer: 'One moment, billing takes over.', speak_transfer_greeting: true } }], {
      assistantFor: async (id) => {
        handOver = {
          id,
          name: 'Billing',
          systemPrompt: 'You are the billing assistant.',
          initialMessage: 'Billing here, hello.',
          model: 'billing-model',
          temperature: 0.3,
          tools: [],
          builtinTools: [],
          timezone: 'America/New_York',
          endCallDescription: 'End when billing is settled.',
          voice: (sampleRate) => ({ provider: tts, options: { voice: 'nova', sampleRate, language: 'en' } }),
        };
        return handOver;
      },
    });
    const said = (text: string) => speech.received.filter((r) => r.body.input === text).map((r) => r.body.voice);
    // The line goes idle once everything handed over has played: the message, then the greeting.
    let idle = 0;
    leg.media.onIdle = () => idle++;
    leg.emit({ type: 'customer-said', text: 'Billing, please.' });
    await until(() => idle >= 2, 'the greeting of the assistant that took over');
    leg.emit({ type: 'customer-said', text: 'What do I owe?' });
    const result = await done;
    expect(handOver).not.toBeNull();
    expect(said('One moment, billing takes over.')).toEqual(['alloy']);
    expect(said('Billing here, hello.')).toEqual(['nova']);
    expect(said('Nothing at all.')).toEqual(['nova']);
    const last = requests().at(-1);
    expect(last.model).toBe('billing-model');
    expect(last.temperature).toBe(0.3);
    expect(last.messages[0]).toEqual({ role: 'system', content: 'You are the billing assistant.' });
    expect(last.tools.map((x: any) => [x.function.name, x.function.description])).toEqual([[END_CALL_TOOL, 'End when billing is settled.']]);
    expect(result.transcript.split('\n')).toEqual([
      'Customer: Billing, please.',
      'AI: One moment, billing takes over.',
      'Assistant transfer: the call continues with assistant 7 (Billing).',
      'AI: Billing here, hello.',
      'Customer: What do I owe?',
      'AI: Nothing at all. Goodbye.',
    ]);
  });

  it('warm_call_transfer: the caller hears the hold message and music; the supervisor on an audio leg hears the briefing in the assistant’s voice', { timeout: 40_000 }, async () => {
    const BRIEFING = 'Hi, a caller for you. Ada wants a refund.';
    chat.on('Can I talk to your supervisor?', { toolCalls: [{ id: 'w1', name: 'warm-transfer', args: {} }] });
    chat.on(/^Customer: /, { text: 'Ada wants a refund.' });
    // The supervisor's phone: an audio line that answers after 500 ms.
    const supervisor = new AudioLeg(false);
    supervisor.start = () => void setTimeout(() => supervisor.emit({ type: 'answered', answeredBy: 'human' }), 500);
    const llm = new OpenAiCompatibleLlm({ baseUrl: chat.baseUrl });
    let transcript = () => '';
    const { leg, done } = audioCall(
      [{ type: 'warm_call_transfer', data: { supervisor_phone: '+4930555000', outbound_phone_id: 1, description: 'Get a supervisor.', caller_id_mode: 'outbound_number', hold_music: 'hold_music', hold_music_volume: 80, briefing_initial_message: 'Hi, a caller for you.' } }],
      {
        warm: {
          dial: async () => ({ from: '+4989100200300', leg: supervisor }),
          summarize: async (instructions) => (await llm.complete({ model: 'double', temperature: 0, tools: [], messages: [{ role: 'system', content: instructions }, { role: 'user', content: transcript() }] })).text,
        },
      },
    );
    transcript = () => 'Customer: Can I talk to your supervisor?';
    leg.emit({ type: 'customer-said', text: 'Can I talk to your supervisor?' });
    const result = await done;
    // The supervisor heard the briefing, spoken by the assistant's voice (the speech double), matched back from the audio.
    expect(spoken()).toContain(BRIEFING);
    expect(speech.clips.matchAudio(supervisor.media.heard(), 8000)?.text).toBe(BRIEFING);
    // The caller heard the hold message and, while the phone rang, the hold music at 80 %.
    const heard = leg.media.heard();
    const loop = holdMusicLoop(8000);
    const at = heard.findIndex((_, i) => i + 400 <= heard.length && loop.subarray(0, 400).every((v, j) => Math.abs(Math.round(v * 0.8) - heard[i + j]!) <= 1));
    expect(at, 'the hold music in what the caller heard').toBeGreaterThan(0);
    expect(result.transcript.split('\n').slice(-4)).toEqual([
      'Warm transfer: calling the supervisor +4930555000 from +4989100200300.',
      `Briefing (to the supervisor): ${BRIEFING}`,
      'AI: You are now connected. Goodbye from me.',
      'Warm transfer: the caller was connected to the supervisor +4930555000 (simulated: this line cannot bridge calls).',
    ]);
    expect(supervisor.hungUp).toBe(true);
  });
});
