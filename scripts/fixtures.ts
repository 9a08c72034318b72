/**
 * `npx tsx scripts/fixtures.ts`: renders the caller-speech fixtures under test/fixtures/audio/
 * with the local voice (eSpeak NG) and writes their index (index.json). The WAVs are checked
 * in, so tests need neither eSpeak nor this script; run it again only to change the set.
 *
 * Each clip is written twice: 16 kHz PCM16 (what a browser microphone sends after our
 * resampling) and 8 kHz μ-law (what a telephone carrier sends, a quarter of the size). The
 * caller speaks with a voice no seeded assistant voice uses (`en-us+m3`), so a test can tell
 * the two sides apart by ear.
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeG711Wav, writeWav } from '../src/audio/wav.js';
import { LocalTts } from '../src/providers/tts/local/index.js';
import type { FixtureClip } from '../test/support/audio-fixtures.js';

const CALLER_VOICE = 'en-us+m3';

const CLIPS: { name: string; text: string; kind: FixtureClip['kind'] }[] = [
  { name: 'book-appointment', text: 'I would like to book an appointment for tomorrow.', kind: 'question' },
  { name: 'friday-afternoon', text: 'Friday afternoon would be best for me.', kind: 'answer' },
  { name: 'yes-that-works', text: 'Yes, that works for me.', kind: 'answer' },
  { name: 'mhm', text: 'mhm', kind: 'backchannel' },
  { name: 'yeah', text: 'yeah', kind: 'backchannel' },
  { name: 'wait-stop', text: 'Wait, stop.', kind: 'interruption' },
  { name: 'hold-on', text: 'Hold on.', kind: 'interruption' },
  {
    name: 'long-interruption',
    text: 'Sorry to cut in, but I actually need to change the time of my appointment.',
    kind: 'interruption',
  },
  {
    name: 'voicemail-greeting',
    text: 'Hi, you have reached Alex. Please leave a message after the tone.',
    kind: 'voicemail',
  },
];

const SILENCE_MS = 1500;

const FIXTURE_DIR = path.resolve(import.meta.dirname, '../test/fixtures/audio');

async function main(): Promise<void> {
  const tts = new LocalTts({ size: 1 });
  const status = await tts.status();
  if (!status.available) throw new Error(`the local voice is not available: ${status.reason}`);
  fs.mkdirSync(FIXTURE_DIR, { recursive: true });
  const index: FixtureClip[] = [];
  const write = (name: string, text: string, kind: FixtureClip['kind'], wide: Int16Array, narrow: Int16Array) => {
    const clip: FixtureClip = { name, text, kind, file: `${name}.16k.wav`, file8k: `${name}.8k.ulaw.wav`, durationMs: Math.round((wide.length / 16_000) * 1000) };
    fs.writeFileSync(path.join(FIXTURE_DIR, clip.file), writeWav(16_000, wide));
    fs.writeFileSync(path.join(FIXTURE_DIR, clip.file8k), writeG711Wav(8000, narrow));
    index.push(clip);
  };
  for (const { name, text, kind } of CLIPS) {
    const options = { voice: CALLER_VOICE, language: 'en' };
    const wide = await tts.speak(text, { ...options, sampleRate: 16_000 });
    const narrow = await tts.speak(text, { ...options, sampleRate: 8000 });
    write(name, text, kind, wide.samples, narrow.samples);
  }
  write('silence', '', 'silence', new Int16Array((16_000 * SILENCE_MS) / 1000), new Int16Array((8000 * SILENCE_MS) / 1000));
  fs.writeFileSync(path.join(FIXTURE_DIR, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
  tts.close();
  const bytes = fs.readdirSync(FIXTURE_DIR).reduce((n, f) => n + fs.statSync(path.join(FIXTURE_DIR, f)).size, 0);
  process.stdout.write(`${index.length} clips, ${Math.round(bytes / 1024)} KB in ${path.relative(process.cwd(), FIXTURE_DIR)}\n`);
}

await main();
