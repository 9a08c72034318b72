/**
 * `doctor` checks of the offline voice parts: the local voice (eSpeak NG, optional, in a child
 * process) and the Silero VAD model. Neither failing stops calls: without eSpeak the `local`
 * voices cannot speak (other providers can); without the model the voice core falls back to a
 * loudness detector. So both warn, never fail. The Smart Turn model (TURN_MODEL_PATH) is optional
 * too, but when it is set and does not load the service refuses to start (src/calls/turn-model.ts); the
 * check warns, as before, so the doctor's other checks and exit code stay as they were.
 */
import { SILERO_MODEL_PATH, SileroVadRunner } from '../audio/vad/silero.js';
import { EspeakPool } from '../providers/tts/local/pool.js';
import { SmartTurn, TURN_MODEL_FIX } from '../voice/turn/smart-turn.js';
import type { Check, CheckResult } from './doctor.js';

export function localVoiceCheck(packageName?: string): Check {
  return {
    name: 'local voice',
    async run(): Promise<CheckResult> {
      const pool = new EspeakPool({ size: 1, packageName });
      try {
        const status = await pool.status();
        if (status.available) {
          return { status: 'ok', detail: `eSpeak NG speaks in its own process${status.reusesInstance ? '' : ' (slow mode: a fresh instance per sentence)'}` };
        }
        return {
          status: 'warn',
          detail: `not available: ${status.reason}; voices of provider local cannot speak`,
          fix: 'run npm ci without --omit=optional (eSpeak NG is GPL-3.0-or-later, an optional dependency: see NOTICE), or give assistants voices of another provider',
        };
      } finally {
        pool.close();
      }
    },
  };
}

export function vadCheck(modelPath = SILERO_MODEL_PATH): Check {
  return {
    name: 'voice activity detection',
    async run(): Promise<CheckResult> {
      try {
        const runner = await SileroVadRunner.load({ modelPath });
        const p = await runner.open(16_000).probability(new Int16Array(512));
        runner.close();
        return { status: 'ok', detail: `Silero VAD v5 loads and scores (silence: ${p.toFixed(2)})` };
      } catch (err) {
        return {
          status: 'warn',
          detail: `Silero VAD does not load (${(err as Error).message.split('\n')[0]}): calls fall back to a loudness detector that hears any noise as speech`,
          fix: `reinstall with npm ci (onnxruntime-node) and keep ${modelPath} (shipped in the repository)`,
        };
      }
    },
  };
}

/** TURN_MODEL_PATH: unset is fine; set, the file must load and score. */
export const turnModelCheck: Check = {
  name: 'audio turn model',
  async run({ config }): Promise<CheckResult> {
    const file = config.TURN_MODEL_PATH;
    if (!file) return { status: 'ok', detail: 'TURN_MODEL_PATH is not set: the end of a turn is judged from silence, words and the STT without an audio model' };
    try {
      const model = await SmartTurn.load(file);
      try {
        const { probability } = await model.predict(new Float32Array(16_000));
        return { status: 'ok', detail: `Smart Turn loads from ${file} and scores (1 s of silence: ${probability.toFixed(2)})` };
      } finally {
        await model.close();
      }
    } catch (err) {
      return {
        status: 'warn',
        detail: `${(err as Error).message.split('\n')[0]}: the service does not start with this TURN_MODEL_PATH`,
        fix: TURN_MODEL_FIX,
      };
    }
  },
};
