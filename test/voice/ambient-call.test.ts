/**
 * The ambient bed on a whole sandbox audio call in real audio (the session, the voice core at
 * real pace, the chat and speech doubles, `record` on): the line gets audio without a break
 * longer than a frame from the answer to the hang-up — across the greeting, the caller's turns,
 * the model's thinking and the silences — the assistant's sentences lie on the bed unchanged
 * (what the caller heard minus the bed at its running phase is the speech, matched back to the
 * spoken sentences), the transcript and the turns are those of a call without a bed, and the
 * recording's assistant channel holds the bed throughout with the speech on it.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rms } from '../../src/audio/pcm.js';
import { CallSession } from '../../src/calls/session.js';
import { ToolRunner } from '../../src/calls/tool-runner.js';
import { ambientLoop } from '../../src/voice/ambient.js';
import { voiceFactory } from '../../src/voice/factory.js';
import { AudioCallRecording } from '../../src/voice/recording.js';
import { readWav } from '../../src/audio/wav.js';
import { OpenAiCompatibleLlm } from '../../src/providers/llm/openai.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { OpenAiTts } from '../../src/providers/tts/openai/index.js';
import { synthesizer } from '../../src/providers/synthesize.js';
import { systemClock } from '../../src/telephony/clock.js';
import { SandboxCarrier, SANDBOX_SCRIPTS } from '../../src/telephony/sandbox/carrier.js';
import type { SandboxMedia } from '../../src/telephony/sandbox/media.js';
import { EnergySegmenter } from '../support/doubles/clips.js';
import { startVoiceDoubles, type VoiceDoubles } from '../support/doubles/voice.js';
import { sessionSettings, voiceRow } from '../support/voice-session.js';

const log = pino({ level: process.env.VC_DEBUG ? 'debug' : 'silent' });
const RATE = 8000;
const GREETING = 'Hello, this is Anna from the clinic.';
const OFFER = 'Can you come tomorrow at ten?';
const GOODBYE = 'See you tomorrow at ten, goodbye!';
let voice: VoiceDoubles;

beforeAll(async () => {
  voice = await startVoiceDoubles();
  voice.llm.on(SANDBOX_SCRIPTS.converses[0], { text: OFFER });
  voice.llm.on(SANDBOX_SCRIPTS.converses[1], { text: GOODBYE, toolCalls: [{ id: 'e1', name: 'end-call', args: {} }] });
});
afterAll(async () => voice?.close());

/** The sentences in `samples` (silence between them), matched back against what the speech double said. */
function sentencesIn(samples: Int16Array): string[] {
  const segmenter = new EnergySegmenter(RATE);
  const utterances = segmenter.push(samples).flatMap((e) => (e.type === 'end' ? [e.utterance] : []));
  const last = segmenter.flush();
  if (last) utterances.push(last);
  return utterances.map((u) => voice.clips.matchAudio(u.samples, RATE)?.text ?? '?');
}

/** `samples` without its runs of 8 or more zero samples (silence where the line had nothing; the bed never holds 1 ms of zeros). */
function withoutSilentRuns(samples: Int16Array): Int16Array {
  const out: number[] = [];
  let zeros = 0;
  for (let i = 0; i <= samples.length; i++) {
    if (i < samples.length && samples[i] === 0) {
      zeros++;
      continue;
    }
    if (zeros > 0 && zeros < 8) for (let z = 0; z < zeros; z++) out.push(0);
    zeros = 0;
    if (i < samples.length) out.push(samples[i]!);
  }
  return Int16Array.from(out);
}

