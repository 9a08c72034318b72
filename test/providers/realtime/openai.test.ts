import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { concat, silence } from '../../../src/audio/pcm.js';
import { OpenAiRealtime } from '../../../src/providers/realtime/openai/index.js';
import type { RealtimeEvent, RealtimeSession, RealtimeSessionOptions } from '../../../src/providers/realtime/types.js';
import { ClipBook } from '../../support/doubles/clips.js';
import { RealtimeDouble } from '../../support/doubles/realtime.js';
import { recordEvents } from '../../support/doubles/recorder.js';

const clips = new ClipBook();
let double: RealtimeDouble;
const QUESTION = 'When are you open on Saturday?';
const BOOK = 'Please book me in for ten.';
const ANSWER = 'We are open from nine to one on Saturday.';

beforeAll(async () => {
  double = await new RealtimeDouble(clips).start();
  double.on(QUESTION, { text: ANSWER });
  double.on(BOOK, { toolCalls: [{ name: 'book_slot', args: { time: '10:00' }, id: 'call_1' }] }, { text: 'You are booked for ten.' });
});
afterAll(() => double.close());
beforeEach(() => Object.assign(double.knobs, { apiKey: 'rt-test-key', failAuth: false, firstDeltaDelayMs: 0, chunkDelayMs: 0, closeAfterDeltas: null, rejectSession: null, betaNames: false }));

const provider = (over: Partial<ConstructorParameters<typeof OpenAiRealtime>[0]> = {}) => new OpenAiRealtime({ url: double.url, apiKey: 'rt-test-key', connectTimeoutMs: 2000, ...over });
const options: RealtimeSessionOptions = {
  instructions: 'You are the receptionist.',
  voice: 'marin',
  language: 'en',
  sampleRate: 24_000,
  tools: [{ name: 'book_slot', description: 'Books a slot', parameters: { type: 'object', properties: { time: { type: 'string' } }, required: ['time'] } }],
  turnDetection: { silenceMs: 400, threshold: 0.5, prefixPaddingMs: 300 },
  speed: 2,
};

async function open(opts = options, p = provider()) {
  const rec = recordEvents<RealtimeEvent>();
  const session: RealtimeSession = await p.open(opts, rec.emit);
  return { session, events: rec.events, next: rec.next };
}

function play(session: RealtimeSession, samples: Int16Array, rate: number): void {
  const frame = rate / 50;
  for (let i = 0; i < samples.length; i += frame) session.sendAudio(samples.subarray(i, i + frame));
}

const caller = (text: string, rate: number) => concat([silence(200, rate), clips.say(text, rate), silence(700, rate)]);
const audioOf = (events: RealtimeEvent[]) => concat(events.flatMap((e) => (e.type === 'audio' ? [e.samples] : [])));

