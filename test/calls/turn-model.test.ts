/**
 * The process's Smart Turn model (src/calls/turn-model.ts): with TURN_MODEL_PATH set, the call
 * engine loads it once at start-up (the ONNX stand-in of test/support/onnx-stand-in.ts, same
 * input and output as Smart Turn v3) and every audio call's end-of-turn policy asks that one
 * model; a path that does not load stops the start with one clear line (StartupError), and
 * without the setting nothing is loaded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../src/calls/index.js';
import { StartupError } from '../../src/db/startup-error.js';
import { SmartTurn } from '../../src/voice/turn/smart-turn.js';
import { logit, writeSmartTurnStandIn } from '../support/onnx-stand-in.js';
import { createTestDatabase, dropTestDatabase, startTestService } from '../support/service.js';

let databaseUrl: string;
beforeAll(async () => {
  databaseUrl = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  if (databaseUrl) await dropTestDatabase(databaseUrl);
});

const start = (env: Record<string, string>) => startTestService({ databaseUrl, parts: [callEnginePart], env });

describe('TURN_MODEL_PATH', () => {
  it('a file that does not load stops the start with one line naming the setting, the file and the fix', async () => {
    const failure = await start({ TURN_MODEL_PATH: '/nonexistent/smart-turn-v3.2-cpu.onnx' }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(StartupError);
    const message = (failure as Error).message;
    expect(message).toMatch(/^TURN_MODEL_PATH: Smart Turn model \/nonexistent\/smart-turn-v3\.2-cpu\.onnx: .+; point TURN_MODEL_PATH at smart-turn-v3\.2-cpu\.onnx from https:\/\/huggingface\.co\/pipecat-ai\/smart-turn-v3/);
    expect(message).not.toContain('\n');
  });

  it('unset: no model is loaded', async () => {
    const t = await start({});
    try {
      expect(t.service.ctx.services.turnModel!.model).toBeNull();
    } finally {
      await t.close();
    }
  });

  it('set: the model is loaded once at start-up, before any call, and closed with the process', async () => {
    const file = writeSmartTurnStandIn(0, logit(0.8));
    const t = await start({ TURN_MODEL_PATH: file });
    const slot = t.service.ctx.services.turnModel!;
    const model = slot.model;
    try {
      expect(model).toBeInstanceOf(SmartTurn);
      expect(model!.inputs).toEqual(['input_features']);
      // A second load (what a call would do if it loaded its own) shares the first.
      expect(await slot.load()).toBe(model);
      expect((await model!.predict(new Float32Array(16_000))).probability).toBeCloseTo(0.8, 5);
    } finally {
      await t.close();
    }
    expect(slot.model).toBeNull();
    await expect(model!.predict(new Float32Array(16_000))).rejects.toThrow(/closed/);
  });
});
