/**
 * The local voice's child process: loads eSpeak NG (GPL, optional) and answers one speak
 * request at a time over the IPC pipe. Started by pool.ts (argument: the package to load);
 * exits when the pipe closes.
 */
import { resample } from '../../../audio/resample.js';
import { Espeak } from './espeak.js';
import type { SpeakRequest, WorkerMessage } from './protocol.js';

const send = (message: WorkerMessage) => process.send?.(message);

let espeak: Espeak;
try {
  espeak = await Espeak.load((line) => process.stderr.write(`espeak-ng: ${line}\n`), process.argv[2]);
  send({ type: 'ready', reusesInstance: espeak.reusesInstance });
} catch (err) {
  send({ type: 'unavailable', message: err instanceof Error ? err.message : String(err) });
  process.disconnect?.();
  process.exit(0);
}

process.on('message', (message: SpeakRequest) => {
  if (message.type !== 'speak') return;
  void espeak.speak(message).then(
    (out) => {
      const samples = resample(out.samples, out.sampleRate, message.sampleRate);
      send({ type: 'spoken', id: message.id, samples, sampleRate: message.sampleRate });
    },
    (err: unknown) => send({ type: 'failed', id: message.id, message: err instanceof Error ? err.message : String(err) }),
  );
});
process.on('disconnect', () => process.exit(0));
