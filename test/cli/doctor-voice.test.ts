/** The doctor's checks of the local voice and the VAD model, present and absent. */
import { describe, expect, it } from 'vitest';
import { localVoiceCheck, turnModelCheck, vadCheck } from '../../src/cli/doctor-voice.js';
import { checks, type DoctorContext } from '../../src/cli/doctor.js';
import { loadConfig } from '../../src/config.js';
import { logit, writeSmartTurnStandIn } from '../support/onnx-stand-in.js';

const ctx = {} as DoctorContext;

describe('doctor: local voice and VAD', () => {
  it('are among the checks', () => {
    expect(checks.map((c) => c.name)).toEqual(expect.arrayContaining(['local voice', 'voice activity detection']));
  });

  it('reports both working when installed', async () => {
    expect(await localVoiceCheck().run(ctx)).toEqual({ status: 'ok', detail: 'eSpeak NG speaks in its own process' });
    expect(await vadCheck().run(ctx)).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^Silero VAD v5 loads and scores \(silence: 0\.0\d\)$/) });
  });

  it('warns with the fix when eSpeak NG or the model is missing', async () => {
    expect(await localVoiceCheck('espeak-ng-not-installed').run(ctx)).toEqual({
      status: 'warn',
      detail: expect.stringContaining('espeak-ng-not-installed is not installed'),
      fix: expect.stringContaining('--omit=optional'),
    });
    expect(await vadCheck('/nonexistent/silero_vad.onnx').run(ctx)).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('loudness detector'),
      fix: expect.stringContaining('/nonexistent/silero_vad.onnx'),
    });
  });

  it('checks the Smart Turn file when TURN_MODEL_PATH names one, and is fine without it', async () => {
    const withPath = (path?: string) => ({ config: loadConfig(path ? { TURN_MODEL_PATH: path } : {}) }) as DoctorContext;
    expect(checks).toContain(turnModelCheck);
    expect(await turnModelCheck.run(withPath())).toMatchObject({ status: 'ok', detail: expect.stringContaining('TURN_MODEL_PATH is not set') });
    const file = writeSmartTurnStandIn(0, logit(0.25));
    expect(await turnModelCheck.run(withPath(file))).toEqual({ status: 'ok', detail: `Smart Turn loads from ${file} and scores (1 s of silence: 0.25)` });
    expect(await turnModelCheck.run(withPath('/nonexistent/smart-turn.onnx'))).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/\/nonexistent\/smart-turn\.onnx.*: the service does not start with this TURN_MODEL_PATH$/),
      fix: expect.stringContaining('huggingface.co/pipecat-ai/smart-turn-v3'),
    });
  });
});
