/**
 * `mode: multimodal` through real audio: the engine's voice factory picks the registry's
 * realtime provider, the caller's fixture speech goes (resampled) to the Realtime double over
 * its WebSocket protocol, the double's server VAD and clip matching hear it, and its answer's
 * audio comes back through the output stage to the caller's ears; mid-call tools run as
 * function calls against a local endpoint, end-call hangs up after the goodbye, and the
 * double's speech_started during the answer cuts it off (clear + cancel + truncate to what
 * was heard).
 */
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ToolRunner } from '../../src/calls/tool-runner.js';
import { MULTIMODAL_FALLBACK_NOTE, voiceFactory, type AssistantVoiceRow } from '../../src/voice/factory.js';
import type { Frame } from '../../src/voice/frames.js';
import { END_CALL_FUNCTION } from '../../src/voice/llm.js';
import { bargeInRule, endpointRule } from '../../src/voice/sensitivity.js';
import { OpenAiTts } from '../../src/providers/tts/openai/index.js';
import { CallSession } from '../../src/calls/session.js';
import { synthesizer } from '../../src/providers/synthesize.js';
import { systemClock } from '../../src/telephony/clock.js';
import { SandboxCarrier, SANDBOX_SCRIPTS } from '../../src/telephony/sandbox/carrier.js';
import { fixture } from '../support/audio-fixtures.js';
import { startVoiceDoubles, type VoiceDoubles } from '../support/doubles/voice.js';
import { doublesRegistry, MULTIMODAL_ROW, multimodalCall } from '../support/multimodal-call.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { sessionSettings } from '../support/voice-session.js';

const log = pino({ level: process.env.VC_DEBUG ? 'debug' : 'silent' });
const PROMPT = 'You are the receptionist of a dental practice.';
const GREETING = 'Good morning, dental practice.';
const BOOK = fixture('book-appointment').text;
const STOP = fixture('wait-stop').text;

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

function registry(withRealtime = true) {
  return doublesRegistry(voice, withRealtime);
}

function call(rate: 8000 | 16_000, row: Partial<AssistantVoiceRow> = {}, providers = registry()) {
  return multimodalCall({ voice, log, prompt: PROMPT, toolEndpoint: endpoint.url, rate, row, providers });
}

const session = () => voice.realtime.sessions.at(-1)!;

