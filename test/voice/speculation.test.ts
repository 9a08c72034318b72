/**
 * Speculative replies as event sequences: the caller-side frames go through the pipeline's
 * turn-taking (the end-of-turn policy on a virtual clock), the speculation and the real LLM and
 * TTS stages talking to the chat-completions and OpenAI speech doubles over HTTP. What leaves the
 * pipeline (where the output stage would be) is what the caller could hear.
 *
 * - confirmed: the reply starts at `likely-over` (one request, the first sentence synthesised),
 *   nothing leaves the pipeline before the confirmation; then it plays with no second request,
 *   and the history holds the caller's words and the answer once;
 * - resumed: the caller goes on; the speculative reply is dropped without a trace (no frame out,
 *   history unchanged) and the next confirmed turn has all the words;
 * - a speculative run that reaches a tool call does not run the tool before the confirmation, and
 *   never when dropped.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTools, ToolRunner, toolFunction, type MidCallTool } from '../../src/calls/tool-runner.js';
import type { ChatMessage } from '../../src/providers/llm/types.js';
import { OpenAiCompatibleLlm } from '../../src/providers/llm/openai.js';
import { OpenAiTts } from '../../src/providers/tts/openai/index.js';
import { FakeClock } from '../../src/telephony/clock.js';
import { CallerWords } from '../../src/voice/caller-words.js';
import type { Frame } from '../../src/voice/frames.js';
import { LlmStage } from '../../src/voice/llm.js';
import { Pipeline } from '../../src/voice/pipeline.js';
import { SentenceAggregator } from '../../src/voice/sentences.js';
import { Floor } from '../../src/voice/settings.js';
import { Speculation } from '../../src/voice/speculation.js';
import { TtsStage } from '../../src/voice/tts.js';
import { PolicyTurnTakingStage } from '../../src/voice/turn-policy-stage.js';
import { turnWaits } from '../../src/voice/turn/policy.js';
import { VAD_STOP_MS } from '../../src/voice/voice-call.js';
import { ChatDouble } from '../support/doubles/chat.js';
import { OpenAiSpeechDouble } from '../support/doubles/openai-speech.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { waitFor } from '../support/wait.js';

const log = pino({ level: 'silent' });
const RATE = 8000;
/** The short wait after a finished sentence at the default sensitivity (the confirmation comes this long after the end of speech). */
const COMPLETE_MS = turnWaits(0.5).completeMs;

let chat: ChatDouble;
let speech: OpenAiSpeechDouble;
let endpoint: Receiver;

beforeAll(async () => {
  chat = await new ChatDouble().start();
  speech = await new OpenAiSpeechDouble().start();
  endpoint = await startReceiver(() => ({ status: 200, body: '{"booked":true}' }));
});
afterAll(async () => {
  await chat.close();
  await speech.close();
  await endpoint.close();
});

const TOOL: MidCallTool = {
  id: 1,
  name: 'book_taxi',
  description: 'Books a taxi',
  endpoint: '',
  method: 'POST',
  timeout: 5,
  headers: [],
  schema: [{ name: 'to', type: 'string', description: 'where to' }],
};

