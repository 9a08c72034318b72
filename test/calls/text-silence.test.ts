/**
 * The silence rule on text legs (issue 26 item 6), through the service with a real LLM: an
 * OpenAI-protocol double that answers every line and never ends the call. A caller who stops
 * typing (a browser call in text mode) or a sandbox customer out of words (time scale 0, a text
 * leg) is re-engaged after `reengagement_interval` with the line an audio leg says and hung up
 * `max_silence_duration` after the first prompt as `ended_by_assistant`, saying the closing line
 * (silence_goodbye_message's default) first — the same CallTimers and
 * the same session hooks as the audio leg's SilenceStage (test/voice/sandbox-silence.test.ts),
 * not left `in-progress` until `max_duration`.
 *
 * The assistants are written straight to the table with intervals below the API's minimum
 * re-engagement interval (7 s) so the calls take seconds: the rule is the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../src/calls/index.js';
import { silenceGoodbyeLine } from '../../src/calls/closing-lines.js';
import { REENGAGEMENT_LINE } from '../../src/calls/session-types.js';
import { SANDBOX_SCRIPTS } from '../../src/telephony/sandbox/carrier.js';
import { ChatDouble } from '../support/doubles/chat.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService } from '../support/service.js';
import { openBrowserPage } from '../support/web-call-page.js';

let t: TestService;
let llm: ChatDouble;
beforeAll(async () => {
  // The model answers every line with "Okay." and never calls the end-call tool.
  llm = await new ChatDouble().start();
  llm.otherwise({ text: 'Okay.' });
  t = await startTestService({ parts: [callEnginePart], listen: true, env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'sk-local' } });
});
afterAll(async () => {
  await t.close();
  await llm.close();
});

/** The closing line a silent caller hears at defaults (English). */
const GOODBYE_LINE = silenceGoodbyeLine(null, 'en');

const silence = { reengagementInterval: 1, maxSilenceDuration: 2, maxDuration: 600 };

describe('a text leg whose caller goes quiet, with a model that never ends the call', () => {
  it('a typed browser call is re-engaged, then hung up per max_silence_duration as ended_by_assistant', { timeout: 30_000 }, async () => {
    const user = await t.createUser();
    const assistant = await insertAssistant(t, user.id, { initialMessage: 'Hello, how can I help?', ...silence });
    const res = await user.post('/api/user/web-calls', { assistant_id: assistant.id });
    expect(res.body.mode).toBe('text');
    const callId = res.body.call_id as number;

    const page = openBrowserPage(t, res.body.media_path);
    await page.next('ready');
    expect(await page.next('assistant')).toEqual({ type: 'assistant', text: 'Hello, how can I help?' });
    page.ws.send(JSON.stringify({ type: 'text', text: 'I would like to book a table.' }));
    expect(await page.next('assistant')).toEqual({ type: 'assistant', text: 'Okay.' });
    const quietFrom = Date.now();
    // Then nothing more from the caller.
    expect(await page.next('assistant', 5_000)).toEqual({ type: 'assistant', text: REENGAGEMENT_LINE });
    const reengagedAfter = Date.now() - quietFrom;
    // Before the hang-up, the closing line (silence_goodbye_message's default, in English).
    let last = await page.next('assistant', 5_000);
    while (last.text === REENGAGEMENT_LINE) last = await page.next('assistant', 5_000);
    expect(last).toEqual({ type: 'assistant', text: GOODBYE_LINE });
    await page.next('ended', 5_000);
    const endedAfter = Date.now() - quietFrom;
    await page.closed;
    await t.service.ctx.services.callEngine!.whenFinished(callId);

    // 1 s to the first prompt, 2 s more to the hang-up (the prompts do not restart the clock).
    expect(reengagedAfter).toBeGreaterThanOrEqual(950);
    expect(reengagedAfter).toBeLessThan(2_000);
    expect(endedAfter).toBeGreaterThanOrEqual(2_950);
    expect(endedAfter).toBeLessThan(4_500);
    const record = (await user.get(`/api/user/calls/${callId}`)).body;
    expect(record).toMatchObject({ type: 'web', status: 'ended_by_assistant' });
    const lines = (record.transcript as string).split('\n');
    expect(lines.slice(0, 4)).toEqual(['AI: Hello, how can I help?', 'Customer: I would like to book a table.', 'AI: Okay.', `AI: ${REENGAGEMENT_LINE}`]);
    // A prompt every interval until the limit: two or three (timer order at the 2 s boundary), then the closing line.
    expect(lines.at(-1)).toBe(`AI: ${GOODBYE_LINE}`);
    expect(lines.slice(3, -1).every((l) => l === `AI: ${REENGAGEMENT_LINE}`)).toBe(true);
    expect(lines.length - 4).toBeGreaterThanOrEqual(2);
  });

  it('a sandbox customer out of words (time scale 0) is re-engaged, then hung up per max_silence_duration as ended_by_assistant', { timeout: 30_000 }, async () => {
    const user = await t.createUser();
    const assistant = await insertAssistant(t, user.id, silence);
    const started = Date.now();
    const res = await user.post('/api/user/make_call', { phone_number: '+4915123456700', assistant_id: String(assistant.id), variables: { customer_name: 'Ada' } });
    expect(res.status).toBe(200);
    await t.service.ctx.services.callEngine!.whenFinished(res.body.call_id);
    const tookMs = Date.now() - started;

    const record = (await user.get(`/api/user/calls/${res.body.call_id}`)).body;
    expect(record).toMatchObject({ status: 'ended_by_assistant' });
    const lines = (record.transcript as string).split('\n');
    const lastWords = lines.indexOf(`Customer: ${SANDBOX_SCRIPTS.converses.at(-1)}`);
    expect(lines.filter((l) => l.startsWith('Customer:'))).toEqual(SANDBOX_SCRIPTS.converses.map((l) => `Customer: ${l}`));
    expect(lines[lastWords + 1]).toBe('AI: Okay.');
    // The prompts, then the closing line before the hang-up.
    expect(lines.at(-1)).toBe(`AI: ${GOODBYE_LINE}`);
    expect(lines.slice(lastWords + 2, -1).every((l) => l === `AI: ${REENGAGEMENT_LINE}`)).toBe(true);
    expect(lines.length - lastWords - 3).toBeGreaterThanOrEqual(2);
    // The conversation is instant at time scale 0: the call lasts the 1 s + 2 s of silence.
    expect(tookMs).toBeGreaterThanOrEqual(3_000);
    expect(tookMs).toBeLessThan(6_000);
  });
});
