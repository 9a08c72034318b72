/**
 * `record` on a browser call in audio mode (the web carrier: PCM16 at 16 kHz both ways over the
 * media WebSocket), with the speech doubles (Deepgram live recognises the caller's fixture, the
 * OpenAI speech double speaks, the chat double answers): the call's dual-channel WAV is kept in
 * the recording store, `recording_url` downloads it, it is as long as the call, the caller's
 * channel holds what the page sent and the assistant's what it played.
 * @one-database: real-pace audio through the service; the database only stores what the call did,
 * which the API tests check on both databases.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { readWav } from '../../src/audio/wav.js';
import { callEnginePart } from '../../src/calls/index.js';
import { fixture } from '../support/audio-fixtures.js';
import { EnergySegmenter } from '../support/doubles/clips.js';
import { startVoiceDoubles, type VoiceDoubles } from '../support/doubles/voice.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService } from '../support/service.js';

const RATE = 16_000;
const GREETING = 'Hello, this is Anna from the clinic.';
const QUESTION = fixture('book-appointment');
const OFFER = 'Can you come tomorrow at ten?';

let voice: VoiceDoubles;
let t: TestService;
let dir: string;

beforeAll(async () => {
  voice = await startVoiceDoubles();
  voice.llm.on(QUESTION.text, { text: OFFER });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-web-recordings-'));
  t = await startTestService({
    parts: [callEnginePart],
    listen: true,
    env: { ...voice.envFor({ stt: 'deepgram' }), SECRET_KEY: 'w'.repeat(40), RECORDINGS_DIR: dir },
  });
}, 90_000);

afterAll(async () => {
  await t?.close();
  await voice?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function sentencesIn(samples: Int16Array): string[] {
  const segmenter = new EnergySegmenter(RATE);
  const utterances = segmenter.push(samples).flatMap((e) => (e.type === 'end' ? [e.utterance] : []));
  const last = segmenter.flush();
  if (last) utterances.push(last);
  return utterances.map((u) => voice.clips.matchAudio(u.samples, RATE)?.text ?? '?');
}

/** Resolves once `check` holds (polled), or rejects after `timeoutMs`. */
function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      if (check()) {
        clearInterval(poll);
        resolve();
      } else if (Date.now() - started > timeoutMs) {
        clearInterval(poll);
        reject(new Error(`not within ${timeoutMs} ms: ${what}`));
      }
    }, 50);
  });
}

describe('record on a browser call in audio mode', () => {
  it('keeps the call’s two channels as a WAV linked from the record', { timeout: 120_000 }, async () => {
    const user = await t.createUser();
    const voiceRow = (await t.admin.post('/api/admin/voices', { name: 'Web double voice', mode: 'pipeline', provider: 'openai', provider_voice_id: 'alloy' })).body.data;
    const assistant = await insertAssistant(t, user.id, { voiceId: voiceRow.id, initialMessage: GREETING, record: true, maxDuration: 90 });
    const res = await user.post('/api/user/web-calls', { assistant_id: assistant.id });
    expect(res.status).toBe(200);
    expect(res.body.mode).toBe('audio');
    const callId = Number(res.body.call_id);

    const ws = new WebSocket(`${t.service.url!.replace(/^http/, 'ws')}${res.body.media_path}`);
    // The page plays what it receives at real pace and echoes each mark once the audio before it has played.
    let received = 0;
    let playheadEnd = 0;
    const captions: string[] = [];
    ws.on('message', (data, binary) => {
      if (binary) {
        received += (data as Buffer).length;
        playheadEnd = Math.max(Date.now(), playheadEnd) + ((data as Buffer).length / 2 / RATE) * 1000;
        return;
      }
      const m = JSON.parse(String(data)) as { type: string; role?: string; text?: string; name?: string };
      if (m.type === 'transcript' && m.role === 'assistant' && m.text) captions.push(m.text);
      else if (m.type === 'mark') setTimeout(() => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify({ type: 'mark', name: m.name })), Math.max(0, playheadEnd - Date.now()));
      else if (m.type === 'clear') playheadEnd = Date.now();
    });
    const closed = new Promise<void>((resolve) => ws.on('close', () => resolve()));
    await new Promise<void>((resolve, reject) => (ws.once('open', () => resolve()), ws.once('error', reject)));
    // The greeting arrives and is captioned once played.
    await until(() => captions.includes(GREETING), 'the greeting');
    // The caller speaks (real speech), then the line carries silence, in 20 ms frames at real pace.
    const speech = voice.fixture(QUESTION.name, RATE);
    const audio = new Int16Array(speech.length + 2 * RATE);
    audio.set(speech);
    const frame = RATE / 50;
    for (let i = 0; i < audio.length; i += frame) {
      const chunk = audio.slice(i, i + frame);
      ws.send(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await until(() => captions.includes(OFFER), 'the answer');
    expect(received).toBeGreaterThan(0);
    ws.send(JSON.stringify({ type: 'hangup' }));
    await closed;
    await t.service.ctx.services.callEngine!.whenFinished(callId);

    const record = (await user.get(`/api/user/calls/${callId}`)).body;
    expect(record.type).toBe('web');
    expect(record.recording_url).toMatch(new RegExp(`/recordings/${callId}\\.wav\\?expires=\\d+&signature=[\\w-]+$`));
    const url = new URL(record.recording_url);
    const file = await t.service.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
    expect(file.statusCode).toBe(200);
    const wav = readWav(new Uint8Array(file.rawPayload));
    expect(wav.sampleRate).toBe(RATE);
    expect(wav.channels).toHaveLength(2);
    expect(Math.abs(wav.channels[0].length / RATE - record.duration)).toBeLessThanOrEqual(1);
    expect(sentencesIn(wav.channels[0])).toContain(QUESTION.text);
    expect(sentencesIn(wav.channels[1])).toEqual(expect.arrayContaining([GREETING, OFFER]));
    expect(fs.existsSync(path.join(dir, `${callId}.wav`))).toBe(true);
  });
});
