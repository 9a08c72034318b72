/**
 * The assistant's side of an audio call through the whole pipeline, with real audio on the
 * sandbox's media line and vendors replaced by local servers speaking their wire protocols:
 * the chat-completions double (streamed text, a mid-call tool call to a local endpoint), an
 * OpenAI-compatible speech server; the caller's voice is real audio into the VAD.
 * Shows: TTS starts per sentence, audio reaches the leg at its rate and pace, turns and history
 * are right; barge-in clears playback, aborts the turn and keeps only what was heard;
 * allow_interruptions false never cuts the assistant off.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryTurnRecorder, TurnTracker } from '../../src/calls/turns.js';
import { callTools, ToolRunner, toolFunction, type MidCallTool } from '../../src/calls/tool-runner.js';
import type { Frame } from '../../src/voice/frames.js';
import { END_CALL_FUNCTION } from '../../src/voice/llm.js';
import type { TurnTakingSettings } from '../../src/voice/settings.js';
import { EnergyVad } from '../../src/voice/vad.js';
import { VoiceCall, type TranscriptLine } from '../../src/voice/voice-call.js';
import type { ChatMessage } from '../../src/providers/llm/types.js';
import { OpenAiCompatibleLlm } from '../../src/providers/llm/openai.js';
import { OpenAiTts } from '../../src/providers/tts/openai/index.js';
import { systemClock } from '../../src/telephony/clock.js';
import { SandboxMedia } from '../../src/telephony/sandbox/media.js';
import { ChatDouble } from '../support/doubles/chat.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { speechLike } from '../support/doubles/clips.js';
import { OpenAiSpeechDouble, SPEECH_RATE } from '../support/doubles/openai-speech.js';

const log = pino({ level: 'silent' });
const RATE = 8000;

/** Length at the leg's rate of the double's audio for `text`. */
const legLength = (text: string) => Math.round((speechLike(text, SPEECH_RATE).samples.length * RATE) / SPEECH_RATE);

/** A voiced sound like a caller's speech on the line (the VAD hears it as speech). */
function callerVoice(ms: number): Int16Array {
  const n = Math.round((ms / 1000) * RATE);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) {
    const t = i / RATE;
    out[i] = Math.round(7000 * Math.sin(2 * Math.PI * 180 * t) + 3000 * Math.sin(2 * Math.PI * 360 * t));
  }
  return out;
}

const SETTINGS: TurnTakingSettings = { endpointType: 'vad', endpointSensitivity: 2.5, interruptSensitivity: 2.5, allowInterruptions: true, minInterruptWords: 0 };

let chat: ChatDouble;
let speech: OpenAiSpeechDouble;
let endpoint: Receiver;

beforeAll(async () => {
  chat = await new ChatDouble().start();
  speech = await new OpenAiSpeechDouble().start();
  endpoint = await startReceiver(() => ({ status: 200, body: '{"slots":["10:00"]}' }));
});

afterAll(async () => {
  await chat.close();
  await speech.close();
  await endpoint.close();
});

function call(settings: Partial<TurnTakingSettings> = {}, tools: MidCallTool[] = []) {
  const media = new SandboxMedia(RATE, systemClock);
  const recorder = new MemoryTurnRecorder();
  const messages: ChatMessage[] = [{ role: 'system', content: 'You book appointments.' }];
  const frames: Frame[] = [];
  const lines: TranscriptLine[] = [];
  const vc = new VoiceCall({
    media,
    clock: systemClock,
    log,
    llm: {
      llm: new OpenAiCompatibleLlm({ baseUrl: chat.baseUrl }),
      model: 'double',
      temperature: 0,
      messages,
      tools: callTools(tools, new ToolRunner({ allowPrivate: true, log })),
      specs: [...tools.map(toolFunction), { name: END_CALL_FUNCTION, description: 'End the call.', parameters: { type: 'object', properties: {} } }],
      variables: {},
    },
    tts: { provider: new OpenAiTts({ baseUrl: speech.baseUrl, apiKey: speech.knobs.apiKey!, model: 'tts-1' }), options: { voice: 'alloy', sampleRate: RATE, language: 'en' } },
    vad: new EnergyVad(RATE),
    turnTaking: { ...SETTINGS, ...settings },
    tracker: new TurnTracker(recorder, systemClock),
  });
  vc.onFrame((f) => frames.push(f));
  vc.onLine((l) => lines.push(l));
  const next = (kind: Frame['kind'], timeoutMs = 8000) =>
    new Promise<Frame>((resolve, reject) => {
      const seen = frames.length;
      const timer = setTimeout(() => reject(new Error(`no ${kind} frame within ${timeoutMs} ms`)), timeoutMs);
      const check = (f: Frame) => {
        if (f.kind === kind) {
          clearTimeout(timer);
          resolve(f);
        }
      };
      const already = frames.slice(seen).find((f) => f.kind === kind);
      if (already) return check(already);
      vc.onFrame(check);
    });
  return { vc, media, recorder, messages, frames, lines, next };
}

