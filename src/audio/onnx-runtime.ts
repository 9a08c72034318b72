/**
 * onnxruntime-node without Microsoft's telemetry. Its official Linux and macOS builds carry the
 * 1DS SDK: when the runtime initializes it stores a device id and an event queue under
 * `~/.cache/Microsoft/DeveloperTools/.onnxruntime/`, writes `/tmp/mat-debug-<pid>.log` and sends
 * events to mobile.events.data.microsoft.com. A self-hosted service that promises to work
 * offline does none of that. The switch the runtime documents (docs/Privacy.md, "Disabling
 * Telemetry") is `ORT_DISABLE_TELEMETRY=1` in the process environment before the runtime
 * initializes: then no uploader, no event and no device id exist for the process's lifetime.
 *
 * Call this in the main thread before onnxruntime-node is loaded in any thread: a worker
 * thread's `process.env` is a copy, while the runtime reads the process's real environment,
 * which only the main thread's assignment changes (and which worker threads and child
 * processes then inherit). A value an operator set is overridden: there is no opt-in.
 */
import { isMainThread } from 'node:worker_threads';

export const ONNX_TELEMETRY_SWITCH = 'ORT_DISABLE_TELEMETRY';

export function disableOnnxTelemetry(): void {
  if (!isMainThread) return;
  process.env[ONNX_TELEMETRY_SWITCH] = '1';
}
