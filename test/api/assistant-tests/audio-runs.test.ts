/**
 * An audio-mode test run through the API, on a service configured with speech-to-text (the
 * OpenAI-compatible transcription double): the process's sandbox line, its speech providers and
 * local voice, its VAD. The caller's line is heard through the transcription server; the run
 * makes no call record.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLER_VOICE } from '../../../src/assistant-tests/audio.js';
import { testRunsPart } from '../../../src/assistant-tests/run-queue.js';
import { calls } from '../../../src/db/schema.js';
import { END_CALL_TOOL } from '../../../src/calls/session-types.js';
import { synthesizer } from '../../../src/providers/synthesize.js';
import { LocalTts } from '../../../src/providers/tts/local/index.js';
import { startVoiceDoubles, type VoiceDoubles } from '../../support/doubles/voice.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { minimalCreate } from '../assistants/fixtures.js';

let t: TestService;
let voice: VoiceDoubles;
let alice: TestUser;
const ASKS = 'Can I book a table for two tonight?';

beforeAll(async () => {
  voice = await startVoiceDoubles();
  const local = new LocalTts({ size: 1 });
  voice.clips.add(ASKS, await synthesizer(local, CALLER_VOICE)(ASKS, 8000), 8000);
  local.close();
  t = await startTestService({ parts: [testRunsPart], env: voice.envFor({ stt: 'openai' }) });
  alice = await t.createUser({ name: 'Alice' });
});
afterAll(async () => {
  await t?.close();
  await voice?.close();
});

describe('audio-mode test runs through the API', () => {
  it('runs on the sandbox line with the configured speech-to-text and reports transcript and reply latency', { timeout: 90_000 }, async () => {
    const created = await alice.post('/api/user/assistant', { ...minimalCreate, initial_message: 'Good evening, how can I help?' });
    const id = created.body.data.id;
    voice.llm.on(ASKS, { text: 'Yes, a table for two at eight. Goodbye!', toolCalls: [{ id: 'e1', name: END_CALL_TOOL, args: {} }] });
    const transcriptions = voice.transcription.received.length;
    const source = `name: books a table by voice\nmode: audio\ncaller:\n  script:\n    - say: "${ASKS}"\nexpect:\n  - transcript_contains: "Customer: ${ASKS}"\n  - status: completed\n  - turn_latency_ms: {p95: 5000}\n`;
    const res = await alice.post(`/api/user/assistants/${id}/test-runs`, { scenarios: [source] });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await t.service.ctx.services.testRuns!.settled(res.body.data.id);
    const run = (await alice.get(`/api/user/test-runs/${res.body.data.id}`)).body.data;
    const [repeat] = run.scenarios[0].repeats;
    expect(repeat.error).toBeNull();
    expect(repeat.transcript).toEqual([
      { role: 'assistant', text: 'Good evening, how can I help?' },
      { role: 'caller', text: ASKS },
      { role: 'assistant', text: 'Yes, a table for two at eight. Goodbye!' },
    ]);
    expect(run.status).toBe('passed');
    // The caller's audio went to the transcription server, which recognised it.
    expect(voice.transcription.received.length).toBeGreaterThan(transcriptions);
    const latency = repeat.assertions.find((a: { kind: string }) => a.kind === 'turn_latency_ms');
    expect(latency).toMatchObject({ outcome: 'passed', expected: { p95: 5000 }, actual: { p95: expect.any(Number), replies: 1 } });
    expect(latency.actual.p95).toBeGreaterThan(0);
    expect(latency.actual.p95).toBe(repeat.turns.find((x: { kind: string }) => x.kind === 'reply').latencyMs);
    // A test run is no call.
    expect(await t.service.ctx.database.db.select().from(calls).where(eq(calls.userId, alice.id))).toEqual([]);
  });
});
