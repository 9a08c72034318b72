/**
 * The harness of `npm run bench turn-taking` (bench/turn-taking/) on three utterances, so it
 * cannot rot: a complete sentence, and a question answered at length that the caller interrupts ("No, that's wrong.", long enough that
 * today's barge-in rule stops the reply too).
 * The whole path runs as in the bench (corpus made with the local voice, the Twilio double at
 * real pace, the vendor doubles, an assistant made through the API at defaults); the test checks
 * that the harness measures (numbers come out, the rows are filled), not the targets.
 *
 * @one-database: real-time audio through the bench harness, whatever the database (test/support/database-tests.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCorpus, script } from '../../bench/turn-taking/corpus.js';
import { breakdown, headline } from '../../bench/turn-taking/figures.js';
import { converse, httpApi, teachDoubles, type Conversations } from '../../bench/turn-taking/harness.js';
import { fullProcess } from '../../src/compose.js';
import type { TwilioDouble } from '../support/doubles/twilio.js';
import { startVoiceDoubles, type VoiceDoubles } from '../support/doubles/voice.js';
import { ADMIN_TOKEN, startTestService, type TestService } from '../support/service.js';
import { startRoutedTwilioDouble, twilioEnv } from '../support/twilio-service.js';

const utterances = script().filter((x) => x.id === 'en-complete-01' || x.id === 'en-interruption-03');

let voice: VoiceDoubles;
let double: TwilioDouble;
let t: TestService;
let local = '';

beforeAll(async () => {
  voice = await startVoiceDoubles();
  double = await startRoutedTwilioDouble(() => local);
  t = await startTestService({ listen: true, parts: fullProcess, env: { ...voice.envFor({ stt: 'deepgram' }), ...twilioEnv(double) } });
  local = t.service.url!;
}, 90_000);

afterAll(async () => {
  await t?.close();
  await double?.close();
  await voice?.close();
});

describe('bench turn-taking harness', () => {
  it('holds the corpus calls through the service and measures latency, the interruption, the transcript and the LLM requests', async () => {
    expect(utterances.map((x) => x.category)).toEqual(['complete', 'interruption']);
    const corpus = await loadCorpus(utterances);
    await teachDoubles(voice, corpus);
    const got: Conversations = await converse({ api: httpApi(t.service.url!, ADMIN_TOKEN), double, voice }, corpus, utterances, { concurrency: 2 });
    const seen = JSON.stringify({ observations: got.observations, transcripts: got.results.map((r) => [r.status, r.transcript]) });

    expect(got.results.map((r) => r.status), seen).toEqual(['ended_by_customer', 'ended_by_customer']);
    const byId = new Map(got.observations.map((o) => [o.id, o]));
    // (a) for the complete sentence and the trigger question: a latency in ms.
    for (const id of ['en-complete-01', 'en-interruption-03:trigger']) {
      expect(typeof byId.get(id)?.latencyMs, `${id} ${seen}`).toBe('number');
      expect(byId.get(id)!.latencyMs!).toBeGreaterThan(0);
    }
    // (c): the interruption came over the long reply and playback stopped at a measured time.
    const interruption = byId.get('en-interruption-03')!;
    expect(interruption.overReply, seen).toBe(true);
    expect(typeof interruption.stopMs, seen).toBe('number');
    // (e): every script word was looked for in the record's transcript.
    expect(got.observations.reduce((s, o) => s + (o.words ?? 0), 0)).toBe(
      ['I would like to book an appointment for Tuesday.', 'How does the cancellation policy work?', "No, that's wrong."].join(' ').split(' ').length,
    );
    // (f): the LLM double saw the turns' requests; the reply turns were read from the record.
    expect(got.llm.requests).toBeGreaterThanOrEqual(2);
    expect(got.llm.turns).toBeGreaterThanOrEqual(2);

    const rows = headline(got.observations, got.llm, { conversations: 'test' });
    expect(rows.map((r) => String(r.metric).slice(0, 3))).toEqual(['(a)', '(b)', '(c)', '(d)', '(d)', '(e)', '(f)']);
    for (const row of rows) expect(Object.keys(row)).toEqual(['metric', 'measured', 'target', 'pass/fail', 'measured under']);
    for (const label of ['(a)', '(c)', '(e)', '(f)']) expect(String(rows.find((r) => String(r.metric).startsWith(label))!.measured)).toMatch(/\d/);
    expect(breakdown(got.observations, { conversations: 'test' }).length).toBeGreaterThanOrEqual(3);
  }, 90_000);
});
