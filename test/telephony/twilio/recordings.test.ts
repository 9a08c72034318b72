/**
 * Recordings of Twilio calls (issue 16 "Must show"): an assistant with `record` on asks Twilio
 * for a dual-channel recording; after the call the service fetches it over REST, keeps it in
 * RECORDINGS_DIR, and `recording_url` is a signed, expiring link served by the service. The
 * link downloads a WAV as long as the call; an altered or expired link is refused; deleting
 * the call deletes the recording.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWav } from '../../../src/audio/wav.js';
import { callEnginePart } from '../../../src/calls/index.js';
import { purposeKey } from '../../../src/lib/secrets.js';
import { RecordingLinks } from '../../../src/recordings/links.js';
import { TwilioDouble } from '../../support/doubles/twilio.js';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

const PUBLIC = 'https://sb.example';
let double: TwilioDouble;
let t: TestService;
let alice: TestUser;
let bob: TestUser;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-twilio-recordings-'));
  double = await TwilioDouble.start({ route: (u) => u.replace(`${PUBLIC.replace('https', 'wss')}`, t.service.url!.replace('http', 'ws')).replace(PUBLIC, t.service.url!) });
  t = await startTestService({
    listen: true,
    parts: [callEnginePart],
    env: {
      PUBLIC_BASE_URL: PUBLIC,
      TWILIO_ACCOUNT_SID: double.accountSid,
      TWILIO_AUTH_TOKEN: double.authToken,
      TWILIO_API_URL: double.url,
      SECRET_KEY: 'r'.repeat(40),
      RECORDINGS_DIR: dir,
    },
  });
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await double?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A 440 Hz tone, so the caller's channel has something in it. */
function tone(ms: number): Int16Array {
  const out = new Int16Array((ms / 1000) * 8000);
  for (let i = 0; i < out.length; i++) out[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 8000));
  return out;
}

const local = (link: string) => link.replace(PUBLIC, t.service.url!);

describe('Twilio call recordings', () => {
  it("keeps Twilio's dual-channel recording and links it with a signed, expiring URL that downloads a WAV as long as the call", async () => {
    const number = await t.admin.post(`/api/admin/users/${alice.id}/phone-numbers`, { phone_number: '+14155550600', type_label: 'Normal', carrier: 'twilio' });
    const assistant = await insertAssistant(t, alice.id, { phoneNumberId: number.body.data.id, record: true, maxDuration: 30 });
    double.script('+14155550611', { ringMs: 100, steps: [{ pause: 400 }, { say: tone(1000) }, { pause: 600 }, { hangUp: true }] });
    const res = await alice.post('/api/user/make_call', { phone_number: '+14155550611', assistant_id: assistant.id });
    const callId = Number(res.body.call_id);
    const call = await double.callTo('+14155550611');
    await call.done;
    expect(call.form.get('Record')).toBe('true');
    expect(call.form.get('RecordingChannels')).toBe('dual');

    const record = await (async () => {
      for (let i = 0; i < 200; i++) {
        const r = await alice.get(`/api/user/calls/${callId}`);
        if (r.body.recording_url) return r.body;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('no recording_url');
    })();
    expect(record.recording_url).toMatch(new RegExp(`^${PUBLIC}/recordings/${callId}\\.wav\\?expires=\\d+&signature=[\\w-]+$`));
    // Stored as a path; the link is made when read.
    const { rows } = await t.service.ctx.database.pool.query('SELECT recording_url FROM calls WHERE id = $1', [callId]);
    expect(rows[0].recording_url).toBe(`/recordings/${callId}.wav`);

    const download = await fetch(local(record.recording_url));
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('audio/wav');
    const wav = readWav(new Uint8Array(await download.arrayBuffer()));
    expect(wav.sampleRate).toBe(8000);
    expect(wav.channels).toHaveLength(2);
    const seconds = wav.channels[0].length / 8000;
    const streamSeconds = (call.person!.frame * 20) / 1000;
    expect(Math.abs(seconds - streamSeconds)).toBeLessThan(0.05);
    expect(seconds).toBeGreaterThan(1.9);
    // The caller's channel holds the tone where it was said, silence before it.
    const at = (ms: number) => Math.round((ms / 1000) * 8000);
    const peak = (a: Int16Array) => a.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    expect(peak(wav.channels[0].subarray(at(500), at(1300)))).toBeGreaterThan(5000);
    expect(peak(wav.channels[0].subarray(0, at(300)))).toBe(0);

    // An altered signature or expiry is refused; so is an expired link.
    const url = new URL(local(record.recording_url));
    const altered = new URL(url);
    altered.searchParams.set('signature', `${url.searchParams.get('signature')!.slice(0, -2)}xx`);
    expect((await fetch(altered)).status).toBe(403);
    const later = new URL(url);
    later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expect((await fetch(later)).status).toBe(403);
    const expired = new RecordingLinks(t.service.url!, purposeKey(t.config, 'links')!, 60, () => Date.now() - 3_600_000).linkFor(callId);
    const refused = await fetch(expired);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ message: 'This recording link has expired.' });

    // The call is Alice's: Bob cannot read or delete it.
    expect((await bob.get(`/api/user/calls/${callId}`)).status).toBe(404);
    expect((await bob.delete(`/api/user/calls/${callId}`)).status).toBe(404);
    expect(fs.existsSync(path.join(dir, `${callId}.wav`))).toBe(true);
    // Deleting the call deletes its recording.
    expect((await alice.delete(`/api/user/calls/${callId}`)).status).toBe(200);
    expect(fs.existsSync(path.join(dir, `${callId}.wav`))).toBe(false);
    expect((await fetch(local(record.recording_url))).status).toBe(404);
  }, 30_000);

  it('does not record when the assistant does not ask for it', async () => {
    const number = await t.admin.post(`/api/admin/users/${bob.id}/phone-numbers`, { phone_number: '+14155550601', type_label: 'Normal', carrier: 'twilio' });
    const assistant = await insertAssistant(t, bob.id, { phoneNumberId: number.body.data.id, record: false });
    double.script('+14155550612', { ringMs: 100, steps: [{ pause: 500 }, { hangUp: true }] });
    const res = await bob.post('/api/user/make_call', { phone_number: '+14155550612', assistant_id: assistant.id });
    const call = await double.callTo('+14155550612');
    await call.done;
    expect(call.form.get('Record')).toBeNull();
    for (let i = 0; i < 100; i++) {
      const r = await bob.get(`/api/user/calls/${res.body.call_id}`);
      if (!['initiated', 'ringing', 'in-progress'].includes(r.body.status)) {
        expect(r.body.recording_url).toBeNull();
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(fs.existsSync(path.join(dir, `${res.body.call_id}.wav`))).toBe(false);
  }, 20_000);
});
