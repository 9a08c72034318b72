/**
 * A knowledge base on an audio leg, end to end through the service: the
 * sandbox at SANDBOX_TIME_SCALE 1 (real audio both ways at real pace), the chat and speech
 * doubles as vendors, the document processed on the job queue. The model searches the base
 * (function_call mode); while the search and the model's next round run, the caller hears a
 * filler phrase — with the assistant's `fillers` off (the default), as the search always says
 * one on audio legs; the model's answer quotes the passage it was given; `/turns` names the
 * passage and the filler.
 *
 * No timing is assumed: the double holds the model's answer after the search until the filler
 * has gone to the speech double (or 20 s passed, then the test fails).
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../src/calls/index.js';
import { DEFAULT_FILLERS } from '../../src/calls/fillers.js';
import { KNOWLEDGE_FUNCTION } from '../../src/calls/knowledge.js';
import { knowledgePart } from '../../src/knowledge/index.js';
import { OpenAiTts } from '../../src/providers/tts/openai/index.js';
import { synthesizer } from '../../src/providers/synthesize.js';
import { CarrierRegistry } from '../../src/telephony/registry.js';
import { SandboxCarrier, SANDBOX_SCRIPTS } from '../../src/telephony/sandbox/carrier.js';
import { sse, textChunks, toolCallChunks, type Received } from '../support/doubles/chat.js';
import { startVoiceDoubles, type VoiceDoubles } from '../support/doubles/voice.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';

const KB = '/api/user/knowledgebases';
const GREETING = 'Hello, this is Anna from the clinic.';
const FILLER = DEFAULT_FILLERS.neutral[0]!;
const PRICES = '# Prices\n\n## Dental hygiene\n\nA professional teeth cleaning costs 89 euros and takes 45 minutes.';

let voice: VoiceDoubles;
let t: TestService;
let alice: TestUser;

beforeAll(async () => {
  voice = await startVoiceDoubles();
  voice.llm.extract({ status: true, summary: 'A price question.' });
  const customerTts = new OpenAiTts({ baseUrl: voice.speech.baseUrl, apiKey: voice.speech.knobs.apiKey!, model: 'tts-1' });
  const env = { ...voice.env };
  // The sandbox says its own words: no speech-to-text needed.
  delete env.DEEPGRAM_API_KEY;
  delete env.STT_BASE_URL;
  t = await startTestService({
    parts: [callEnginePart, knowledgePart],
    carriers: new CarrierRegistry([new SandboxCarrier({ timeScale: 1, voice: synthesizer(customerTts, 'echo') })]),
    env: { ...env, SANDBOX_TIME_SCALE: '1' },
  });
  alice = await t.createUser({ name: 'Alice' });
}, 90_000);

afterAll(async () => {
  await t?.close();
  await voice?.close();
});

const spokenInAlloy = (text: string) => voice.speech.received.some((r) => r.body.voice === 'alloy' && r.body.input === text);

/** The model's answer after the search, once the filler went to the speech server: the price its request holds. */
function answerAfterFiller(req: Received, res: http.ServerResponse): void {
  const started = Date.now();
  const poll = setInterval(() => {
    if (!spokenInAlloy(FILLER) && Date.now() - started < 20_000) return;
    clearInterval(poll);
    const text = (req.body.messages as { content: string | null }[]).map((m) => m.content ?? '').join('\n');
    const price = /teeth cleaning costs (\d+) euros/.exec(text)?.[1];
    sse(textChunks(price ? `A cleaning costs ${price} euros.` : 'I do not know that.'))(req, res);
  }, 50);
}

describe('a knowledge base on a sandbox audio call', () => {
  it('searches in function_call mode with a filler while it runs; the answer quotes the passage; /turns names it', { timeout: 120_000 }, async () => {
    const kb = (await alice.post(KB, { name: 'Clinic' })).body.data.id as number;
    const doc = (await alice.post(`${KB}/${kb}/documents`, { type: 'text', content: PRICES })).body.data as { id: number; name: string };
    await expect.poll(async () => (await alice.get(`${KB}/${kb}/documents/${doc.id}`)).body.data.status, { timeout: 20_000 }).toBe('ready');
    const voiceRow = (await t.admin.post('/api/admin/voices', { name: 'Double voice', mode: 'pipeline', provider: 'openai', provider_voice_id: 'alloy' })).body.data;
    const number = await t.addPhoneNumber(alice.id, '+4930555222');
    const assistant = await insertAssistant(t, alice.id, { phoneNumberId: number.id, voiceId: voiceRow.id, initialMessage: GREETING, knowledgebaseId: kb, maxDuration: 90 });
    expect(assistant.fillers).toBe(false);
    voice.llm.answer(sse(toolCallChunks([{ id: 'kb_1', name: KNOWLEDGE_FUNCTION, args: JSON.stringify({ query: 'teeth cleaning price' }) }])), answerAfterFiller);
    voice.llm.on(SANDBOX_SCRIPTS.converses[1], { text: 'Goodbye!', toolCalls: [{ id: 'end-1', name: 'end-call', args: {} }] });
    const from = voice.llm.received.length;

    const res = await alice.post('/api/user/make_call', { phone_number: '+4915100000000', assistant_id: assistant.id });
    expect(res.status).toBe(200);
    const callId = Number(res.body.call_id);
    await t.service.ctx.services.callEngine!.whenFinished(callId);

    const record = (await alice.get(`/api/user/calls/${callId}`)).body;
    expect(record.status).toBe('completed');
    const lines = record.transcript.split('\n');
    const asked = lines.indexOf(`Customer: ${SANDBOX_SCRIPTS.converses[0]}`);
    expect(asked, record.transcript).toBeGreaterThanOrEqual(0);
    // The filler, then the answer from the passage, in the assistant's voice.
    expect(lines[asked + 1]).toMatch(new RegExp(`^AI: ${FILLER} (${FILLER} )?A cleaning costs 89 euros\\.$`));
    expect(spokenInAlloy('A cleaning costs 89 euros.')).toBe(true);

    const [, afterSearch] = voice.llm.received.slice(from).filter((r) => r.body?.stream === true);
    expect(afterSearch.body.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'kb_1' });
    expect(JSON.parse(afterSearch.body.messages.at(-1).content).passages[0]).toMatchObject({ document: doc.name, text: expect.stringContaining('89 euros') });
    // The filler is not in the model's history.
    expect(JSON.stringify(afterSearch.body.messages)).not.toContain(FILLER);

    const turns = (await alice.get(`/api/user/calls/${callId}/turns`)).body.data as any[];
    const reply = turns.find((turn) => turn.caller_text === SANDBOX_SCRIPTS.converses[0]);
    expect(reply.assistant_text).toBe('A cleaning costs 89 euros.');
    expect(reply.fillers[0]).toMatchObject({ text: FILLER, reason: 'tool' });
    expect(reply.knowledge).toEqual([
      {
        mode: 'function_call',
        query: 'teeth cleaning price',
        passages: [{ document_id: doc.id, document_name: doc.name, chunk_id: expect.any(Number), heading: expect.stringContaining('Dental hygiene'), score: expect.any(Number) }],
      },
    ]);
  });
});
