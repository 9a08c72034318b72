/**
 * Audio mode: the assistant's real voice pipeline on the sandbox's driven line. The caller's
 * lines are spoken by the local voice (eSpeak NG, real audio at real pace) and heard through the
 * Deepgram double (it recognises the clips registered with it: the same eSpeak audio); the
 * assistant answers through the chat double and speaks through the OpenAI speech double. Keys go
 * in as DTMF. Without a speech-to-text provider audio mode refuses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIO_NEEDS_STT, CALLER_VOICE, type AudioDeps } from '../../src/assistant-tests/audio.js';
import { checkExpectation } from '../../src/assistant-tests/assertions.js';
import { runOnce } from '../../src/assistant-tests/runner.js';
import { validateAgainstAssistant } from '../../src/assistant-tests/assistant-checks.js';
import { END_CALL_TOOL } from '../../src/calls/session-types.js';
import { OpenAiCompatibleLlm } from '../../src/providers/llm/openai.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { DeepgramStt } from '../../src/providers/stt/deepgram/index.js';
import { synthesizer } from '../../src/providers/synthesize.js';
import { LocalTts } from '../../src/providers/tts/local/index.js';
import { OpenAiTts } from '../../src/providers/tts/openai/index.js';
import { SandboxCarrier } from '../../src/telephony/sandbox/carrier.js';
import { startVoiceDoubles, type VoiceDoubles } from '../support/doubles/voice.js';
import { voiceRow } from '../support/voice-session.js';
import { scenario, silent, tourAssistant } from './support.js';

let voice: VoiceDoubles;
let local: LocalTts;
let llm: OpenAiCompatibleLlm;

const ASKS = 'I would like an appointment on Tuesday.';

beforeAll(async () => {
  voice = await startVoiceDoubles();
  local = new LocalTts({ size: 1 });
  llm = new OpenAiCompatibleLlm({ baseUrl: voice.llm.baseUrl, apiKey: 'llm-test-key' });
  // The Deepgram double knows the caller's line as the runner will speak it (the local voice, the caller's voice, 8 kHz).
  voice.clips.add(ASKS, await synthesizer(local, CALLER_VOICE)(ASKS, 8000), 8000);
});
afterAll(async () => {
  await voice.close();
  local.close();
});

const audioDeps = (stt: boolean): AudioDeps => ({
  providers: new ProviderRegistry(llm, {
    stt: stt ? [new DeepgramStt({ url: voice.deepgram.url, apiKey: voice.deepgram.knobs.apiKey })] : [],
    tts: [local, new OpenAiTts({ baseUrl: voice.speech.baseUrl, apiKey: voice.speech.knobs.apiKey!, model: 'tts-1' })],
  }),
  line: () => new SandboxCarrier({ timeScale: 1 }).drivenLeg(),
});

// The assistant speaks with the speech double's voice (alloy); it extracts nothing after the call.
const assistant = tourAssistant({ initial_message: 'Hello, this is Anna from the clinic.', post_call_schema: [], post_call_evaluation: false, voice: voiceRow() });

const booking = scenario(`name: books Tuesday by voice
mode: audio
caller:
  script:
    - say: "${ASKS}"
    - keys: "1#"
expect:
  - transcript_contains: "Customer: ${ASKS}"
  - transcript_contains: "[keypad: 1#]"
  - status: completed
  - turn_latency_ms: {p50: 3000, p95: 4000}
`);

describe('audio mode with the STT double', () => {
  it('runs a scripted caller on the voice pipeline: its words heard through speech-to-text, its keys as DTMF, latencies per reply turn', { timeout: 60_000 }, async () => {
    voice.llm.on(ASKS, { text: 'Tuesday at ten is free. Press 1 to confirm.' });
    voice.llm.on('[keypad: 1#]', { text: 'Booked for Tuesday at ten. Goodbye!', toolCalls: [{ id: 'e1', name: END_CALL_TOOL, args: {} }] });
    const connections = voice.deepgram.connections.length;
    const run = await runOnce(booking, assistant, { llm, log: silent, audio: audioDeps(true) });

    expect(run.error).toBeNull();
    expect(run.transcript).toEqual([
      { role: 'assistant', text: 'Hello, this is Anna from the clinic.' },
      { role: 'caller', text: ASKS },
      { role: 'assistant', text: 'Tuesday at ten is free. Press 1 to confirm.' },
      { role: 'caller', text: '[keypad: 1#]' },
      { role: 'assistant', text: 'Booked for Tuesday at ten. Goodbye!' },
    ]);
    // The caller's words came through the speech-to-text: the double heard the caller's audio and recognised the line.
    const heard = voice.deepgram.connections.slice(connections).flatMap((c) => c.heard.map((h) => h.text));
    expect(heard).toContain(ASKS);
    expect(run.endStatus).toBe('completed');
    expect(run.status).toBe('passed');

    // Latency: the caller's end of speech (or keys) → the assistant's first audio, per reply turn.
    const replies = run.turns.filter((t) => t.kind === 'reply');
    expect(replies.map((t) => t.callerText)).toEqual([ASKS, '[keypad: 1#]']);
    for (const t of replies) {
      expect(t.latencyMs).toBeGreaterThan(0);
      expect(t.latencyMs).toBeLessThan(3000);
    }
    const latency = run.assertions.find((a) => a.kind === 'turn_latency_ms')!;
    const sorted = replies.map((t) => t.latencyMs!).sort((a, b) => a - b);
    expect(latency.outcome).toBe('passed');
    expect(latency.expected).toEqual({ p50: 3000, p95: 4000 });
    expect(latency.actual).toMatchObject({ replies: 2 });
    const actual = latency.actual as { p50: number; p95: number };
    expect(sorted).toContain(actual.p95);
    expect(actual.p50).toBeLessThanOrEqual(actual.p95);
    expect(latency.message).toBe(`reply latency p50 ${actual.p50} ms, p95 ${actual.p95} ms over 2 turn(s)`);
    // The same turns held to a bound they miss: the failure names the actual value.
    const strict = await checkExpectation({ line: 9, kind: 'turn_latency_ms', p95: 1 }, { status: run.endStatus!, transcript: '', toolRequests: [], turns: run.turns, variables: null }, async () => null);
    expect(strict.outcome).toBe('failed');
    expect(strict.message).toBe(`expected p95 ≤ 1 ms; it was ${actual.p95} ms (2 reply turn(s))`);
  });

  it('refuses without a speech-to-text provider: at validation (the mode line) and at run time', async () => {
    const run = await runOnce(booking, assistant, { llm, log: silent, audio: audioDeps(false) });
    expect(run).toMatchObject({ status: 'error', error: AUDIO_NEEDS_STT, transcript: [], endStatus: null });
    expect(AUDIO_NEEDS_STT).toMatch(/speech-to-text.*DEEPGRAM_API_KEY or STT_BASE_URL/);
    const errors = validateAgainstAssistant(booking, { tools: assistant.tools, builtinTools: [], audioRefusal: AUDIO_NEEDS_STT });
    expect(errors).toEqual([{ line: 2, message: AUDIO_NEEDS_STT }]);
    // A text scenario is not concerned.
    expect(validateAgainstAssistant({ ...booking, mode: 'text' }, { tools: assistant.tools, builtinTools: [], audioRefusal: AUDIO_NEEDS_STT })).toEqual([]);
  });
});
