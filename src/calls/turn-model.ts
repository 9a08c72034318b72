/**
 * The process's Smart Turn model (TURN_MODEL_PATH): loaded once when the call engine starts,
 * beside the Silero VAD, and handed to every audio call's pipeline (the end-of-turn policy's
 * `analyze-audio` requests go to its one worker thread). Unset: no audio turn model. Set to a
 * file that does not load: the process does not start (StartupError, one line) — an operator
 * who named a model expects it to be used, not a silent fallback; `switchboard doctor` names
 * the same problem ("audio turn model").
 */
import type { Logger } from 'pino';
import { StartupError } from '../db/startup-error.js';
import { SmartTurn, TURN_MODEL_FIX } from '../voice/turn/smart-turn.js';

export class ProcessTurnModel {
  private loaded: SmartTurn | null = null;
  private loading: Promise<SmartTurn | null> | null = null;

  constructor(
    readonly path: string | undefined,
    private readonly log: Logger,
  ) {}

  /** The loaded model, or null (unset, or not loaded yet). */
  get model(): SmartTurn | null {
    return this.loaded;
  }

  /** Loads the file once (later calls share the first load); throws a StartupError when it does not load. */
  load(): Promise<SmartTurn | null> {
    const file = this.path;
    if (!file) return Promise.resolve(null);
    this.loading ??= SmartTurn.load(file).then(
      (model) => {
        this.loaded = model;
        this.log.info({ path: file, inputs: model.inputs, outputs: model.outputs }, 'Smart Turn model loaded (TURN_MODEL_PATH)');
        return model;
      },
      (err: unknown) => {
        throw new StartupError(`TURN_MODEL_PATH: ${(err as Error).message.split('\n')[0]}; ${TURN_MODEL_FIX}`);
      },
    );
    return this.loading;
  }

  async close(): Promise<void> {
    const model = this.loaded;
    this.loaded = null;
    this.loading = null;
    await model?.close();
  }
}
