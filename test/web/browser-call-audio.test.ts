/**
 * A spoken browser call in headless Chromium (issue 17): the fake microphone plays a WAV made
 * of the caller fixtures (a question, then — while the assistant answers — an interruption)
 * into the dashboard's "Talk to this assistant"; the service runs the real voice core with the
 * vendor doubles (Deepgram live recognising the clips, the chat double as LLM, the OpenAI speech
 * double speaking). Checked: the caller's sentence reaches the live transcript and the call record, the
 * assistant's reply is played in the page, and speaking over it interrupts it (the page gets
 * `clear`, the transcript keeps only what was heard).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concat, silence } from '../../src/audio/pcm.js';
import { writeWav } from '../../src/audio/wav.js';
import { callEnginePart } from '../../src/calls/index.js';
import { fixture, fixtureAudio } from '../support/audio-fixtures.js';
import { checkPage, launchBrowser, screenshot, type Browser } from '../support/browser.js';
import { startVoiceDoubles, type VoiceDoubles } from '../support/doubles/voice.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';

const RATE = 16_000;
const QUESTION = fixture('book-appointment');
const INTERRUPTION = fixture('long-interruption');
/** Long enough that the interruption lands while it plays. */
const ANSWER =
  'Of course. I can offer you ten in the morning, half past eleven, or two in the afternoon tomorrow, and on Friday I still have four free slots in the late afternoon if that suits you better.';

let voice: VoiceDoubles;
let t: TestService;
let browser: Browser;
let page: Page;
let user: TestUser;
let dir: string;

beforeAll(async () => {
  voice = await startVoiceDoubles();
  voice.clips.add(QUESTION.text, fixtureAudio(QUESTION.name), RATE);
  voice.clips.add(INTERRUPTION.text, fixtureAudio(INTERRUPTION.name), RATE);
  voice.llm.on(QUESTION.text, { text: ANSWER });
  voice.llm.otherwise({ text: 'Alright, take your time.' });
  t = await startTestService({ listen: true, parts: [callEnginePart], env: voice.envFor({ stt: 'deepgram' }) });
  user = await t.createUser({ name: 'Mia Microphone' });
  // What the caller says into the microphone: the question, a pause for the reply to start, then
  // an interruption over it, then quiet.
  dir = await mkdtemp(path.join(tmpdir(), 'sb-mic-'));
  const mic = path.join(dir, 'caller.wav');
  await writeFile(
    mic,
    writeWav(RATE, concat([silence(800, RATE), fixtureAudio(QUESTION.name), silence(4500, RATE), fixtureAudio(INTERRUPTION.name), silence(4000, RATE)])),
  );
  browser = await launchBrowser([
    '--use-fake-device-for-media-stream',
    '--use-fake-ui-for-media-stream',
    `--use-file-for-fake-audio-capture=${mic}%noloop`,
    '--autoplay-policy=no-user-gesture-required',
  ]);
  page = browser.page;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await voice?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a spoken browser call', () => {
  it('hears the caller, plays the reply in the page, and stops it when the caller speaks over it', async () => {
    // The assistant speaks through the OpenAI-compatible speech double (fast, in-process audio).
    const voiceRow = (await t.admin.post('/api/admin/voices', { name: 'Double voice', mode: 'pipeline', provider: 'openai', provider_voice_id: 'alloy' })).body.data;
    const assistant = await insertAssistant(t, user.id, { name: 'Receptionist', waitForCustomer: true, initialMessage: '', voiceId: voiceRow.id });
    await page.goto(`${t.service.url}/sign-in`);
    await page.getByLabel('API token', { exact: true }).fill(user.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/assistants');
    await page.goto(`${t.service.url}/assistants/${assistant.id}#talk`);
    await expect.poll(() => page.getByTestId('talk-mode').textContent()).toContain('Speak with the assistant');
    const frames: string[] = [];
    page.on('websocket', (ws) => {
      ws.on('framereceived', (f) => { if (typeof f.payload === 'string') frames.push(`${Date.now() % 100000} in ${f.payload}`); });
      ws.on('framesent', (f) => { if (typeof f.payload === 'string') frames.push(`${Date.now() % 100000} out ${f.payload}`); });
    });
    await page.getByRole('button', { name: 'Start a call' }).click();
    const transcript = page.getByTestId('live-transcript');
    const talk = page.locator('#talk');

    // The caller's sentence, recognised from the microphone's audio, in the live transcript.
    await expect.poll(() => transcript.textContent(), { timeout: 20_000 }).toContain(QUESTION.text).catch(async (err) => {
      await screenshot(page, '24-talk-spoken-failed');
      throw err;
    });
    // The reply is played in the page, then cut off by the caller.
    await expect.poll(async () => Number(await talk.getAttribute('data-audio-ms')), { timeout: 20_000 }).toBeGreaterThan(500);
    await expect.poll(() => transcript.textContent(), { timeout: 20_000 }).toContain('You interrupted the assistant.').catch((err) => {
      console.log(frames.join('\n'));
      throw err;
    });
    await screenshot(page, '24-talk-spoken');
    const { violations } = await checkPage(page, '24-talk-spoken');
    expect(violations).toEqual([]);
    await page.getByRole('button', { name: 'Hang up' }).click();

    const calls = (await user.get('/api/user/calls?type=web')).body.data;
    const callId = calls[0].id as number;
    await t.service.ctx.services.callEngine!.whenFinished(callId);
    const record = (await user.get(`/api/user/calls/${callId}`)).body;
    expect(record).toMatchObject({ type: 'web', assistant_name: 'Receptionist' });
    expect(record.transcript).toContain(`Customer: ${QUESTION.text}`);
    // Only what the caller heard of the reply before interrupting: a beginning of it, not all of it.
    const said = /AI: (.*)/.exec(record.transcript)?.[1] ?? '';
    expect(ANSWER.startsWith(said.replace(/…$/, '').trim().slice(0, 10))).toBe(true);
    expect(said.length).toBeLessThan(ANSWER.length);
    const turns = (await user.get(`/api/user/calls/${callId}/turns`)).body.data;
    expect(turns.some((turn: { interrupted: boolean }) => turn.interrupted)).toBe(true);
  }, 120_000);
});
