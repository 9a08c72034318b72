/**
 * The caller's side through real audio: caller speech (registered with the doubles' clip book)
 * on the sandbox media line → VAD → the Deepgram live double (over its WebSocket protocol) →
 * end of turn (endpoint_type vad, and ai with and without speech_final) → the chat double with
 * a mid-call tool call to a local endpoint → the speech double → outbound audio matched back to
 * the expected sentence. And backchannels under min_interrupt_words.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concat, silence } from '../../src/audio/pcm.js';
import { MemoryTurnRecorder, TurnTracker } from '../../src/calls/turns.js';
import { callTools, ToolRunner, toolFunction } from '../../src/calls/tool-runner.js';
import type { Frame } from '../../src/voice/frames.js';
import { END_CALL_FUNCTION } from '../../src/voice/llm.js';
import { endpointRule } from '../../src/voice/sensitivity.js';
import type { TurnTakingSettings } from '../../src/voice/settings.js';
import { EnergyVad, type VadModel } from '../../src/voice/vad.js';
import { SileroVad, sharedVadRunner } from '../../src/audio/vad/silero.js';
import { fixture, fixtureAudio } from '../support/audio-fixtures.js';
import { VoiceCall, type TranscriptLine } from '../../src/voice/voice-call.js';
import type { ChatMessage } from '../../src/providers/llm/types.js';
import { OpenAiCompatibleLlm } from '../../src/providers/llm/openai.js';
import { DeepgramStt } from '../../src/providers/stt/deepgram/index.js';
import { OpenAiTts } from '../../src/providers/tts/openai/index.js';
import { systemClock } from '../../src/telephony/clock.js';
import { SandboxMedia } from '../../src/telephony/sandbox/media.js';
import { speechLike } from '../support/doubles/clips.js';
import { startVoiceDoubles, type VoiceDoubles } from '../support/doubles/voice.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { freeSlotsTool } from '../support/voice-session.js';
import { CANCELLED_TOOL_RESULT } from '../../src/voice/tool-history.js';

const log = pino({ level: 'silent' });
const RATE = 8000;

let voice: VoiceDoubles;
let endpoint: Receiver;

beforeAll(async () => {
  voice = await startVoiceDoubles();
  endpoint = await startReceiver(() => ({ status: 200, body: '{"free":["10:00"]}' }));
});

afterAll(async () => {
  await voice.close();
  await endpoint.close();
});

function call(settings: Partial<TurnTakingSettings>, vad: VadModel = new EnergyVad(RATE)) {
  const media = new SandboxMedia(RATE, systemClock);
  const recorder = new MemoryTurnRecorder();
  const messages: ChatMessage[] = [{ role: 'system', content: 'You book appointments.' }];
  const frames: Frame[] = [];
  const lines: TranscriptLine[] = [];
  const tools = [freeSlotsTool(`${endpoint.url}/free`)];
  const turnTaking: TurnTakingSettings = { endpointType: 'vad', endpointSensitivity: 2.5, interruptSensitivity: 2.5, allowInterruptions: true, minInterruptWords: 0, ...settings };
  const rule = endpointRule(turnTaking.endpointSensitivity);
  const vc = new VoiceCall({
    media,
    clock: systemClock,
    log,
    llm: {
      llm: new OpenAiCompatibleLlm({ baseUrl: voice.llm.baseUrl }),
      model: 'double',
      temperature: 0,
      messages,
      tools: callTools(tools, new ToolRunner({ allowPrivate: true, log })),
      specs: [...tools.map(toolFunction), { name: END_CALL_FUNCTION, description: 'End the call.', parameters: { type: 'object', properties: {} } }],
      variables: {},
    },
    tts: { provider: new OpenAiTts({ baseUrl: voice.speech.baseUrl, apiKey: voice.speech.knobs.apiKey!, model: 'tts-1' }), options: { voice: 'alloy', sampleRate: RATE, language: 'en' } },
    stt: {
      provider: new DeepgramStt({ url: voice.deepgram.url, apiKey: voice.deepgram.knobs.apiKey }),
      options: { sampleRate: RATE, language: 'en', endpointingMs: rule.sttEndpointingMs, utteranceEndMs: rule.utteranceEndMs },
    },
    vad,
    turnTaking,
    tracker: new TurnTracker(recorder, systemClock),
  });
  vc.onFrame((f) => frames.push(f));
  vc.onLine((l) => lines.push(l));
  const waitFor = (test: (f: Frame) => boolean, timeoutMs = 10_000) =>
    new Promise<Frame>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching frame within ${timeoutMs} ms`)), timeoutMs);
      vc.onFrame((f) => {
        if (test(f)) {
          clearTimeout(timer);
          resolve(f);
        }
      });
    });
  return { vc, media, recorder, messages, frames, lines, waitFor };
}

const QUESTION = 'I would like to book an appointment for tomorrow';
const ANSWER = 'Ten in the morning is free. Shall I book it?';

describe('caller speech through VAD and speech-to-text', () => {
  for (const mode of [
    { name: 'endpoint_type vad', settings: { endpointType: 'vad' as const }, dropSpeechFinal: false },
    { name: 'endpoint_type ai', settings: { endpointType: 'ai' as const }, dropSpeechFinal: false },
    { name: 'endpoint_type ai with speech_final dropped (UtteranceEnd ends the turn)', settings: { endpointType: 'ai' as const }, dropSpeechFinal: true },
  ]) {
    it(`${mode.name}: the caller's utterance ends the turn, the reply (after a tool call) is heard`, async () => {
      voice.deepgram.knobs.dropSpeechFinal = mode.dropSpeechFinal;
      voice.llm.on(QUESTION, { toolCalls: [{ id: 't1', name: 'free_slots', args: { day: 'tomorrow' } }] }, { text: ANSWER });
      const { vc, media, lines, recorder, waitFor } = call(mode.settings);
      const toolCallsBefore = endpoint.received.length;
      const caller = voice.say(QUESTION, RATE);
      const done = waitFor((f) => f.kind === 'playback-done');
      await media.speak(concat([silence(300, RATE), caller, silence(1500, RATE)]));
      await done;
      expect(lines[0]).toEqual({ speaker: 'Customer', text: QUESTION });
      expect(lines[1]).toEqual({ speaker: 'AI', text: ANSWER });
      expect(endpoint.received.length).toBe(toolCallsBefore + 1);
      expect(JSON.parse(endpoint.received.at(-1)!.body)).toEqual({ day: 'tomorrow' });
      // The outbound audio is the two sentences, recognisably.
      const heard = media.heard();
      const a = speechLike('Ten in the morning is free.', RATE).samples.length;
      const b = speechLike('Shall I book it?', RATE).samples.length;
      expect(Math.abs(heard.length - (a + b))).toBeLessThan(RATE * 0.03);
      const firstLen = Math.round((heard.length * a) / (a + b));
      expect(voice.clips.matchAudio(heard.subarray(0, firstLen), RATE)?.text).toBe('Ten in the morning is free.');
      expect(voice.clips.matchAudio(heard.subarray(firstLen), RATE)?.text).toBe('Shall I book it?');
      const turn = recorder.turns[0]!;
      expect(turn).toMatchObject({ callerText: QUESTION, assistantText: ANSWER, interrupted: false });
      for (const stage of ['finalTranscript', 'llmFirstToken', 'ttsFirstByte', 'firstAudio'] as const) expect(turn.timings[stage]).not.toBeNull();
      await vc.close('test over');
      voice.deepgram.knobs.dropSpeechFinal = false;
    });
  }

  it('Silero VAD (the production default) on a recorded utterance: endpoint_type vad ends the turn', async () => {
    const clip = fixture('book-appointment');
    const audio = fixtureAudio('book-appointment', 8000);
    voice.clips.add(clip.text, audio, RATE);
    voice.llm.on(clip.text, { text: 'Tomorrow at ten is free.' });
    const silero = new SileroVad(await sharedVadRunner(), 8000);
    const { vc, media, lines, recorder, waitFor } = call({ endpointType: 'vad' }, silero);
    const done = waitFor((f) => f.kind === 'playback-done');
    const stopped = waitFor((f) => f.kind === 'speech-stopped');
    await media.speak(concat([silence(300, RATE), audio, silence(1500, RATE)]));
    await stopped;
    await done;
    expect(lines).toEqual([
      { speaker: 'Customer', text: clip.text },
      { speaker: 'AI', text: 'Tomorrow at ten is free.' },
    ]);
    expect(voice.clips.matchAudio(media.heard(), RATE)?.text).toBe('Tomorrow at ten is free.');
    expect(recorder.turns[0]!.timings.firstAudio).not.toBeNull();
    await vc.close('test over');
  });

  it('min_interrupt_words 2: "mhm" over the reply pauses it and it plays on; "wait, stop" ends it', async () => {
    const long =
      'Let me tell you about all our opening hours. We open at nine in the morning on weekdays. We close at six in the evening. On Saturdays we open at ten and close at two.';
    voice.llm.on('tell me the hours', { text: long });
    voice.llm.on('mhm wait, stop', { text: 'Of course.' });
    const { vc, media, lines, waitFor, messages } = call({ minInterruptWords: 2, endpointType: 'ai' });
    vc.customerSaid('tell me the hours');
    await waitFor((f) => f.kind === 'playback-mark');
    const resumed = waitFor((f) => f.kind === 'playback-resumed');
    await media.speak(concat([voice.say('mhm', RATE), silence(1200, RATE)]));
    // Two steps: "mhm" paused the reply (one clear) and it played on where it stopped.
    await resumed;
    expect(media.clears).toBe(1);
    const interruption = waitFor((f) => f.kind === 'interruption');
    void media.speak(concat([voice.say('wait, stop', RATE), silence(1200, RATE)]));
    const frame = await interruption;
    expect(media.clears).toBe(2);
    const heardText = frame.kind === 'interruption' ? frame.heardText : '';
    expect(long.startsWith(heardText)).toBe(true);
    expect(heardText.length).toBeGreaterThanOrEqual('Let me tell you about all our opening hours.'.length);
    expect(heardText.length).toBeLessThan(long.length);
    expect(messages.find((m) => m.role === 'assistant')).toEqual({ role: 'assistant', content: heardText });
    // "mhm" was no turn of its own; "wait, stop" is the caller's next turn, and the "mhm" said
    // before it is kept with it (no caller word lost, caller-words.ts).
    await waitFor((f) => f.kind === 'end-of-turn');
    expect(lines.filter((l) => l.speaker === 'Customer').map((l) => l.text)).toEqual(['tell me the hours', 'mhm wait, stop']);
    await vc.close('test over');
  });

  it('a barge-in while a slow mid-call tool runs: the cut-off call is answered in the history, the next request is accepted, the call goes on', async () => {
    voice.llm.on(
      'what is free on friday',
      { text: 'One moment please. I am looking at the calendar for Friday now, and that can take a little while.', toolCalls: [{ id: 'slow_1', name: 'free_slots', args: { day: 'friday' } }] },
      { text: 'Friday at ten is free.' },
    );
    voice.llm.on('no, hold on a second', { text: 'Of course, I am listening.' });
    const answer = endpoint.answer;
    endpoint.answer = (req, n) => (req.body.includes('friday') ? { status: 200, body: '{"free":["10:00"]}', delayMs: 4500 } : answer(req, n));
    try {
      const { vc, media, lines, messages, frames, waitFor } = call({ endpointType: 'ai' });
      const before = voice.llm.received.length;
      vc.customerSaid('what is free on friday');
      await waitFor((f) => f.kind === 'tool-call');
      await waitFor((f) => f.kind === 'playback-mark');
      const interruption = waitFor((f) => f.kind === 'interruption');
      const answered = waitFor((f) => f.kind === 'playback-done' && lines.some((l) => l.text === 'Of course, I am listening.'));
      void media.speak(concat([voice.say('no, hold on a second', RATE), silence(1200, RATE)]));
      await interruption;
      await answered;
      // The request after the barge-in carried the cut-off call with its result, and the double (OpenAI's rule) took it.
      const next = voice.llm.received.slice(before).find((r) => r.body?.messages?.at(-1)?.content === 'no, hold on a second')!;
      const sent: ChatMessage[] = next.body.messages;
      const calling = sent.findIndex((m) => m.role === 'assistant' && m.tool_calls?.[0]?.id === 'slow_1');
      expect(sent[calling + 1]).toEqual({ role: 'tool', tool_call_id: 'slow_1', content: CANCELLED_TOOL_RESULT });
      expect(sent.at(-1)).toEqual({ role: 'user', content: 'no, hold on a second' });
      expect(lines.at(-1)).toEqual({ speaker: 'AI', text: 'Of course, I am listening.' });
      // The tool's late result changes nothing: the call is not ended and the history keeps one result per call.
      await new Promise((r) => setTimeout(r, 4700));
      expect(messages.filter((m) => m.role === 'tool')).toHaveLength(1);
      expect(frames.some((f) => f.kind === 'hang-up' || f.kind === 'error')).toBe(false);
      await vc.close('test over');
    } finally {
      endpoint.answer = answer;
    }
  });
});
