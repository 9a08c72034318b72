/**
 * Turns: the tracker's stamps as a sequence of events (virtual clock), and an engine call's
 * turns as GET /api/user/calls/{id}/turns serves them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../src/calls/index.js';
import { END_CALL_TOOL } from '../../src/calls/session.js';
import { MemoryTurnRecorder, TurnTracker } from '../../src/calls/turns.js';
import { FakeClock } from '../../src/telephony/clock.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService } from '../support/service.js';
import { ChatDouble, extraction, sse, textChunks, toolCallChunks } from '../support/doubles/chat.js';

describe('TurnTracker', () => {
  it('measures each stage from the turn start, keeps the first stamp, and records on finish', async () => {
    const clock = new FakeClock();
    const recorder = new MemoryTurnRecorder();
    const turns = new TurnTracker(recorder, clock, () => 1_700_000_000_000 + clock.now());
    await clock.advance(1_000);
    // The caller stopped speaking 200 ms ago; the transcript arrives now.
    turns.begin('reply', 'book me in', clock.now() - 200);
    turns.stage('finalTranscript');
    await clock.advance(300);
    turns.stage('llmFirstToken');
    turns.filler('One moment.', 'slow-llm');
    const lookup = { mode: 'function_call' as const, query: 'opening hours', passages: [{ documentId: 3, documentName: 'Hours', chunkId: 41, heading: 'Hours', score: 0.0328 }] };
    turns.knowledge(lookup);
    turns.toolCall({ at: clock.now() - 40, name: 'check_slots', arguments: '{"day":"tomorrow"}', ok: true, answer: `{"status":200,"body":"${'x'.repeat(5000)}"}`, durationMs: 40 });
    await clock.advance(50);
    turns.stage('llmFirstToken');
    turns.stage('ttsFirstByte');
    turns.assistantSaid('Sure, what time');
    turns.assistantSaid('suits you?');
    await clock.advance(20);
    turns.stage('firstAudio');
    await clock.advance(600);
    turns.bargeIn('Sure, what');
    turns.finish({ interrupted: true, heardText: 'Sure, what' });
    expect(recorder.turns).toEqual([
      {
        position: 0,
        kind: 'reply',
        startedAt: 1_700_000_000_800,
        callerText: 'book me in',
        assistantText: 'Sure, what',
        interrupted: true,
        timings: { finalTranscript: 200, llmFirstToken: 500, ttsFirstByte: 550, firstAudio: 570 },
        bargeIns: [{ atMs: 1170, heardText: 'Sure, what' }],
        fillers: [{ atMs: 500, text: 'One moment.', reason: 'slow-llm' }],
        error: null,
        knowledge: [lookup],
        // The answer is kept up to 4,000 characters.
        toolCalls: [{ atMs: 460, name: 'check_slots', arguments: '{"day":"tomorrow"}', ok: true, answer: `{"status":200,"body":"${'x'.repeat(4000 - 22)}…`, durationMs: 40 }],
      },
    ]);
    expect(turns.active).toBe(false);
  });

  it("keeps a turn's first provider failure; one seen between turns goes on the next turn", () => {
    const clock = new FakeClock();
    const recorder = new MemoryTurnRecorder();
    const turns = new TurnTracker(recorder, clock);
    turns.begin('greeting', null);
    turns.error({ stage: 'tts', message: 'speech request failed with status 500:\n  server_error' });
    turns.error({ stage: 'stt', message: 'later, not kept' });
    turns.finish();
    turns.error({ stage: 'stt', message: 'Deepgram closed the stream: 1011' });
    turns.error({ stage: 'stt', message: 'a second one between turns, not kept' });
    turns.begin('reply', 'hello');
    turns.finish();
    turns.begin('reply', 'again');
    turns.finish();
    expect(recorder.turns.map((r) => r.error)).toEqual([
      { stage: 'tts', message: 'speech request failed with status 500: server_error' },
      { stage: 'stt', message: 'Deepgram closed the stream: 1011' },
      null,
    ]);
  });

  it('a new turn closes the open one; finishing a replaced turn by position does nothing', () => {
    const clock = new FakeClock();
    const recorder = new MemoryTurnRecorder();
    const turns = new TurnTracker(recorder, clock);
    const greeting = turns.begin('greeting', null);
    turns.assistantSaid('Hello!');
    const reply = turns.begin('reply', 'hi');
    turns.finish({ position: greeting });
    expect(turns.current).toBe(reply);
    turns.finish({ position: reply });
    expect(recorder.turns.map((r) => [r.position, r.kind, r.assistantText, r.interrupted])).toEqual([
      [0, 'greeting', 'Hello!', false],
      [1, 'reply', '', false],
    ]);
  });
});

describe('an engine call records its turns', () => {
  let t: TestService;
  let llm: ChatDouble;
  beforeAll(async () => {
    llm = await new ChatDouble().start();
    t = await startTestService({ parts: [callEnginePart], env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'sk-local' } });
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  it('greeting and replies with caller and assistant text and ordered stage timings', async () => {
    const user = await t.createUser();
    const assistant = await insertAssistant(t, user.id, { initialMessage: 'Hello, this is Switchboard.' });
    llm.answer(
      // A role-only chunk first, so the first words come one chunk gap after the request (as OpenAI streams them).
      sse([{ choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] }, ...textChunks('We have ', '10:00 free.')], { gapMs: 30 }),
      sse([...textChunks('Booked. Goodbye!'), ...toolCallChunks([{ id: 'c2', name: END_CALL_TOOL, args: '{}' }])]),
      extraction({}),
    );
    const res = await user.post('/api/user/make_call', { phone_number: '+4915123456700', assistant_id: assistant.id });
    await t.service.ctx.services.callEngine!.whenFinished(res.body.call_id);
    const turns = await user.get(`/api/user/calls/${res.body.call_id}/turns`);
    expect(turns.status).toBe(200);
    const data = turns.body.data;
    expect(data.map((d: any) => [d.position, d.kind, d.caller_text, d.assistant_text, d.interrupted])).toEqual([
      [0, 'greeting', null, 'Hello, this is Switchboard.', false],
      [1, 'reply', 'Hello, yes, speaking.', 'We have 10:00 free.', false],
      [2, 'reply', 'Yes, that works for me.', 'Booked. Goodbye!', false],
    ]);
    for (const turn of data.slice(1)) {
      const { final_transcript_ms: transcript, llm_first_token_ms: token, tts_first_byte_ms: tts, first_audio_ms: audio } = turn.timings;
      expect(transcript).toBe(0); // a text leg delivers the words at the end of speech
      expect(token).toBeGreaterThanOrEqual(transcript);
      expect(tts).toBeGreaterThanOrEqual(token);
      expect(audio).toBeGreaterThanOrEqual(tts);
    }
    // The streamed reply's first token came at least one chunk gap after the request.
    expect(data[1].timings.llm_first_token_ms).toBeGreaterThanOrEqual(25);
    expect(Date.parse(data[1].started_at)).toBeGreaterThanOrEqual(Date.parse(data[0].started_at));
  });
});
