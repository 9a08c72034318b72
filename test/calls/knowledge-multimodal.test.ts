/**
 * A knowledge base in `mode: multimodal` (speech-to-speech; function_call only):
 * the Realtime double (its WebSocket protocol) is offered `search_knowledge_base` in its
 * `session.update`, calls it, and gets the passages found in a base processed on the job queue of
 * a real service as the function's output; the turn records them. The call is a session on a
 * hand-driven audio leg (the caller speaks with keys, `[keypad: 1#]`), as in the built-ins' test.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCallKnowledge, KNOWLEDGE_FUNCTION } from '../../src/calls/knowledge.js';
import { CallSession } from '../../src/calls/session.js';
import { ToolRunner } from '../../src/calls/tool-runner.js';
import { MemoryTurnRecorder, TurnTracker } from '../../src/calls/turns.js';
import { knowledgePart, knowledgeSearch } from '../../src/knowledge/index.js';
import { systemClock } from '../../src/telephony/clock.js';
import { SandboxMedia } from '../../src/telephony/sandbox/media.js';
import type { CarrierLeg, LegEvent } from '../../src/telephony/types.js';
import { voiceFactory } from '../../src/voice/factory.js';
import { startVoiceDoubles, type VoiceDoubles } from '../support/doubles/voice.js';
import { doublesRegistry, MULTIMODAL_ROW } from '../support/multimodal-call.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';
import { sessionSettings } from '../support/voice-session.js';

const log = pino({ level: process.env.VC_DEBUG ? 'debug' : 'silent' });
const KB = '/api/user/knowledgebases';
const PRICES = '# Prices\n\n## Dental hygiene\n\nA professional teeth cleaning costs 89 euros and takes 45 minutes.';

/** An audio line whose carrier events (the caller's keys, the hang-up) the test sends. */
class KeysLeg implements CarrierLeg {
  readonly media = new SandboxMedia(16_000, systemClock);
  private listener: (e: LegEvent) => void = () => undefined;
  onEvent(l: (e: LegEvent) => void) {
    this.listener = l;
  }
  start() {
    this.listener({ type: 'answered', answeredBy: 'human' });
  }
  hangUp() {
    this.media.close();
  }
  emit(e: LegEvent) {
    this.listener(e);
  }
}

let voice: VoiceDoubles;
let t: TestService;
let alice: TestUser;

beforeAll(async () => {
  voice = await startVoiceDoubles();
  t = await startTestService({ parts: [knowledgePart] });
  alice = await t.createUser({ name: 'Alice' });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await voice?.close();
});

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('mode multimodal: the knowledge base', () => {
  it('is offered as a function; its passages are the output the model reads; the turn records them', { timeout: 60_000 }, async () => {
    const kb = (await alice.post(KB, { name: 'Clinic' })).body.data.id as number;
    const doc = (await alice.post(`${KB}/${kb}/documents`, { type: 'text', content: PRICES })).body.data as { id: number; name: string };
    await expect.poll(async () => (await alice.get(`${KB}/${kb}/documents/${doc.id}`)).body.data.status, { timeout: 20_000 }).toBe('ready');
    const { knowledge, promptAddition } = await loadCallKnowledge(t.service.ctx.database.pool, () => knowledgeSearch(t.service.ctx), { knowledgeBaseId: kb, mode: 'function_call' }, log);
    expect(promptAddition).toBeNull();

    voice.realtime.on('[keypad: 1#]', { toolCalls: [{ id: 'kb_1', name: KNOWLEDGE_FUNCTION, args: { query: 'teeth cleaning price' } }] }, { text: 'A cleaning costs 89 euros.' });
    const leg = new KeysLeg();
    const providers = doublesRegistry(voice);
    const recorder = new MemoryTurnRecorder();
    const done = new CallSession(sessionSettings({ systemPrompt: 'You help callers.', initialMessage: '', waitForCustomer: true }), {
      leg,
      llm: providers.llm,
      tools: new ToolRunner({ allowPrivate: true, log }),
      clock: systemClock,
      log,
      voice: voiceFactory(MULTIMODAL_ROW, providers, { clock: systemClock, log })!,
      turns: new TurnTracker(recorder, systemClock),
      knowledge,
    }).run();
    const session = () => voice.realtime.sessions.at(-1)!;
    await until(() => voice.realtime.sessions.length > 0 && session().received.some((e) => e.type === 'session.update'), 'the session');
    const update = session().received.find((e) => e.type === 'session.update')!;
    const offered = update.session.tools.find((f: { name: string }) => f.name === KNOWLEDGE_FUNCTION);
    expect(offered).toMatchObject({ type: 'function', parameters: { required: ['query'] } });

    for (const digit of '1#') leg.emit({ type: 'dtmf', digit });
    const output = () => session().received.find((e) => e.type === 'conversation.item.create' && e.item?.type === 'function_call_output');
    await until(() => output() !== undefined, 'the function output');
    expect(output()!.item.call_id).toBe('kb_1');
    const passages = JSON.parse(output()!.item.output).passages;
    expect(passages[0]).toMatchObject({ document: doc.name, heading: expect.stringContaining('Dental hygiene'), text: expect.stringContaining('costs 89 euros') });
    // The model is asked to answer once it has the output.
    await until(() => session().received.filter((e) => e.type === 'response.create').length >= 2, 'the answer after the output');
    await until(() => recorder.turns.some((turn) => turn.knowledge.length > 0) || leg.media.heard().length > 16_000, 'the answer');
    leg.emit({ type: 'hung-up' });
    const result = await done;
    expect(result.status).toBe('ended_by_customer');
    const used = recorder.turns.flatMap((turn) => turn.knowledge);
    expect(used).toEqual([
      {
        mode: 'function_call',
        query: 'teeth cleaning price',
        passages: [{ documentId: doc.id, documentName: doc.name, chunkId: expect.any(Number), heading: expect.stringContaining('Dental hygiene'), score: expect.any(Number) }],
      },
    ]);
  });
});