describe('VoiceCall (assistant side, real audio)', () => {
  it('answers a turn: tool call to a local endpoint, TTS per sentence, paced audio on the leg, the turn recorded', async () => {
    chat.on(
      'book me in tomorrow',
      { toolCalls: [{ id: 'c1', name: 'check_slots', args: { day: 'tomorrow' } }] },
      { text: 'We have ten free tomorrow. Shall I book it?' },
    );
    const tool: MidCallTool = {
      id: 1,
      name: 'check_slots',
      description: 'Free slots of a day',
      endpoint: `${endpoint.url}/slots`,
      method: 'POST',
      timeout: 5,
      headers: [],
      schema: [{ name: 'day', type: 'string', description: 'the day' }],
    };
    const { vc, media, recorder, messages, lines, next, frames } = call({}, [tool]);
    const started = performance.now();
    const inputsBefore = speech.received.length;
    vc.customerSaid('book me in tomorrow');
    const done = await next('playback-done');
    const elapsed = performance.now() - started;

    // TTS got the reply sentence by sentence.
    expect(speech.received.slice(inputsBefore).map((r) => r.body.input)).toEqual(['We have ten free tomorrow.', 'Shall I book it?']);
    expect(done).toMatchObject({ kind: 'playback-done', text: 'We have ten free tomorrow. Shall I book it?' });
    // The tool ran against its endpoint with the model's arguments.
    expect(JSON.parse(endpoint.received.at(-1)!.body)).toEqual({ day: 'tomorrow' });
    // Both sentences reached the caller at 8 kHz, at real pace, recognisably.
    const heard = media.heard();
    const first = legLength('We have ten free tomorrow.');
    const whole = first + legLength('Shall I book it?');
    expect(Math.abs(heard.length - whole)).toBeLessThan(RATE * 0.03);
    expect(elapsed).toBeGreaterThan((whole / RATE) * 1000 - 50);
    expect(speech.clips.matchAudio(heard.subarray(0, first), RATE)?.text).toBe('We have ten free tomorrow.');
    expect(speech.clips.matchAudio(heard.subarray(first), RATE)?.text).toBe('Shall I book it?');
    // Audio left in 20 ms frames (a shorter one closes each sentence, before its mark).
    const sizes = frames.flatMap((f) => (f.kind === 'audio-out' ? [f.samples.length] : []));
    expect(sizes.every((n) => n <= 160)).toBe(true);
    expect(sizes.filter((n) => n < 160).length).toBeLessThanOrEqual(2);
    expect(lines).toEqual([
      { speaker: 'Customer', text: 'book me in tomorrow' },
      { speaker: 'AI', text: 'We have ten free tomorrow. Shall I book it?' },
    ]);
    expect(messages.slice(1).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(messages.at(-1)).toEqual({ role: 'assistant', content: 'We have ten free tomorrow. Shall I book it?' });
    const [turn] = recorder.turns;
    expect(turn).toMatchObject({ kind: 'reply', callerText: 'book me in tomorrow', assistantText: 'We have ten free tomorrow. Shall I book it?', interrupted: false });
    const t = turn!.timings;
    expect(t.finalTranscript).not.toBeNull();
    expect(t.llmFirstToken!).toBeGreaterThanOrEqual(t.finalTranscript!);
    expect(t.ttsFirstByte!).toBeGreaterThanOrEqual(t.llmFirstToken!);
    expect(t.firstAudio!).toBeGreaterThanOrEqual(t.ttsFirstByte!);
    await vc.close('test over');
  });

  it('barge-in: caller speech clears playback at once, aborts the turn, and only what was heard stays', async () => {
    const reply = 'One two three. Four five six seven eight nine ten. Eleven twelve thirteen fourteen fifteen sixteen.';
    chat.on('tell me everything', { text: reply });
    const { vc, media, recorder, messages, lines, next, frames } = call();
    vc.customerSaid('tell me everything');
    // The first sentence has been played; the caller starts talking over the second.
    await next('playback-mark');
    await new Promise((r) => setTimeout(r, 300));
    const onset = performance.now();
    void media.speak(callerVoice(800));
    const interruption = await next('interruption', 3000);
    const reaction = performance.now() - onset;
    expect(media.clears).toBe(1);
    expect(reaction).toBeLessThan(600);
    expect(interruption.kind === 'interruption' && interruption.heardText).toMatch(/^One two three\. Four/);
    const heardText = interruption.kind === 'interruption' ? interruption.heardText : '';
    expect(reply.startsWith(heardText)).toBe(true);
    expect(heardText.length).toBeLessThan(reply.length - 20);
    // The line played the first sentence whole and part of the second, no more.
    const first = legLength('One two three.');
    expect(speech.clips.matchAudio(media.heard().subarray(0, first), RATE)?.text).toBe('One two three.');
    expect(media.heard().length).toBeGreaterThan(first);
    expect(media.heard().length).toBeLessThan(first + legLength('Four five six seven eight nine ten.'));
    // Nothing of the cancelled turn is played after the clear.
    const after = media.heard().length;
    await new Promise((r) => setTimeout(r, 400));
    expect(media.heard().length).toBe(after);
    expect(frames.some((f) => f.kind === 'playback-done')).toBe(false);
    expect(lines.at(-1)).toEqual({ speaker: 'AI', text: heardText });
    expect(messages.at(-1)).toEqual({ role: 'assistant', content: heardText });
    expect(recorder.turns[0]).toMatchObject({ interrupted: true, assistantText: heardText });
    expect(recorder.turns[0]!.bargeIns).toHaveLength(1);
    await vc.close('test over');
  });

  it('allow_interruptions false: the caller talking over the reply never cuts it off', async () => {
    chat.on('tell me again', { text: 'One two three. Four five six seven.' });
    const { vc, media, next, lines } = call({ allowInterruptions: false });
    vc.customerSaid('tell me again');
    await next('playback-mark');
    void media.speak(callerVoice(600));
    const done = await next('playback-done');
    expect(media.clears).toBe(0);
    expect(done).toMatchObject({ text: 'One two three. Four five six seven.' });
    expect(lines.at(-1)).toEqual({ speaker: 'AI', text: 'One two three. Four five six seven.' });
    await vc.close('test over');
  });

  it('an unfilled {{placeholder}} is never read out on the audio path: not in the model\'s reply, not in a scripted line', async () => {
    chat.on('who am I', { text: 'Hello {{first_name}}, you are a customer. {{closing_line}}' });
    const { vc, next, lines, recorder } = call();
    const inputsBefore = speech.received.length;
    vc.customerSaid('who am I');
    const done = await next('playback-done');
    expect(done).toMatchObject({ text: 'Hello, you are a customer.' });
    await vc.say('Hi {{name}}, this is Anna.', 'reengagement');
    expect(speech.received.slice(inputsBefore).map((r) => r.body.input)).toEqual(['Hello, you are a customer.', 'Hi, this is Anna.']);
    expect(lines.filter((l) => l.speaker === 'AI').map((l) => l.text)).toEqual(['Hello, you are a customer.', 'Hi, this is Anna.']);
    expect(recorder.turns.map((t) => t.assistantText)).toEqual(['Hello, you are a customer.', 'Hi, this is Anna.']);
    await vc.close('test over');
  });

  it('a scripted line plays as its own turn and resolves when played', async () => {
    const { vc, media, recorder } = call();
    await vc.say('Hello, this is Anna.', 'greeting');
    expect(speech.clips.matchAudio(media.heard(), RATE)?.text).toBe('Hello, this is Anna.');
    expect(recorder.turns[0]).toMatchObject({ kind: 'greeting', assistantText: 'Hello, this is Anna.', interrupted: false });
    await vc.close('test over');
  });
});