describe('ambient_sound on a sandbox audio call', () => {
  it('the line never falls silent, the speech lies on the bed, the recording keeps both', { timeout: 90_000 }, async () => {
    const tts = new OpenAiTts({ baseUrl: voice.speech.baseUrl, apiKey: voice.speech.knobs.apiKey!, model: 'tts-1' });
    const llm = new OpenAiCompatibleLlm({ baseUrl: voice.llm.baseUrl, apiKey: 'llm-test-key' });
    const carrier = new SandboxCarrier({ timeScale: 1, voice: synthesizer(tts, 'echo') });
    const leg = carrier.dial({ customer: '+4915100000000', assistant: '', direction: 'outbound' });
    const media = leg.media as SandboxMedia;
    // When each chunk reached the line, against when the line had played all it had before.
    const line = { until: 0, gaps: [] as { from: number; ms: number }[], chunks: 0, first: 0 };
    // When this process itself stood still (the doubles share it; the machine is shared): no pacing
    // hands audio over while the event loop is blocked longer than the audio it holds ahead.
    const stalls: { from: number; to: number }[] = [];
    let lastProbe = performance.now();
    const probe = setInterval(() => {
      const now = performance.now();
      if (now - lastProbe > 25) stalls.push({ from: lastProbe, to: now });
      lastProbe = now;
    }, 5);
    const play = media.play.bind(media);
    media.play = (samples, ambient) => {
      const now = performance.now();
      if (line.chunks === 0) line.first = now;
      else if (now - line.until > 0) line.gaps.push({ from: line.until, ms: now - line.until });
      line.until = Math.max(now, line.until) + (samples.length / RATE) * 1000;
      line.chunks++;
      play(samples, ambient);
    };
    const recording = new AudioCallRecording(systemClock, 120);
    const factory = voiceFactory(voiceRow({ ambientSound: 'office', ambientSoundVolume: '0.50' }), new ProviderRegistry(llm, { tts: [tts] }), { clock: systemClock, log });
    const session = new CallSession(sessionSettings({ initialMessage: GREETING }), {
      leg,
      llm,
      tools: new ToolRunner({ allowPrivate: true, log }),
      clock: systemClock,
      log,
      voice: recording.wrap(factory!),
    });
    const result = await session.run();
    clearInterval(probe);
    const lastChunkAt = line.until;

    // The call as without a bed.
    expect(result.status).toBe('completed');
    expect(result.transcript.split('\n')).toEqual([
      `AI: ${GREETING}`,
      `Customer: ${SANDBOX_SCRIPTS.converses[0]}`,
      `AI: ${OFFER}`,
      `Customer: ${SANDBOX_SCRIPTS.converses[1]}`,
      `AI: ${GOODBYE}`,
    ]);
    // The line: audio from the answer to the goodbye, no break longer than a frame — but where the
    // process was blocked for longer than the 60 ms the bed is handed ahead (then speech breaks too).
    expect(line.chunks).toBeGreaterThan(200);
    const blocked = (gap: { from: number; ms: number }) => stalls.some((s) => s.to - s.from > 40 && s.to >= gap.from - 5 && s.from <= gap.from + gap.ms);
    const breaks = line.gaps.filter((gap) => gap.ms > 20 && !blocked(gap));
    expect(breaks, JSON.stringify({ breaks, stalls: stalls.filter((s) => s.to - s.from > 40).length })).toEqual([]);
    // Stalls are the exception, not the rule.
    expect(line.gaps.filter((gap) => gap.ms > 20).length).toBeLessThan(line.chunks / 20);
    expect((lastChunkAt - line.first) / 1000).toBeGreaterThan(5);

    // What the caller heard, minus the bed at its running phase: the three sentences and silence between.
    const heard = media.heard();
    const loop = ambientLoop('office', RATE);
    const speech = Int16Array.from(heard, (v, i) => v - Math.round(loop[i % loop.length]! * 0.5));
    expect(sentencesIn(speech)).toEqual([GREETING, OFFER, GOODBYE]);
    // Between the sentences (the caller speaking, the model thinking) the line carried the bed alone:
    // no 100 ms of what was heard is silent.
    for (let at = 0; at + RATE / 10 <= heard.length; at += RATE / 10) {
      expect(rms(heard.subarray(at, at + RATE / 10)), `100 ms heard at ${at / RATE} s`).toBeGreaterThan(50);
    }

    // The recording: the assistant's channel is what the caller heard — the bed throughout with the
    // sentences on it — laid out in time (a break on the line is silence there; none other).
    const wav = readWav(new Uint8Array(recording.wav(result.talkMs)!));
    const right = wav.channels[1];
    const kept = withoutSilentRuns(right);
    expect(kept.length).toBeGreaterThan(heard.length - RATE / 2);
    const both = Math.min(kept.length, heard.length);
    expect(Array.from(kept.subarray(0, both))).toEqual(Array.from(heard.subarray(0, both)));
    expect(sentencesIn(wav.channels[0])).toEqual(expect.arrayContaining([SANDBOX_SCRIPTS.converses[0], SANDBOX_SCRIPTS.converses[1]]));
  });
});
