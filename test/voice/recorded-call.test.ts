/**
 * `record` on an audio call of ours (the sandbox at SANDBOX_TIME_SCALE 1, real audio both
 * ways): the voice core's two channels — left the caller, right the assistant as heard — are
 * kept as a stereo WAV in the recording store (RECORDINGS_DIR, where Twilio recordings go too)
 * at the call's end; `recording_url` is a signed, expiring link that downloads it; the WAV is as
 * long as the call; each channel holds its party's sentences (matched back to the spoken
 * sentences); deleting the call deletes it. Vendors: the chat and speech doubles.
 * @one-database: real-pace audio through the service; the database only stores what the call did,
 * which the API tests check on both databases.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWav } from '../../src/audio/wav.js';
import { callEnginePart } from '../../src/calls/index.js';
import { OpenAiTts } from '../../src/providers/tts/openai/index.js';
import { synthesizer } from '../../src/providers/synthesize.js';
import { CarrierRegistry } from '../../src/telephony/registry.js';
import { SandboxCarrier, SANDBOX_SCRIPTS } from '../../src/telephony/sandbox/carrier.js';
import { EnergySegmenter } from '../support/doubles/clips.js';
import { startVoiceDoubles, type VoiceDoubles } from '../support/doubles/voice.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';

const PUBLIC = 'https://sb.example';
const GREETING = 'Hello, this is Anna from the clinic.';
const OFFER = 'Can you come tomorrow at ten?';
const GOODBYE = 'See you tomorrow at ten, goodbye!';

let voice: VoiceDoubles;
let t: TestService;
let alice: TestUser;
let bob: TestUser;
let dir: string;

beforeAll(async () => {
  voice = await startVoiceDoubles();
  voice.llm.on(SANDBOX_SCRIPTS.converses[0], { text: OFFER });
  voice.llm.on(SANDBOX_SCRIPTS.converses[1], { text: GOODBYE, toolCalls: [{ id: 'end-1', name: 'end-call', args: {} }] });
  // The person who hangs up (…95) says "Hello?" over the greeting: no longer dropped, it is
  // answered once the greeting is over (caller-words.ts), and so is their last line.
  voice.llm.on(SANDBOX_SCRIPTS.hello, { text: 'Yes, hello, I can hear you.' });
  voice.llm.on(SANDBOX_SCRIPTS.hangsUp, { text: 'No problem, goodbye.' });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-audio-recordings-'));
  // The sandbox's customer speaks through the speech double (voice echo), so both parties' audio is recognisable.
  const customerTts = new OpenAiTts({ baseUrl: voice.speech.baseUrl, apiKey: voice.speech.knobs.apiKey!, model: 'tts-1' });
  const env = { ...voice.env };
  // The sandbox says its own words: no speech-to-text needed.
  delete env.DEEPGRAM_API_KEY;
  delete env.STT_BASE_URL;
  t = await startTestService({
    parts: [callEnginePart],
    carriers: new CarrierRegistry([new SandboxCarrier({ timeScale: 1, voice: synthesizer(customerTts, 'echo') })]),
    env: { ...env, SANDBOX_TIME_SCALE: '1', PUBLIC_BASE_URL: PUBLIC, SECRET_KEY: 's'.repeat(40), RECORDINGS_DIR: dir },
  });
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
}, 90_000);

afterAll(async () => {
  await t?.close();
  await voice?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The sentences in one channel, in order, matched back against what the speech double said. */
function sentencesIn(samples: Int16Array): string[] {
  const segmenter = new EnergySegmenter(8000);
  const utterances = segmenter.push(samples).flatMap((e) => (e.type === 'end' ? [e.utterance] : []));
  const last = segmenter.flush();
  if (last) utterances.push(last);
  return utterances.map((u) => voice.clips.matchAudio(u.samples, 8000)?.text ?? '?');
}

async function download(link: string): Promise<{ status: number; body: Buffer }> {
  const url = new URL(link);
  const res = await t.service.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
  return { status: res.statusCode, body: res.rawPayload };
}