function setup() {
  const clock = new FakeClock();
  const floor = new Floor();
  const messages: ChatMessage[] = [{ role: 'system', content: 'You book taxis.' }];
  const tool = { ...TOOL, endpoint: `${endpoint.url}/book` };
  const llm = new LlmStage({
    llm: new OpenAiCompatibleLlm({ baseUrl: chat.baseUrl }),
    model: 'double',
    temperature: 0,
    messages,
    tools: callTools([tool], new ToolRunner({ allowPrivate: true, log })),
    specs: [toolFunction(tool)],
    variables: {},
  });
  const speculation = new Speculation({ messages });
  speculation.useLlm(llm);
  const p = new Pipeline(
    [
      new PolicyTurnTakingStage({ endpointType: 'vad', endpointSensitivity: 0.5, language: 'en', floor, clock, words: new CallerWords(), speculation }),
      llm,
      new SentenceAggregator(),
      speculation.textGate,
      new TtsStage(new OpenAiTts({ baseUrl: speech.baseUrl, apiKey: speech.knobs.apiKey!, model: 'tts-1' }), { voice: 'alloy', sampleRate: RATE, language: 'en' }),
      speculation.audioGate,
    ],
    { clock, log },
  );
  const out: Frame[] = [];
  p.onOutput((f) => out.push(f));
  const requests = chat.received.length;
  const syntheses = speech.received.length;
  const at = () => clock.now();
  /** The caller says `text` (final transcript) over `ms`; the VAD reports the end after its stop window (VAD_STOP_MS). */
  const says = async (text: string, ms = 1000) => {
    p.push({ kind: 'speech-started', turn: p.turns.current, at: at(), probability: 0.9 });
    await clock.advance(ms);
    p.push({ kind: 'transcript', turn: p.turns.current, text, final: true, speechFinal: false, at: at() });
    const end = at();
    await clock.advance(VAD_STOP_MS);
    p.push({ kind: 'speech-stopped', turn: p.turns.current, at: end });
    return end;
  };
  /** Frames of the assistant's side that left the pipeline (what the output stage would play). */
  const heard = () => out.filter((f) => f.kind === 'speak' || f.kind === 'tts-audio' || f.kind === 'llm-delta' || f.kind === 'tool-call');
  return {
    clock,
    p,
    out,
    messages,
    speculation,
    says,
    heard,
    requests: () => chat.received.slice(requests),
    syntheses: () => speech.received.slice(syntheses).map((r) => r.body.input),
  };
}