describe('mode multimodal: a speech-to-speech session instead of the pipeline', () => {
  for (const rate of [16_000, 8000] as const) {
    it(`${rate / 1000} kHz leg: greeting, then the caller's speech is answered in the model's audio; transcript, turns and session settings`, { timeout: 30_000 }, async () => {
      const ANSWER = 'Of course. Which day suits you?';
      voice.realtime.on(BOOK, { text: ANSWER });
      const c = call(rate);
      await c.vc.say(GREETING, 'greeting');
      const greetingTurn = c.frames.find((f) => f.kind === 'turn-started')!.turn;
      const greetingSamples = c.audioOf(greetingTurn).length;
      expect(greetingSamples).toBeGreaterThan(rate / 2);
      const reply = c.waitFor((f) => f.kind === 'playback-done' && f.turn !== greetingTurn);
      await c.speak('book-appointment');
      const done = await reply;

      expect(c.lines).toEqual([
        { speaker: 'AI', text: GREETING },
        { speaker: 'Customer', text: BOOK },
        { speaker: 'AI', text: ANSWER },
      ]);
      // What the caller heard: the greeting, then the answer, recognisably.
      const heard = c.media.heard();
      expect(voice.clips.matchAudio(heard.subarray(0, greetingSamples), rate)?.text).toBe(GREETING);
      expect(voice.clips.matchAudio(heard.subarray(greetingSamples), rate)?.text).toBe(ANSWER);
      expect(c.audioOf(done.turn).length).toBe(heard.length - greetingSamples);

      // The session as configured from the assistant's settings.
      const s = session().session;
      expect(s.instructions).toBe(PROMPT);
      expect(s.audio.output.voice).toBe('shimmer');
      expect(s.audio.input.format).toEqual(rate === 8000 ? { type: 'audio/pcmu' } : { type: 'audio/pcm', rate: 24_000 });
      expect(s.audio.input.transcription.language).toBe('en');
      expect(s.audio.input.turn_detection).toMatchObject({
        type: 'server_vad',
        silence_duration_ms: endpointRule('2.5').silenceMs,
        threshold: bargeInRule('2.5').vadThreshold,
        interrupt_response: false,
      });
      expect(s.tools.map((t: { name: string }) => t.name)).toEqual(['free_slots', END_CALL_FUNCTION]);
      // The caller's audio reached the model at the session's rate (the double counts what it decoded).
      expect(session().appendedMs).toBeGreaterThan(fixture('book-appointment').durationMs);
      expect(session().transcripts).toEqual([BOOK]);

      const turns = c.recorder.turns;
      expect(turns.map((t) => [t.kind, t.callerText, t.assistantText, t.interrupted])).toEqual([
        ['greeting', null, GREETING, false],
        ['reply', BOOK, ANSWER, false],
      ]);
      for (const stage of ['finalTranscript', 'llmFirstToken', 'ttsFirstByte', 'firstAudio'] as const) expect(turns[1]!.timings[stage]).not.toBeNull();
      expect(turns[1]!.timings.firstAudio!).toBeGreaterThanOrEqual(turns[1]!.timings.ttsFirstByte!);
      // The record: the caller's words and the model's answer (the greeting is the session's to record).
      expect(c.messages.slice(1)).toEqual([
        { role: 'user', content: BOOK },
        { role: 'assistant', content: ANSWER },
      ]);
      await c.vc.close('test over');
      expect(session().closed).toBe(true);
    });
  }

  it('runs a mid-call tool as a function call against its endpoint and sends the result back; the answer after it is the same turn', { timeout: 30_000 }, async () => {
    const ANSWER = 'Tomorrow at ten is free.';
    voice.realtime.on(BOOK, { toolCalls: [{ id: 'call_7', name: 'free_slots', args: { day: 'tomorrow' } }] }, { text: ANSWER });
    const c = call(16_000);
    const before = endpoint.received.length;
    const reply = c.waitFor((f) => f.kind === 'playback-done');
    await c.speak('book-appointment');
    await reply;
    expect(endpoint.received.length).toBe(before + 1);
    expect(JSON.parse(endpoint.received.at(-1)!.body)).toEqual({ day: 'tomorrow' });
    const received = session().received;
    const i = received.findIndex((e) => e.type === 'conversation.item.create');
    expect(received[i].item).toEqual({ type: 'function_call_output', call_id: 'call_7', output: '{"status":200,"body":{"free":["10:00"]}}' });
    expect(received[i + 1]).toEqual({ type: 'response.create' });
    expect(c.toolCalls).toMatchObject([{ name: 'free_slots', ok: true, status: 200 }]);
    expect(c.frames.filter((f) => f.kind === 'tool-result')).toMatchObject([{ name: 'free_slots', ok: true }]);
    expect(c.lines).toEqual([
      { speaker: 'Customer', text: BOOK },
      { speaker: 'AI', text: ANSWER },
    ]);
    expect(c.recorder.turns).toMatchObject([{ kind: 'reply', callerText: BOOK, assistantText: ANSWER, interrupted: false }]);
    expect(voice.clips.matchAudio(c.media.heard(), 16_000)?.text).toBe(ANSWER);
    await c.vc.close('test over');
  });

  it('end-call: the goodbye is played, then the assistant hangs up', { timeout: 30_000 }, async () => {
    const BYE = 'Thank you, goodbye!';
    voice.realtime.on(BOOK, { text: BYE, toolCalls: [{ name: END_CALL_FUNCTION, args: {} }] });
    const c = call(16_000);
    const hangUp = c.waitFor((f) => f.kind === 'hang-up');
    await c.speak('book-appointment');
    expect(await hangUp).toMatchObject({ remote: false, reason: 'the assistant closed the call' });
    // The hang-up waited for the goodbye: it was played in full before.
    const kinds = c.frames.map((f) => f.kind);
    expect(kinds.lastIndexOf('playback-done')).toBeLessThan(kinds.indexOf('hang-up'));
    expect(c.lines.at(-1)).toEqual({ speaker: 'AI', text: BYE });
    expect(voice.clips.matchAudio(c.media.heard(), 16_000)?.text).toBe(BYE);
    await c.vc.close('test over');
  });

  it("barge-in: the model's speech_started during the answer clears playback, cancels and truncates to what was heard", { timeout: 30_000 }, async () => {
    const LONG = 'We are open from eight in the morning until six in the evening on weekdays, and on Saturdays from nine until noon, except on public holidays.';
    voice.realtime.on(BOOK, { text: LONG });
    voice.realtime.on(STOP, { text: 'Sure.' });
    // The model is still producing the answer when the caller cuts in (faster than real time).
    voice.realtime.knobs.chunkDelayMs = 60;
    const c = call(16_000);
    const audible = c.waitFor((f) => f.kind === 'audio-out');
    await c.speak('book-appointment', 800);
    const first = await audible;
    // Let about a second of the answer play, then the caller cuts in.
    await new Promise((r) => setTimeout(r, 1000));
    const cut = c.waitFor((f) => f.kind === 'interruption');
    const answered = c.waitFor((f) => f.kind === 'playback-done' && f.turn !== first.turn, 20_000);
    await c.speak('wait-stop');
    const interruption = (await cut) as Extract<Frame, { kind: 'interruption' }>;
    await answered;

    expect(interruption.turn).toBe(first.turn);
    expect(c.media.clears).toBeGreaterThanOrEqual(1);
    const record = session();
    expect(record.received.some((e) => e.type === 'response.cancel')).toBe(true);
    expect(record.truncations).toHaveLength(1);
    // The model's memory is cut where the caller stopped hearing: the ms the output stage played.
    expect(record.truncations[0]!.audio_end_ms).toBe(Math.floor(interruption.heardMs!));
    expect(interruption.heardMs!).toBeGreaterThan(500);
    const heardText = interruption.heardText;
    expect(heardText.length).toBeGreaterThan(0);
    expect(heardText.length).toBeLessThan(LONG.length);
    expect(LONG.startsWith(heardText)).toBe(true);
    // The caller heard less of the answer than it had.
    const heardSamples = c.audioOf(first.turn).length;
    expect(c.media.heard().length).toBeLessThan(heardSamples + c.audioOf(interruption.turn + 1).length + 16_000 * 0.5);

    expect(c.lines).toEqual([
      { speaker: 'Customer', text: BOOK },
      { speaker: 'AI', text: heardText },
      { speaker: 'Customer', text: STOP },
      { speaker: 'AI', text: 'Sure.' },
    ]);
    const turns = c.recorder.turns;
    expect(turns[0]).toMatchObject({ callerText: BOOK, assistantText: heardText, interrupted: true });
    expect(turns[0]!.bargeIns).toHaveLength(1);
    expect(turns[1]).toMatchObject({ callerText: STOP, assistantText: 'Sure.', interrupted: false });
    expect(c.messages.slice(1)).toEqual([
      { role: 'user', content: BOOK },
      { role: 'assistant', content: heardText },
      { role: 'user', content: STOP },
      { role: 'assistant', content: 'Sure.' },
    ]);
    await c.vc.close('test over');
  });

  it('allow_interruptions false: the caller talking over the answer does not cut it off', { timeout: 30_000 }, async () => {
    const LONG = 'Our address is twelve Station Road, on the second floor, next to the pharmacy.';
    voice.realtime.on(BOOK, { text: LONG });
    voice.realtime.on(STOP, { text: 'Sure.' });
    const c = call(16_000, { allowInterruptions: false });
    const audible = c.waitFor((f) => f.kind === 'audio-out');
    const played = c.waitFor((f) => f.kind === 'playback-done', 20_000);
    await c.speak('book-appointment', 800);
    await audible;
    await c.speak('wait-stop', 300);
    await played;
    expect(c.frames.some((f) => f.kind === 'interruption' || f.kind === 'cancel')).toBe(false);
    expect(c.media.clears).toBe(0);
    expect(session().truncations).toEqual([]);
    expect(c.lines.slice(0, 2)).toEqual([
      { speaker: 'Customer', text: BOOK },
      { speaker: 'AI', text: LONG },
    ]);
    await c.vc.close('test over');
  });

  it('min_interrupt_words 2: "mhm" over the answer does not cut it off, "Wait, stop." does once its transcript comes', { timeout: 40_000 }, async () => {
    const LONG = 'We are open from eight in the morning until six in the evening on weekdays, and on Saturdays from nine until noon, except on public holidays.';
    voice.realtime.on(BOOK, { text: LONG });
    voice.realtime.on(STOP, { text: 'Sure.' });
    voice.realtime.knobs.chunkDelayMs = 60;
    const c = call(16_000, { minInterruptWords: 2 });
    const audible = c.waitFor((f) => f.kind === 'audio-out');
    await c.speak('book-appointment', 800);
    await audible;
    const cut = c.waitFor((f) => f.kind === 'interruption', 20_000);
    await c.speak('mhm', 900);
    // The backchannel was heard by the model and transcribed, and cut nothing.
    expect(session().transcripts).toContain('mhm');
    expect(c.frames.some((f) => f.kind === 'interruption')).toBe(false);
    expect(c.media.clears).toBe(0);
    await c.speak('wait-stop', 900);
    const interruption = (await cut) as Extract<Frame, { kind: 'interruption' }>;
    expect(c.media.clears).toBe(1);
    expect(session().truncations).toHaveLength(1);
    expect(LONG.startsWith(interruption.heardText)).toBe(true);
    expect(interruption.heardText.length).toBeLessThan(LONG.length);
    await c.vc.close('test over');
  });

  it('a whole call on the sandbox audio leg: greeting, two exchanges, end-call ends it completed', { timeout: 60_000 }, async () => {
    const tts = new OpenAiTts({ baseUrl: voice.speech.baseUrl, apiKey: voice.speech.knobs.apiKey!, model: 'tts-1' });
    voice.realtime.on(SANDBOX_SCRIPTS.converses[0], { text: 'Can you come tomorrow at ten?' });
    voice.realtime.on(SANDBOX_SCRIPTS.converses[1], { text: 'Great, see you then. Goodbye!', toolCalls: [{ name: END_CALL_FUNCTION, args: {} }] });
    const carrier = new SandboxCarrier({ timeScale: 1, voice: synthesizer(tts, 'echo') });
    const leg = carrier.dial({ customer: '+4915100000000', assistant: '', direction: 'outbound' });
    const providers = registry();
    const made = voiceFactory(MULTIMODAL_ROW, providers, { clock: systemClock, log })!;
    const factory: typeof made = (m, conv) => {
      const vc = made(m, conv);
      if (process.env.VC_DEBUG) vc.onFrame((f) => !/audio/.test(f.kind) && console.log(Date.now() % 100_000, f.kind, f.turn, 'text' in f ? f.text : ''));
      return vc;
    };
    const result = await new CallSession(
      sessionSettings({ systemPrompt: PROMPT }),
      { leg, llm: providers.llm, tools: new ToolRunner({ allowPrivate: true, log }), clock: systemClock, log, voice: factory },
    ).run();
    expect(result.status).toBe('completed');
    expect(result.transcript.split('\n')).toEqual([
      'AI: Hello, this is Anna from the clinic.',
      `Customer: ${SANDBOX_SCRIPTS.converses[0]}`,
      'AI: Can you come tomorrow at ten?',
      `Customer: ${SANDBOX_SCRIPTS.converses[1]}`,
      'AI: Great, see you then. Goodbye!',
    ]);
    expect(result.customerUtterances).toBe(2);
    // The greeting was the model's, asked for word by word.
    expect(session().received.find((e) => e.type === 'response.create')).toEqual({
      type: 'response.create',
      response: { instructions: 'Say exactly: Hello, this is Anna from the clinic.' },
    });
    // The session closes the model's connection as the call ends.
    await vi.waitFor(() => expect(session().closed).toBe(true), { timeout: 5000 });
  });

  it("a scripted answer to the caller's next turn (wait_for_customer, voicemail message) replaces the model's own", { timeout: 30_000 }, async () => {
    const OPENING = 'Hello, thanks for calling the dental practice.';
    voice.realtime.on(BOOK, { text: 'A model answer that must not be heard.' });
    const c = call(16_000);
    let heardCaller: string | null = null;
    const said = c.vc.answerNextTurnWith(OPENING, 'greeting', (text) => (heardCaller = text));
    await c.speak('book-appointment');
    await said;
    expect(heardCaller).toBe(BOOK);
    expect(c.lines).toEqual([
      { speaker: 'Customer', text: BOOK },
      { speaker: 'AI', text: OPENING },
    ]);
    expect(voice.clips.matchAudio(c.media.heard(), 16_000)?.text).toBe(OPENING);
    expect(session().received.filter((e) => e.type === 'response.create').at(-1)).toEqual({ type: 'response.create', response: { instructions: `Say exactly: ${OPENING}` } });
    expect(c.recorder.turns).toMatchObject([{ kind: 'greeting', callerText: BOOK, assistantText: OPENING, interrupted: false }]);
    await c.vc.close('test over');
  });

  it('the model failing mid-call ends the call with a note saying why', { timeout: 30_000 }, async () => {
    voice.realtime.on(BOOK, { text: 'This answer is cut off by a server error.' });
    voice.realtime.knobs.closeAfterDeltas = 2;
    const c = call(16_000);
    try {
      const hangUp = c.waitFor((f) => f.kind === 'hang-up');
      await c.speak('book-appointment');
      expect(await hangUp).toMatchObject({ remote: false, reason: 'LLM failure' });
      expect(c.notes).toEqual([expect.stringMatching(/^\[the language model failed: realtime server closed the session: 1011/)]);
      expect(c.frames.find((f) => f.kind === 'error')).toMatchObject({ stage: 'llm', fatal: true });
    } finally {
      voice.realtime.knobs.closeAfterDeltas = null;
      await c.vc.close('test over');
    }
  });

  it("a hand-over to another assistant (assistant_transfer) sends the model the new prompt and functions; the voice stays", { timeout: 30_000 }, async () => {
    const c = call(16_000);
    await c.vc.say(GREETING, 'greeting');
    c.messages[0] = { role: 'system', content: 'You are the billing department.' };
    // What the session's switch does (src/calls/assistant-switch.ts): the new assistant's voice, then the model hears of it.
    c.vc.useVoice({ provider: new OpenAiTts({ baseUrl: voice.speech.baseUrl, model: 'tts-1' }), options: { voice: 'echo', sampleRate: 24_000, language: 'en' } });
    c.vc.assistantChanged();
    await vi.waitFor(() => expect(session().session.instructions).toBe('You are the billing department.'), { timeout: 5000 });
    const update = session().received.filter((e) => e.type === 'session.update').at(-1)!;
    expect(update.session.tools.map((t: { name: string }) => t.name)).toEqual(['free_slots', END_CALL_FUNCTION]);
    expect(session().session.audio.output.voice).toBe('shimmer');
    await c.vc.close('test over');
  });

  it('without a realtime server the call runs the pipeline and its transcript says so', async () => {
    const c = call(16_000, {}, registry(false));
    expect(c.notes).toEqual([MULTIMODAL_FALLBACK_NOTE]);
    expect(c.lines).toEqual([]);
    await c.vc.say(GREETING, 'greeting');
    expect(c.lines.at(-1)).toEqual({ speaker: 'AI', text: GREETING });
    // The pipeline's text-to-speech spoke it.
    expect(voice.speech.received.at(-1)!.body.input).toBe(GREETING);
    await c.vc.close('test over');
  });
});