describe('record on a sandbox audio call', () => {
  it('keeps a stereo WAV as long as the call with both voices, linked by a signed expiring URL; deleting the call deletes it', { timeout: 120_000 }, async () => {
    const voiceRow = (await t.admin.post('/api/admin/voices', { name: 'Double voice', mode: 'pipeline', provider: 'openai', provider_voice_id: 'alloy' })).body.data;
    const number = await t.addPhoneNumber(alice.id, '+4930555111');
    const assistant = await insertAssistant(t, alice.id, { phoneNumberId: number.id, voiceId: voiceRow.id, initialMessage: GREETING, record: true, maxDuration: 90 });
    const res = await alice.post('/api/user/make_call', { phone_number: '+4915100000000', assistant_id: assistant.id });
    expect(res.status).toBe(200);
    const callId = Number(res.body.call_id);
    await t.service.ctx.services.callEngine!.whenFinished(callId);
    const record = (await alice.get(`/api/user/calls/${callId}`)).body;
    expect(record.status).toBe('completed');
    expect(record.transcript).toContain(`AI: ${GOODBYE}`);
    expect(record.recording_url).toMatch(new RegExp(`^${PUBLIC}/recordings/${callId}\\.wav\\?expires=\\d+&signature=[\\w-]+$`));
    const { rows } = await t.service.ctx.database.pool.query('SELECT recording_url FROM calls WHERE id = $1', [callId]);
    expect(rows[0].recording_url).toBe(`/recordings/${callId}.wav`);

    const file = await download(record.recording_url);
    expect(file.status).toBe(200);
    const wav = readWav(new Uint8Array(file.body));
    expect(wav.sampleRate).toBe(8000);
    expect(wav.channels).toHaveLength(2);
    const seconds = wav.channels[0].length / 8000;
    expect(record.duration).toBeGreaterThan(3);
    expect(Math.abs(seconds - record.duration)).toBeLessThanOrEqual(1);
    // Left: the caller's sentences; right: the assistant's, each where it was said.
    const caller = sentencesIn(wav.channels[0]);
    const assistantSaid = sentencesIn(wav.channels[1]);
    expect(caller).toEqual(expect.arrayContaining([SANDBOX_SCRIPTS.converses[0], SANDBOX_SCRIPTS.converses[1]]));
    expect(assistantSaid).toEqual(expect.arrayContaining([GREETING, OFFER, GOODBYE]));
    expect(assistantSaid.indexOf(GREETING)).toBeLessThan(assistantSaid.indexOf(GOODBYE));

    // An altered link is refused; the call is Alice's alone.
    const altered = new URL(record.recording_url);
    altered.searchParams.set('signature', `${altered.searchParams.get('signature')!.slice(0, -2)}xx`);
    expect((await download(altered.toString())).status).toBe(403);
    expect((await bob.get(`/api/user/calls/${callId}`)).status).toBe(404);
    expect((await bob.delete(`/api/user/calls/${callId}`)).status).toBe(404);
    expect(fs.existsSync(path.join(dir, `${callId}.wav`))).toBe(true);
    // Deleting the call deletes its recording.
    expect((await alice.delete(`/api/user/calls/${callId}`)).status).toBe(200);
    expect(fs.existsSync(path.join(dir, `${callId}.wav`))).toBe(false);
    expect((await download(record.recording_url)).status).toBe(404);
  });

  it('records nothing when the assistant does not ask for it', { timeout: 120_000 }, async () => {
    const number = await t.addPhoneNumber(bob.id, '+4930555112');
    const assistant = await insertAssistant(t, bob.id, { phoneNumberId: number.id, initialMessage: GREETING, record: false, maxDuration: 20 });
    const res = await bob.post('/api/user/make_call', { phone_number: '+4915100000095', assistant_id: assistant.id });
    await t.service.ctx.services.callEngine!.whenFinished(Number(res.body.call_id));
    const record = (await bob.get(`/api/user/calls/${res.body.call_id}`)).body;
    expect(record.status, record.transcript).toBe('ended_by_customer');
    expect(record.recording_url).toBeNull();
    expect(fs.existsSync(path.join(dir, `${res.body.call_id}.wav`))).toBe(false);
  });
});