describe('speculative replies', () => {
  it('confirmed: the reply starts at likely-over, is held until the turn is confirmed, then plays with no second LLM request', async () => {
    chat.on('I need a taxi to the station.', { text: 'Sure, a taxi to the station. It will be there in ten minutes.' });
    const s = setup();
    const end = await s.says('I need a taxi to the station.');
    // The end of speech is known VAD_STOP_MS after it: likely over already (the confirmation is due at + the short wait).
    await waitFor('the speculative request and the first sentence synthesised', () => s.requests().length === 1 && s.syntheses().length === 1);
    await new Promise((r) => setTimeout(r, 200));
    expect(s.syntheses()).toEqual(['Sure, a taxi to the station.']);
    // Held: nothing of the reply left the pipeline, the history is untouched, no turn opened.
    expect(s.heard()).toEqual([]);
    expect(s.out.some((f) => f.kind === 'end-of-turn' || f.kind === 'turn-started')).toBe(false);
    expect(s.messages).toHaveLength(1);
    expect(s.requests()[0]!.body.messages.at(-1)).toEqual({ role: 'user', content: 'I need a taxi to the station.' });

    await s.clock.advance(end + COMPLETE_MS - s.clock.now());
    const started = s.out.find((f) => f.kind === 'turn-started');
    expect(s.out.find((f) => f.kind === 'end-of-turn')).toMatchObject({ text: 'I need a taxi to the station.', at: end + COMPLETE_MS });
    expect(started).toMatchObject({ callerText: 'I need a taxi to the station.', at: end });
    await waitFor('the whole reply', () => s.out.some((f) => f.kind === 'tts-done'));
    // The turn's start comes first, then the reply in order, sentence by sentence.
    const mine = s.out.filter((f) => f.turn === started!.turn).map((f) => f.kind);
    expect(mine[0]).toBe('turn-started');
    expect(s.out.filter((f) => f.kind === 'speak').map((f) => (f as { text: string }).text)).toEqual(['Sure, a taxi to the station.', 'It will be there in ten minutes.']);
    expect(s.out.some((f) => f.kind === 'tts-audio' && f.turn === started!.turn)).toBe(true);
    expect(s.requests()).toHaveLength(1);
    expect(s.syntheses()).toEqual(['Sure, a taxi to the station.', 'It will be there in ten minutes.']);
    expect(s.messages.slice(1)).toEqual([
      { role: 'user', content: 'I need a taxi to the station.' },
      { role: 'assistant', content: 'Sure, a taxi to the station. It will be there in ten minutes.' },
    ]);
    expect(s.speculation.stats).toEqual({ started: 1, adopted: 1, dropped: 0, turns: 1 });
  });

  it('resumed: the caller goes on; the speculative reply is dropped without a trace and the next confirmed turn has all the words', async () => {
    chat.on('I need a taxi.', { text: 'Where to?' });
    chat.on('I need a taxi. To the airport please.', { text: 'A taxi to the airport. Done.' });
    const s = setup();
    await s.says('I need a taxi.');
    await waitFor('the speculative request', () => s.requests().length === 1 && s.syntheses().length === 1);
    // The caller goes on before the turn is confirmed (within the short wait).
    await s.clock.advance(Math.floor((COMPLETE_MS - VAD_STOP_MS) / 2));
    const end = await s.says('To the airport please.', 900);
    expect(s.speculation.stats).toMatchObject({ started: 2, dropped: 1, adopted: 0 });
    // Dropped: nothing heard, nothing in the history, no turn.
    expect(s.heard()).toEqual([]);
    expect(s.out.filter((f) => f.kind === 'end-of-turn')).toEqual([]);
    expect(s.out.filter((f) => f.kind === 'cancel').map((f) => (f as { reason: string }).reason)).toEqual(['superseded']);
    expect(s.messages).toHaveLength(1);

    await waitFor('the second speculative request', () => s.requests().length === 2);
    await s.clock.advance(end + COMPLETE_MS - s.clock.now());
    expect(s.out.filter((f) => f.kind === 'end-of-turn').map((f) => (f as { text: string }).text)).toEqual(['I need a taxi. To the airport please.']);
    await waitFor('the reply', () => s.out.some((f) => f.kind === 'tts-done'));
    expect(s.requests().map((r) => r.body.messages.at(-1).content)).toEqual(['I need a taxi.', 'I need a taxi. To the airport please.']);
    expect(s.out.filter((f) => f.kind === 'speak').map((f) => (f as { text: string }).text)).toEqual(['A taxi to the airport.', 'Done.']);
    expect(s.messages.slice(1)).toEqual([
      { role: 'user', content: 'I need a taxi. To the airport please.' },
      { role: 'assistant', content: 'A taxi to the airport. Done.' },
    ]);
    expect(s.speculation.stats).toEqual({ started: 2, adopted: 1, dropped: 1, turns: 1 });
  });

  it('a speculative run that reaches a tool call waits for the confirmation: dropped, the tool never runs; confirmed, it runs once', async () => {
    chat.on('Book me a taxi to the zoo.', { toolCalls: [{ id: 'z1', name: 'book_taxi', args: { to: 'zoo' } }] }, { text: 'Booked.' });
    const s = setup();
    const before = endpoint.received.length;
    await s.says('Book me a taxi to the zoo.');
    await waitFor('the speculative request', () => s.requests().length === 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(endpoint.received.length - before).toBe(0);
    // The caller goes on ("…and back") before the short wait is over: dropped; the tool did not run.
    await s.clock.advance(Math.floor((COMPLETE_MS - VAD_STOP_MS) / 2));
    s.p.push({ kind: 'speech-started', turn: s.p.turns.current, at: s.clock.now(), probability: 0.9 });
    await new Promise((r) => setTimeout(r, 300));
    expect(endpoint.received.length - before).toBe(0);
    expect(s.messages).toHaveLength(1);
    expect(s.speculation.stats.dropped).toBe(1);
    // The caller stops without new words: the same words again, now confirmed; the tool runs once.
    await s.clock.advance(300);
    s.p.push({ kind: 'speech-stopped', turn: s.p.turns.current, at: s.clock.now() - VAD_STOP_MS });
    await s.clock.advance(300);
    await waitFor('the reply after the tool', () => s.out.some((f) => f.kind === 'tts-done'));
    expect(endpoint.received.length - before).toBe(1);
    expect(s.messages.slice(1).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(s.speculation.stats).toMatchObject({ adopted: 1, dropped: 1 });
  });
});
