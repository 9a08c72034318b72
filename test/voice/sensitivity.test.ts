/** The 0–5 sensitivity tables and the assistant's voice settings as provider stream options. */
import { describe, expect, it } from 'vitest';
import { bargeInRule, endpointRule, pauseRule } from '../../src/voice/sensitivity.js';
import { turnWaits } from '../../src/voice/turn/policy.js';
import { sttOptionsFor, ttsOptionsFor, type VoiceSettingsRow } from '../../src/voice/speech-options.js';

describe('interrupt_sensitivity', () => {
  it('maps 0–5 to a lower VAD threshold and a shorter minimum speech: higher reacts sooner', () => {
    expect([0, 1, 2, 3, 4, 5].map((s) => bargeInRule(s))).toEqual([
      { vadThreshold: 0.85, minSpeechMs: 300 },
      { vadThreshold: 0.75, minSpeechMs: 250 },
      { vadThreshold: 0.65, minSpeechMs: 200 },
      { vadThreshold: 0.55, minSpeechMs: 150 },
      { vadThreshold: 0.45, minSpeechMs: 100 },
      { vadThreshold: 0.35, minSpeechMs: 50 },
    ]);
  });
  it('reads the column’s numeric text, clamps out-of-range values and defaults what is missing', () => {
    expect(bargeInRule('0.50')).toEqual({ vadThreshold: 0.8, minSpeechMs: 275 });
    expect(bargeInRule(9)).toEqual(bargeInRule(5));
    expect(bargeInRule(-1)).toEqual(bargeInRule(0));
    expect(bargeInRule('abc')).toEqual(bargeInRule(0.5));
    expect(bargeInRule(null)).toEqual(bargeInRule(0.5));
  });
  it('the pause of a two-step interruption reacts sooner than a one-step barge-in at every level (the words may undo it)', () => {
    expect([0, 0.5, 1, 5].map((s) => pauseRule(s))).toEqual([
      { vadThreshold: 0.6, minSpeechMs: 100 },
      { vadThreshold: 0.57, minSpeechMs: 90 },
      { vadThreshold: 0.55, minSpeechMs: 80 },
      { vadThreshold: 0.35, minSpeechMs: 0 },
    ]);
    for (const s of [0, 1, 2, 3, 4, 5]) {
      expect(pauseRule(s).vadThreshold).toBeLessThanOrEqual(bargeInRule(s).vadThreshold);
      expect(pauseRule(s).minSpeechMs).toBeLessThan(bargeInRule(s).minSpeechMs);
    }
  });
});

describe('endpoint_sensitivity', () => {
  it('maps 0–5 to the end-of-turn waits: after a finished sentence 250 … 150 ms, after an open one 2000 … 1200 ms, with no words yet 900 … 300 ms', () => {
    expect([0, 0.5, 2.5, 5].map((s) => turnWaits(s))).toEqual([
      { completeMs: 250, incompleteMs: 2000, neutralMs: 900 },
      { completeMs: 200, incompleteMs: 1920, neutralMs: 840 },
      { completeMs: 150, incompleteMs: 1600, neutralMs: 600 },
      { completeMs: 150, incompleteMs: 1200, neutralMs: 300 },
    ]);
    expect(turnWaits('0.50')).toEqual(turnWaits(0.5));
    expect(turnWaits(null)).toEqual(turnWaits(0.5));
    expect(turnWaits(9)).toEqual(turnWaits(5));
  });

  it('maps 0–5 to the STT endpointing (900 … 300 ms) with its utterance-end fallback (and the speech-to-speech model’s silence)', () => {
    expect([0, 2.5, 5].map((s) => endpointRule(s))).toEqual([
      { silenceMs: 900, sttEndpointingMs: 900, utteranceEndMs: 1800 },
      { silenceMs: 600, sttEndpointingMs: 600, utteranceEndMs: 1200 },
      { silenceMs: 300, sttEndpointingMs: 300, utteranceEndMs: 1000 },
    ]);
  });
});

const row: VoiceSettingsRow = {
  voiceProvider: 'elevenlabs',
  providerVoiceId: 'pNInz6obpgDQGcFmaJgB',
  languageIso2: 'de',
  voiceStability: '0.35',
  voiceSimilarity: '0.90',
  speechSpeed: '1.10',
  endpointSensitivity: '5.00',
};

describe('speech options from the assistant', () => {
  it('passes voice, language, stability, similarity and speed to text-to-speech', () => {
    expect(ttsOptionsFor(row, 16000)).toEqual({
      provider: 'elevenlabs',
      options: { voice: 'pNInz6obpgDQGcFmaJgB', sampleRate: 16000, language: 'de', stability: 0.35, similarity: 0.9, speed: 1.1 },
    });
  });
  it('the local voice without its own id speaks the assistant’s language; other providers get their default voice', () => {
    expect(ttsOptionsFor({ ...row, voiceProvider: 'local', providerVoiceId: null }, 8000).options.voice).toBe('de');
    expect(ttsOptionsFor({ ...row, voiceProvider: 'openai', providerVoiceId: ' ' }, 24000).options.voice).toBe('alloy');
    expect(ttsOptionsFor({ ...row, languageIso2: null, voiceStability: '7', speechSpeed: 'x' }, 8000).options).toMatchObject({ language: 'en', stability: 1, speed: 1 });
  });
  it('passes language and endpointing to speech-to-text', () => {
    expect(sttOptionsFor(row, 8000, ['Switchboard'])).toEqual({ sampleRate: 8000, language: 'de', endpointingMs: 300, utteranceEndMs: 1000, keywords: ['Switchboard'] });
    expect(sttOptionsFor({ ...row, endpointSensitivity: '0' }, 16000)).toEqual({ sampleRate: 16000, language: 'de', endpointingMs: 900, utteranceEndMs: 1800 });
  });
});
