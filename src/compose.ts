/**
 * The composition of a full Switchboard process: which background parts run, in start order.
 * `src/main.ts` passes `fullProcess` to `startService`; tests and benchmarks pass the parts
 * they need (e.g. `[callEnginePart]`), or none for an HTTP-only process.
 */
import { callCountsPart } from './calls/call-counts.js';
import { callEnginePart } from './calls/index.js';
import { dialerPart } from './dialer/index.js';
import type { PartFactory } from './parts.js';
import { webhookDeliveryPart } from './webhooks/background.js';

export const fullProcess: readonly PartFactory[] = [
  // The call engine first: its recovery sweep ends calls of dead processes early.
  callEnginePart,
  webhookDeliveryPart,
  // Folds the call list's counter shards every minute.
  callCountsPart,
  // The campaign dialer (subscribes its own call-finished queue; start order does not matter).
  dialerPart,
];
