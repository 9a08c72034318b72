/**
 * The offline default speaks (issue 19 "Must show"): the real entry point, as `npm start` runs
 * it on a fresh machine — embedded PostgreSQL, no provider keys, no carrier — places a sandbox
 * call with a seeded voice and `record_call` on; the recording holds real speech on both
 * channels, and the assistant's channel is the local voice (eSpeak NG) saying the greeting:
 * matched back against the same sentence synthesised here by the local voice.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { readWav } from '../src/audio/wav.js';
import { LocalTts } from '../src/providers/tts/local/index.js';
import { synthesizer } from '../src/providers/synthesize.js';
import { ClipBook, EnergySegmenter } from './support/doubles/clips.js';
import { startMain, stopMain, type MainProcess } from './support/main-process.js';
import { waitFor } from './support/wait.js';

const GREETING = 'Hello, this is the offline voice of Switchboard.';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-offline-voice-'));
fs.chmodSync(dataDir, 0o755);
let main: MainProcess | undefined;
const local = new LocalTts();

afterAll(async () => {
  if (main) await stopMain(main.child);
  local.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function utterances(samples: Int16Array): Int16Array[] {
  const segmenter = new EnergySegmenter(8000);
  const out = segmenter.push(samples).flatMap((e) => (e.type === 'end' ? [e.utterance.samples] : []));
  const last = segmenter.flush();
  if (last) out.push(last.samples);
  return out;
}

// One project is enough: the process runs on its own embedded database either way.
describe.runIf(inject('pgPrefix') === 'sbt_')('npm start with no keys', () => {
  it('speaks a sandbox call with the local voice, recorded on both channels', async () => {
    main = await startMain({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    const token = /Demo user token:\s+(\S+)/.exec(main.output())?.[1];
    expect(token).toMatch(/^sb_/);
    const api = async (method: string, route: string, body?: unknown) => {
      const res = await fetch(`${main!.url}${route}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const created = await api('POST', '/api/user/assistant', {
      assistant_name: 'Offline voice',
      voice_id: 1,
      calls_direction: 'make',
      initial_message: GREETING,
      record_call: true,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const placed = await api('POST', '/api/user/make_call', { phone_number: '+4915123456700', assistant_id: created.body.data.id });
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    const call = await waitFor(
      'the call to end',
      async () => {
        const r = (await api('GET', `/api/user/calls/${placed.body.call_id}`)).body;
        return ['initiated', 'ringing', 'in-progress'].includes(r.status) ? null : r;
      },
      180_000,
      500,
    );
    expect(call.status, call.transcript).toBe('completed');
    expect(call.transcript).toContain(`AI: ${GREETING}`);
    expect(call.recording_url).toMatch(/\/recordings\/\d+\.wav\?expires=\d+&signature=/);

    const link = new URL(call.recording_url);
    const res = await fetch(`${main.url}${link.pathname}${link.search}`);
    expect(res.status).toBe(200);
    const wav = readWav(new Uint8Array(await res.arrayBuffer()));
    expect(wav.channels).toHaveLength(2);
    const [caller, assistant] = [utterances(wav.channels[0]!), utterances(wav.channels[1]!)];
    // Both parties spoke: the sandbox's customer (local voice, en-gb) and the assistant.
    expect(caller.length).toBeGreaterThanOrEqual(1);
    expect(assistant.length).toBeGreaterThanOrEqual(2);

    // The assistant's first utterance is the local voice saying the greeting.
    const clips = new ClipBook();
    clips.add(GREETING, await synthesizer(local, 'female', 'en')(GREETING, 8000), 8000);
    clips.add('a different sentence', await synthesizer(local, 'female', 'en')('Thank you for your time. Goodbye!', 8000), 8000);
    expect(clips.matchAudio(assistant[0]!, 8000)?.text).toBe(GREETING);
  }, 300_000);
});
