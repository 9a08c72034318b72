/**
 * The caller-speech fixtures (test/fixtures/audio, rendered by scripts/fixtures.ts with the
 * local voice and checked in): real speech for tests that send audio through the real code.
 */
import fs from 'node:fs';
import path from 'node:path';
import { monoOf, readWav } from '../../src/audio/wav.js';

export interface FixtureClip {
  name: string;
  text: string;
  kind: 'question' | 'answer' | 'backchannel' | 'interruption' | 'voicemail' | 'silence';
  /** 16 kHz mono PCM16 file name. */
  file: string;
  /** 8 kHz mono μ-law file name. */
  file8k: string;
  durationMs: number;
}

export const FIXTURE_DIR = path.resolve(import.meta.dirname, '../fixtures/audio');

export const fixtureIndex: readonly FixtureClip[] = JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, 'index.json'), 'utf8')) as FixtureClip[];

export function fixture(name: string): FixtureClip {
  const clip = fixtureIndex.find((c) => c.name === name);
  if (!clip) throw new Error(`no audio fixture named ${name} (see test/fixtures/audio/index.json)`);
  return clip;
}

/** A fixture's samples at 16 000 Hz (PCM16 file) or 8000 Hz (μ-law file, decoded). */
export function fixtureAudio(name: string, sampleRate: 8000 | 16_000 = 16_000): Int16Array {
  const clip = fixture(name);
  return monoOf(readWav(fs.readFileSync(path.join(FIXTURE_DIR, sampleRate === 8000 ? clip.file8k : clip.file))));
}

/** Absolute path of a fixture's file (e.g. for Chromium's fake microphone: the 16 kHz one). */
export function fixturePath(name: string, sampleRate: 8000 | 16_000 = 16_000): string {
  const clip = fixture(name);
  return path.join(FIXTURE_DIR, sampleRate === 8000 ? clip.file8k : clip.file);
}
