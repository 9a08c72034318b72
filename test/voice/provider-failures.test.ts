/**
 * Why a call went wrong is in its record (issue 18): when the speech-to-text or text-to-speech
 * provider fails on an audio call, the call's transcript gets a note line and the turn it broke
 * (GET /api/user/calls/{id}/turns) says which stage failed and why.
 *
 * Real audio calls through the service: the Twilio double is the phone network and the person
 * (real pace, μ-law media stream), the Deepgram live double hears the caller, the OpenAI-compatible
 * speech double speaks, the chat double answers — each told by its knobs to fail the way vendors
 * do (401 on the handshake, a socket closed mid-stream, a 500). Connection refused and a timeout
 * are shown on the voice pipeline itself (the deployment's provider URLs are fixed per process).
 * @one-database: real-pace audio through the service; the database only stores what the call did,
 * which the API tests check on both databases.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../src/calls/index.js';
import { MemoryTurnRecorder, TurnTracker } from '../../src/calls/turns.js';
import { callTools, ToolRunner } from '../../src/calls/tool-runner.js';
import type { Frame } from '../../src/voice/frames.js';
import { END_CALL_FUNCTION } from '../../src/voice/llm.js';
import { EnergyVad } from '../../src/voice/vad.js';
import { VoiceCall } from '../../src/voice/voice-call.js';
import { voices } from '../../src/db/schema.js';
import { OpenAiCompatibleLlm } from '../../src/providers/llm/openai.js';
import { DeepgramStt } from '../../src/providers/stt/deepgram/index.js';
import { OpenAiTts } from '../../src/providers/tts/openai/index.js';
import { systemClock } from '../../src/telephony/clock.js';
import { SandboxMedia } from '../../src/telephony/sandbox/media.js';
import { TwilioDouble } from '../support/doubles/twilio.js';
import { startVoiceDoubles, type VoiceDoubles } from '../support/doubles/voice.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';
import { concat, silence } from '../../src/audio/pcm.js';
import net from 'node:net';
import { PUBLIC, twilioEnv } from '../support/twilio-service.js';

const GREETING = 'Hello, this is the clinic.';
const QUESTION = 'I would like to book an appointment for tomorrow';
const ANSWER = 'Ten in the morning is free.';

let voice: VoiceDoubles;
let double: TwilioDouble;
let t: TestService;
let alice: TestUser;
let assistantId: number;
let local = '';
let nextNumber = 0;

beforeAll(async () => {
  voice = await startVoiceDoubles();
  const route = (url: string) => url.replace(PUBLIC, local).replace(PUBLIC.replace('https', 'wss'), local.replace('http', 'ws'));
  double = await TwilioDouble.start({ route });
  t = await startTestService({
    listen: true,
    parts: [callEnginePart],
    env: {
      ...voice.env,
      ...twilioEnv(double),
    },
  });
  local = t.service.url!;
  alice = await t.createUser({ name: 'Alice' });
  const number = await t.admin.post(`/api/admin/users/${alice.id}/phone-numbers`, {
    phone_number: '+14155550100',
    type_label: 'Normal',
    carrier: 'twilio',
    carrier_sid: 'PN' + 'c'.repeat(32),
  });
  // Spoken by the OpenAI-compatible speech double (the seeded voices are the local one).
  const [speaker] = await t.service.ctx.database.db.insert(voices).values({ name: 'Alloy', mode: 'pipeline', provider: 'openai', providerVoiceId: 'alloy' }).returning();
  assistantId = (
    await insertAssistant(t, alice.id, { phoneNumberId: number.body.data.id, voiceId: speaker!.id, maxDuration: 30, initialMessage: GREETING, endpointType: 'ai' })
  ).id;
  voice.llm.on(QUESTION, { text: ANSWER });
}, 120_000);

afterAll(async () => {
  await t?.close();
  await double?.close();
  await voice?.close();
});

interface Turn {
  kind: string;
  assistant_text: string;
  timings: Record<string, number | null>;
  error: { stage: string; message: string } | null;
}

/** Places a call to a person who waits for the greeting, asks the question, waits for an answer and hangs up. */
async function audioCall(): Promise<{ transcript: string[]; turns: Turn[]; heardSpeech: boolean }> {
  const to = `+1415555${String(2000 + nextNumber++)}`;
  double.script(to, {
    ringMs: 100,
    // Generous waits: on a loaded machine the greeting may start late (when the TTS fails the
    // person waits them out, so they also bound how long those calls take).
    steps: [
      { waitForAssistant: { silenceMs: 500, timeoutMs: 10_000 } },
      { say: concat([voice.say(QUESTION, 8000), silence(200, 8000)]), label: 'question' },
      { waitForAssistant: { silenceMs: 500, timeoutMs: 6000 } },
      { hangUp: true },
    ],
  });
  const res = await alice.post('/api/user/make_call', { phone_number: to, assistant_id: assistantId });
  expect(res.status).toBe(200);
  const callId = Number(res.body.call_id);
  const call = await double.callTo(to);
  await call.done;
  // The record is written once the session is over (its turns are stored before it).
  const deadline = Date.now() + 60_000;
  let record = (await alice.get(`/api/user/calls/${callId}`)).body;
  while (['initiated', 'ringing', 'in-progress'].includes(record.status ?? record.data?.status)) {
    if (Date.now() > deadline) throw new Error(`call ${callId} did not end`);
    await new Promise((r) => setTimeout(r, 100));
    record = (await alice.get(`/api/user/calls/${callId}`)).body;
  }
  const transcript = String(record.transcript ?? record.data?.transcript).split('\n');
  const turns = (await alice.get(`/api/user/calls/${callId}/turns`)).body.data as Turn[];
  return { transcript, turns, heardSpeech: (call.person?.heard.length ?? 0) > 0 };
}

