import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concat, silence } from '../../../src/audio/pcm.js';
import { SmartTurn, SmartTurnBusyError } from '../../../src/voice/turn/smart-turn.js';
import { TurnAudio } from '../../../src/voice/turn/turn-audio.js';
import { whisperFeatures } from '../../../src/voice/turn/whisper-features.js';
import { speechLike } from '../../support/doubles/clips.js';
import { logit, writeSmartTurnStandIn } from '../../support/onnx-stand-in.js';

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const mean = (a: Float32Array) => a.reduce((s, v) => s + v, 0) / a.length;
/** Speech-like audio at 16 kHz as floats. */
const speech = (text: string) => Float32Array.from(speechLike(text, 16_000).samples, (v) => v / 32768);

describe('Smart Turn v3 with an ONNX stand-in of the same interface', () => {
  let constant: SmartTurn;
  let following: SmartTurn;
  const W = 2;
  const B = 0.5;

  beforeAll(async () => {
    constant = await SmartTurn.load(writeSmartTurnStandIn(0, logit(0.9)));
    following = await SmartTurn.load(writeSmartTurnStandIn(W, B));
  });
  afterAll(async () => {
    await constant.close();
    await following.close();
  });

  it('loads the file named by TURN_MODEL_PATH and reads its interface', () => {
    expect(constant.inputs).toEqual(['input_features']);
    expect(constant.outputs).toEqual(['logits']);
  });

  it('answers the model’s probability, and complete above 0.5', async () => {
    const result = await constant.predict(speech('I would like to book a table.'));
    expect(result.probability).toBeCloseTo(0.9, 5);
    expect(result.complete).toBe(true);
    expect(result.featuresMs).toBeGreaterThan(0);
    expect(result.inferenceMs).toBeGreaterThan(0);
  });

  it('the model sees the Whisper features of the audio it was given (worker and this thread agree)', async () => {
    for (const audio of [speech('Hello there, how are you?'), new Float32Array(8000), speech('Um, so I was')]) {
      const expected = sigmoid(W * mean(whisperFeatures(audio)) + B);
      const { probability, complete } = await following.predict(audio);
      expect(probability).toBeCloseTo(expected, 5);
      expect(complete).toBe(expected > 0.5);
    }
    // Silence: every feature is −1.5 → sigmoid(2·−1.5 + 0.5) = sigmoid(−2.5) → incomplete.
    expect((await following.predict(new Float32Array(16_000))).probability).toBeCloseTo(sigmoid(-2.5), 5);
  });

  it('requests are answered in order, one at a time; a full queue drops its oldest', async () => {
    const small = await SmartTurn.load(writeSmartTurnStandIn(0, logit(0.3)), { maxQueue: 2 });
    try {
      const audio = speech('one two three');
      const results = await Promise.allSettled([1, 2, 3, 4].map(() => small.predict(audio)));
      // The first went straight to the worker; of the three queued behind it the oldest was dropped.
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(SmartTurnBusyError);
      expect(small.stats).toEqual({ predictions: 3, dropped: 1 });
      for (const r of results) if (r.status === 'fulfilled') expect(r.value).toMatchObject({ complete: false });
    } finally {
      await small.close();
    }
  });

  it('a missing file or a model of another interface fails to load with a clear message', async () => {
    await expect(SmartTurn.load('/nonexistent/smart-turn-v3.2-cpu.onnx')).rejects.toThrow(/Smart Turn model \/nonexistent\/smart-turn-v3\.2-cpu\.onnx/);
    const notOnnx = writeSmartTurnStandIn(0, 0).replace(/\.onnx$/, '.txt');
    fs.writeFileSync(notOnnx, 'not a model');
    await expect(SmartTurn.load(notOnnx)).rejects.toThrow(/Smart Turn model/);
  });

  it('predicting after close is refused', async () => {
    const model = await SmartTurn.load(writeSmartTurnStandIn(0, 0));
    await model.close();
    await expect(model.predict(new Float32Array(100))).rejects.toThrow('the Smart Turn model is closed');
  });
});

describe('the turn’s audio for Smart Turn', () => {
  it('keeps 8 kHz call audio as 16 kHz from 500 ms before the first speech, at most 8 s, without earlier turns', () => {
    const audio = new TurnAudio(8000);
    audio.push(silence(2000, 8000));
    expect(audio.segment()).toHaveLength(0);
    audio.speechStarted();
    const words = speechLike('I would like to book', 8000).samples;
    audio.push(words);
    audio.speechStarted(); // a second start inside the turn changes nothing
    const seg = audio.segment();
    // 500 ms before the start (8000 samples at 16 kHz) plus the words, upsampled; the resampler delays ~1 ms.
    expect(Math.abs(seg.length - (8000 + 2 * words.length))).toBeLessThan(40);
    audio.push(concat([silence(3000, 8000), words, silence(5000, 8000)]));
    expect(audio.segment()).toHaveLength(8 * 16_000);
    audio.endTurn();
    expect(audio.segment()).toHaveLength(0);
    audio.push(silence(100, 8000));
    audio.speechStarted();
    expect(audio.segment()).toHaveLength(8000);
  });
});
