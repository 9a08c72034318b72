/** GET /api/user/calls/{id}/turns: the stored turns of one's own call, never another user's. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTurns } from '../../../src/db/schema.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { insertCall } from './support.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
});
afterAll(() => t.close());

/** The knowledge base's passages a turn used (what src/calls/turns.ts stores). */
const KNOWLEDGE = {
  mode: 'function_call' as const,
  query: 'appointment slots',
  passages: [{ document_id: 7, document_name: 'Booking', chunk_id: 1234, heading: 'Booking > Slots', score: 0.0325 }],
};

describe('GET /api/user/calls/{id}/turns', () => {
  it('answers every turn in order with its texts, timings, barge-ins, fillers, knowledge passages and tool calls', async () => {
    const call = await insertCall(t, alice.id);
    // Inserted out of order: the answer is ordered by position.
    await t.service.ctx.database.db.insert(callTurns).values([
      {
        callId: call.id,
        position: 1,
        kind: 'reply',
        startedAt: '2026-11-24 10:00:05.250+00',
        callerText: 'I would like to book an appointment',
        assistantText: 'Sure, what',
        interrupted: true,
        finalTranscriptMs: 180,
        llmFirstTokenMs: 420,
        ttsFirstByteMs: 510,
        firstAudioMs: 530,
        bargeIns: [{ at_ms: 1900, heard_text: 'Sure, what' }],
        fillers: [{ at_ms: 800, text: 'One moment.', reason: 'tool' }],
        error: { stage: 'tts', message: 'OpenAI-compatible TTS: speech request timed out' },
        knowledge: [KNOWLEDGE],
        toolCalls: [{ at_ms: 600, name: 'check_slots', arguments: '{"day":"Monday"}', ok: true, answer: '{"status":200,"body":["10:00"]}', duration_ms: 140 }],
      },
      { callId: call.id, position: 0, kind: 'greeting', startedAt: '2026-11-24 10:00:00+00', assistantText: 'Hello!', ttsFirstByteMs: 90, firstAudioMs: 95 },
    ]);
    const res = await alice.get(`/api/user/calls/${call.id}/turns`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        {
          position: 0,
          kind: 'greeting',
          started_at: '2026-11-24T10:00:00.000000Z',
          caller_text: null,
          assistant_text: 'Hello!',
          interrupted: false,
          timings: { final_transcript_ms: null, llm_first_token_ms: null, tts_first_byte_ms: 90, first_audio_ms: 95 },
          barge_ins: [],
          fillers: [],
          error: null,
          knowledge: [],
          tool_calls: [],
        },
        {
          position: 1,
          kind: 'reply',
          started_at: '2026-11-24T10:00:05.250000Z',
          caller_text: 'I would like to book an appointment',
          assistant_text: 'Sure, what',
          interrupted: true,
          timings: { final_transcript_ms: 180, llm_first_token_ms: 420, tts_first_byte_ms: 510, first_audio_ms: 530 },
          barge_ins: [{ at_ms: 1900, heard_text: 'Sure, what' }],
          fillers: [{ at_ms: 800, text: 'One moment.', reason: 'tool' }],
          error: { stage: 'tts', message: 'OpenAI-compatible TTS: speech request timed out' },
          knowledge: [KNOWLEDGE],
          tool_calls: [{ at_ms: 600, name: 'check_slots', arguments: '{"day":"Monday"}', ok: true, answer: '{"status":200,"body":["10:00"]}', duration_ms: 140 }],
        },
      ],
      // A call inserted without one (as calls placed before versions were kept).
      assistant_version: null,
    });
  });

  it('answers an empty list for a call without turns', async () => {
    const call = await insertCall(t, alice.id);
    expect(await alice.get(`/api/user/calls/${call.id}/turns`)).toMatchObject({ status: 200, body: { data: [] } });
  });

  it("answers 404 for another user's call, a missing call and a malformed id", async () => {
    const call = await insertCall(t, alice.id);
    await t.service.ctx.database.db.insert(callTurns).values({ callId: call.id, position: 0, kind: 'greeting', startedAt: '2026-11-24 10:00:00+00', assistantText: 'secret' });
    const NOT_FOUND = { status: 404, body: { message: 'Call not found' } };
    expect(await bob.get(`/api/user/calls/${call.id}/turns`)).toMatchObject(NOT_FOUND);
    expect(await alice.get('/api/user/calls/999999999/turns')).toMatchObject(NOT_FOUND);
    expect(await alice.get('/api/user/calls/abc/turns')).toMatchObject(NOT_FOUND);
    expect(await t.anonymous.get(`/api/user/calls/${call.id}/turns`)).toMatchObject({ status: 401 });
  });

  it('deleting the call deletes its turns', async () => {
    const call = await insertCall(t, alice.id);
    await t.service.ctx.database.db.insert(callTurns).values({ callId: call.id, position: 0, kind: 'greeting', startedAt: '2026-11-24 10:00:00+00' });
    expect((await alice.delete(`/api/user/calls/${call.id}`)).status).toBe(200);
    const { rows } = await t.service.ctx.database.pool.query('SELECT count(*)::int AS n FROM call_turns WHERE call_id = $1', [call.id]);
    expect(rows[0].n).toBe(0);
  });
});