describe('provider failures on an audio call are in its record', () => {
  it('a healthy call has no note and no turn error (the baseline the failures differ from)', async () => {
    const { transcript, turns } = await audioCall();
    // (How the conversation went depends on timing on a loaded machine; what matters is that nothing failed.)
    expect(transcript[0]).toBe(`AI: ${GREETING}`);
    expect(transcript.filter((l) => l.startsWith('['))).toEqual([]);
    expect(turns.length).toBeGreaterThan(0);
    expect(turns.filter((turn) => turn.error !== null)).toEqual([]);
  }, 120_000);

  it('speech-to-text refuses the key (401): a note line, the turn says stt and why; the assistant still speaks', async () => {
    voice.deepgram.knobs.failAuth = true;
    try {
      const { transcript, turns } = await audioCall();
      expect(transcript).toContain(`AI: ${GREETING}`);
      expect(transcript.filter((l) => l.startsWith('['))).toEqual([expect.stringMatching(/^\[the speech-to-text provider failed: Deepgram refused the connection: HTTP 401.*\]$/)]);
      // The caller could not be heard: no customer line, and the failure sits on the turn it broke.
      expect(transcript.some((l) => l.startsWith('Customer:'))).toBe(false);
      expect(turns[0]).toMatchObject({ kind: 'greeting', assistant_text: GREETING, error: { stage: 'stt', message: expect.stringContaining('HTTP 401') } });
    } finally {
      voice.deepgram.knobs.failAuth = false;
    }
  }, 120_000);

  it('speech-to-text closes the socket mid-stream: a note line and the turn error', async () => {
    voice.deepgram.knobs.closeAfterAudioMs = 600;
    try {
      const { transcript, turns } = await audioCall();
      expect(transcript.filter((l) => l.startsWith('['))).toEqual([expect.stringMatching(/^\[the speech-to-text provider failed: Deepgram closed the stream: 1011.*\]$/)]);
      expect(turns.filter((turn) => turn.error !== null)).toEqual([expect.objectContaining({ error: { stage: 'stt', message: expect.stringContaining('1011') } })]);
    } finally {
      voice.deepgram.knobs.closeAfterAudioMs = null;
    }
  }, 120_000);

  it('text-to-speech answers 500: a note line, the greeting turn says tts and why, no audio was sent', async () => {
    voice.speech.knobs.failWith = 500;
    try {
      const { transcript, turns } = await audioCall();
      expect(transcript[0]).toMatch(/^\[the text-to-speech provider failed: OpenAI-compatible TTS: speech request failed with status 500.*\]$/);
      expect(transcript.filter((l) => l.startsWith('['))).toHaveLength(1);
      expect(turns[0]).toMatchObject({ kind: 'greeting', error: { stage: 'tts', message: expect.stringContaining('status 500') } });
      expect(turns[0]!.timings.tts_first_byte_ms).toBeNull();
      expect(turns[0]!.timings.first_audio_ms).toBeNull();
    } finally {
      voice.speech.knobs.failWith = null;
    }
  }, 120_000);

  it('text-to-speech drops the connection mid-answer: a note line and the turn error, after the audio that came', async () => {
    // Chunks paced as a real server's, so the first ones arrive before the socket is destroyed.
    voice.speech.knobs.dropAfterChunks = 3;
    voice.speech.knobs.chunkDelayMs = 50;
    try {
      const { transcript, turns } = await audioCall();
      expect(transcript.filter((l) => l.startsWith('['))).toEqual([expect.stringMatching(/^\[the text-to-speech provider failed: OpenAI-compatible TTS: .*\]$/)]);
      expect(turns[0]).toMatchObject({ kind: 'greeting', error: { stage: 'tts' } });
      expect(turns[0]!.timings.tts_first_byte_ms).not.toBeNull();
    } finally {
      voice.speech.knobs.dropAfterChunks = null;
      voice.speech.knobs.chunkDelayMs = 0;
    }
  }, 120_000);
});