describe('OpenAI Realtime adapter against the Realtime double', () => {
  it('configures the session (GA shape: formats, transcription, server VAD without interrupting, voice, speed clamped, tools) and resolves on session.updated', async () => {
    const { session } = await open();
    const record = double.sessions.at(-1)!;
    const update = record.received.find((e) => e.type === 'session.update')!;
    expect(update.session).toEqual({
      type: 'realtime',
      instructions: 'You are the receptionist.',
      output_modalities: ['audio'],
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: 24_000 },
          transcription: { model: 'whisper-1', language: 'en' },
          turn_detection: { type: 'server_vad', threshold: 0.5, silence_duration_ms: 400, prefix_padding_ms: 300, create_response: true, interrupt_response: false },
        },
        output: { format: { type: 'audio/pcm', rate: 24_000 }, voice: 'marin', speed: 1.5 },
      },
      tools: [{ type: 'function', ...options.tools[0] }],
      tool_choice: 'auto',
    });
    expect(record.url).toContain('model=gpt-realtime');
    await session.close();
    expect(record.closed).toBe(true);
  });

  it('hears the caller: speech started/stopped, the transcript, then the answer as real audio with its transcript and response-done', async () => {
    const { session, events, next } = await open();
    play(session, caller(QUESTION, 24_000), 24_000);
    await next((e) => e.type === 'response-done');
    const kinds = events.map((e) => e.type);
    expect(kinds.slice(0, 4)).toEqual(['speech-started', 'speech-stopped', 'caller-transcript', 'response-started']);
    expect(events[2]).toEqual({ type: 'caller-transcript', text: QUESTION });
    expect(kinds.at(-2)).toBe('assistant-transcript');
    expect(events.at(-1)).toMatchObject({ type: 'response-done', status: 'completed' });
    const deltas = events.flatMap((e) => (e.type === 'assistant-transcript-delta' ? [e.text] : [])).join('');
    expect(deltas).toBe(ANSWER);
    // The session's speed (1.5 after clamping) is the speed the answer is spoken at.
    const book = new ClipBook();
    book.say(ANSWER, 24_000, 1.5);
    expect(book.matchAudio(audioOf(events), 24_000)?.text).toBe(ANSWER);
    expect(new ClipBook().add(ANSWER, clips.say(ANSWER, 24_000), 24_000).matchAudio(audioOf(events), 24_000)).toBeNull();
    await session.close();
  });

  it('speaks μ-law on an 8 kHz session, with no resampling, and still understands and answers', async () => {
    const { session, events, next } = await open({ ...options, sampleRate: 8000 });
    expect(double.sessions.at(-1)!.session.audio.input.format).toEqual({ type: 'audio/pcmu' });
    play(session, caller(QUESTION, 8000), 8000);
    await next((e) => e.type === 'response-done');
    expect(events.find((e) => e.type === 'caller-transcript')).toEqual({ type: 'caller-transcript', text: QUESTION });
    for (const e of events) if (e.type === 'audio') expect(e.sampleRate).toBe(8000);
    const book = new ClipBook();
    book.say(ANSWER, 8000, 1.5);
    book.say(QUESTION, 8000);
    expect(book.matchAudio(audioOf(events), 8000)?.text).toBe(ANSWER);
    await session.close();
  });

  it('passes a function call on, and after sendFunctionResult the model goes on with the next round', async () => {
    const { session, events, next } = await open();
    play(session, caller(BOOK, 24_000), 24_000);
    const call = await next((e) => e.type === 'function-call');
    expect(call).toEqual({ type: 'function-call', callId: 'call_1', name: 'book_slot', arguments: '{"time":"10:00"}' });
    await next((e) => e.type === 'response-done');
    session.sendFunctionResult('call_1', '{"ok":true}');
    await next((e) => e.type === 'assistant-transcript');
    expect(events.find((e) => e.type === 'assistant-transcript')).toMatchObject({ text: 'You are booked for ten.' });
    const received = double.sessions.at(-1)!.received;
    const i = received.findIndex((e) => e.type === 'conversation.item.create');
    expect(received[i].item).toEqual({ type: 'function_call_output', call_id: 'call_1', output: '{"ok":true}' });
    expect(received[i + 1]).toEqual({ type: 'response.create' });
    await session.close();
  });

  it('respond(instructions) steers one answer (Say exactly: …)', async () => {
    const { session, next } = await open();
    session.respond('Say exactly: Good morning, dental practice.');
    expect(await next((e) => e.type === 'assistant-transcript')).toMatchObject({ text: 'Good morning, dental practice.' });
    await session.close();
  });

  it('interrupt mid-answer cancels the response and truncates the item to what was played', async () => {
    double.knobs.chunkDelayMs = 20;
    const { session, events, next } = await open();
    session.respond('Say exactly: This is a rather long answer that the caller will cut short.');
    const first = (await next((e) => e.type === 'audio')) as Extract<RealtimeEvent, { type: 'audio' }>;
    await new Promise((r) => setTimeout(r, 60));
    session.interrupt(150);
    const done = await next((e) => e.type === 'response-done');
    expect(done).toMatchObject({ status: 'cancelled' });
    const record = double.sessions.at(-1)!;
    expect(record.received.filter((e) => e.type === 'response.cancel')).toHaveLength(1);
    expect(record.truncations).toEqual([{ item_id: first.itemId, audio_end_ms: 150 }]);
    expect(events.some((e) => e.type === 'assistant-transcript')).toBe(false);
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    await session.close();
  });

  it('interrupt after the answer finished sends no cancel and no truncate when everything was heard', async () => {
    const { session, events, next } = await open();
    session.respond('Say exactly: Short.');
    await next((e) => e.type === 'response-done');
    const ms = (audioOf(events).length / 24_000) * 1000;
    session.interrupt(ms + 10);
    await new Promise((r) => setTimeout(r, 50));
    const record = double.sessions.at(-1)!;
    expect(record.received.some((e) => e.type === 'response.cancel' || e.type === 'conversation.item.truncate')).toBe(false);
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    await session.close();
  });

  it('understands the beta event names too (response.audio.delta, response.audio_transcript.*)', async () => {
    double.knobs.betaNames = true;
    const { session, events, next } = await open();
    session.respond('Say exactly: Hello.');
    await next((e) => e.type === 'response-done');
    expect(events.some((e) => e.type === 'audio')).toBe(true);
    expect(events.find((e) => e.type === 'assistant-transcript')).toMatchObject({ text: 'Hello.' });
    await session.close();
  });

  it('rejects open() for a refused key, a session the server will not take, and a rate it does not speak', async () => {
    await expect(open(options, provider({ apiKey: 'wrong' }))).rejects.toThrow('realtime server refused the connection: HTTP 401 Unauthorized');
    double.knobs.rejectSession = "Invalid value: 'nobody'. Supported values are: 'alloy', 'marin'.";
    await expect(open()).rejects.toThrow("realtime: Invalid value: 'nobody'.");
    double.knobs.rejectSession = null;
    await expect(open({ ...options, sampleRate: 16_000 })).rejects.toThrow('the realtime session takes 24000 or 8000 Hz audio, not 16000');
  });

  it('reports a close in the middle of an answer as a fatal error', async () => {
    double.knobs.closeAfterDeltas = 1;
    double.knobs.chunkDelayMs = 10;
    const { session, next } = await open();
    session.respond('Say exactly: An answer that is cut off by the server.');
    expect(await next((e) => e.type === 'error')).toMatchObject({ fatal: true, message: expect.stringContaining('realtime server closed the session: 1011') });
    await session.close();
  });

  it('interrupt before any audio of the answer cancels it without truncating anything', async () => {
    double.knobs.firstDeltaDelayMs = 150;
    const { session, events, next } = await open();
    session.respond('Say exactly: Too late.');
    await next((e) => e.type === 'response-started');
    session.interrupt(0);
    expect(await next((e) => e.type === 'response-done')).toMatchObject({ status: 'cancelled' });
    expect(double.sessions.at(-1)!.received.some((e) => e.type === 'conversation.item.truncate')).toBe(false);
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    await session.close();
  });

  it("sendText: the caller's keys as a user message in text, answered at once when the model is free", async () => {
    double.on('[keypad: 42#]', { text: 'Forty-two, noted.' });
    const { session, events, next } = await open();
    session.sendText('[keypad: 42#]');
    expect(await next((e) => e.type === 'assistant-transcript')).toMatchObject({ text: 'Forty-two, noted.' });
    const received = double.sessions.at(-1)!.received.filter((e) => e.type !== 'session.update');
    expect(received).toEqual([
      { type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: '[keypad: 42#]' }] } },
      { type: 'response.create' },
    ]);
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    await session.close();
  });

  it('sendText during an answer (the keys just cut it off) holds the response.create until that answer is done', async () => {
    double.on('[keypad: 1#]', { text: 'Option one.' });
    double.knobs.chunkDelayMs = 20;
    const { session, events, next } = await open();
    session.respond('Say exactly: Press one for opening hours, or two for an appointment.');
    await next((e) => e.type === 'audio');
    session.interrupt(40);
    session.sendText('[keypad: 1#]');
    expect(await next((e) => e.type === 'assistant-transcript')).toMatchObject({ text: 'Option one.' });
    const types = double.sessions.at(-1)!.received.map((e) => e.type);
    expect(types.slice(types.indexOf('response.cancel'))).toEqual(['response.cancel', 'conversation.item.truncate', 'conversation.item.create', 'response.create']);
    // The second answer was asked for only after the first one's response.done (the double refuses a second active one).
    const done = events.findIndex((e) => e.type === 'response-done');
    expect(events[done]).toMatchObject({ status: 'cancelled' });
    expect(events.filter((e, i) => e.type === 'response-started' && i > done)).toHaveLength(1);
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    await session.close();
  });

  it('without turn detection the model does not answer by itself; respond() makes it answer', async () => {
    const { session, events, next } = await open({ ...options, turnDetection: null });
    expect(double.sessions.at(-1)!.session.audio.input.turn_detection).toBeNull();
    play(session, caller(QUESTION, 24_000), 24_000);
    await new Promise((r) => setTimeout(r, 150));
    expect(events.some((e) => e.type === 'response-started' || e.type === 'speech-started')).toBe(false);
    session.respond('Say exactly: Yes?');
    expect(await next((e) => e.type === 'assistant-transcript')).toMatchObject({ text: 'Yes?' });
    await session.close();
  });
});