describe('provider failures on the voice pipeline: connection refused and a timeout', () => {
  const log = pino({ level: 'silent' });
  const RATE = 8000;

  /** A port nothing listens on (taken and released). */
  async function closedPort(): Promise<number> {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as net.AddressInfo;
    await new Promise((r) => server.close(r));
    return port;
  }

  function pipeline(stt: DeepgramStt, tts: OpenAiTts) {
    const media = new SandboxMedia(RATE, systemClock);
    const recorder = new MemoryTurnRecorder();
    const notes: string[] = [];
    const frames: Frame[] = [];
    const vc = new VoiceCall({
      media,
      clock: systemClock,
      log,
      llm: {
        llm: new OpenAiCompatibleLlm({ baseUrl: voice.llm.baseUrl }),
        model: 'double',
        temperature: 0,
        messages: [],
        tools: callTools([], new ToolRunner({ allowPrivate: true, log })),
        specs: [{ name: END_CALL_FUNCTION, description: 'End the call.', parameters: { type: 'object', properties: {} } }],
        variables: {},
      },
      tts: { provider: tts, options: { voice: 'alloy', sampleRate: RATE, language: 'en' } },
      stt: { provider: stt, options: { sampleRate: RATE, language: 'en' } },
      vad: new EnergyVad(RATE),
      turnTaking: { endpointType: 'ai', endpointSensitivity: 2.5, interruptSensitivity: 2.5, allowInterruptions: true, minInterruptWords: 0 },
      tracker: new TurnTracker(recorder, systemClock),
    });
    vc.onNote((n) => notes.push(n));
    vc.onFrame((f) => frames.push(f));
    const until = async (what: string, test: () => boolean, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!test()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    return { vc, recorder, notes, frames, until };
  }

  it('connection refused by both providers: one note each, on the turn that was open', async () => {
    const port = await closedPort();
    const { vc, recorder, notes, until } = pipeline(
      new DeepgramStt({ url: `ws://127.0.0.1:${port}/v1/listen`, apiKey: 'k' }),
      new OpenAiTts({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'k', model: 'tts-1' }),
    );
    const said = vc.say(GREETING, 'greeting');
    await until('both notes', () => notes.length === 2);
    await said;
    expect(notes.sort()).toEqual([
      expect.stringMatching(/^\[the speech-to-text provider failed: Deepgram connection failed: .*ECONNREFUSED.*\]$/),
      expect.stringMatching(/^\[the text-to-speech provider failed: OpenAI-compatible TTS: .*\]$/),
    ]);
    await vc.close('test over');
    const [greeting] = recorder.turns;
    // The first failure of the turn is kept (whichever provider gave up first).
    expect(greeting).toMatchObject({ kind: 'greeting', error: { stage: expect.stringMatching(/^(stt|tts)$/) } });
  }, 30_000);

  it('text-to-speech times out: a note saying so and the turn error', async () => {
    voice.speech.knobs.firstByteDelayMs = 3000;
    try {
      const { vc, recorder, notes, until } = pipeline(
        new DeepgramStt({ url: voice.deepgram.url, apiKey: voice.deepgram.knobs.apiKey }),
        new OpenAiTts({ baseUrl: voice.speech.baseUrl, apiKey: voice.speech.knobs.apiKey!, model: 'tts-1', timeoutMs: 300 }),
      );
      await vc.say(GREETING, 'greeting');
      await until('the note', () => notes.length === 1);
      expect(notes).toEqual(['[the text-to-speech provider failed: OpenAI-compatible TTS: speech request timed out]']);
      await vc.close('test over');
      expect(recorder.turns[0]).toMatchObject({ kind: 'greeting', error: { stage: 'tts', message: 'OpenAI-compatible TTS: speech request timed out' } });
    } finally {
      voice.speech.knobs.firstByteDelayMs = 0;
    }
  }, 30_000);
});
