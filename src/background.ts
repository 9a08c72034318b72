/**
 * Registers the background parts of a full process (call engine, dialer, webhook delivery).
 * Imported by src/main.ts and by tests/benchmarks that want the whole service.
 */
// The call engine first: it installs ctx.services.calls and ctx.services.callEvents.
import './calls/index.js';
// Webhook delivery: keep after the call engine's import (it reuses ctx.services.callEvents).
import './webhooks/background.js';
// Folds the call list's counter shards every minute.
import './calls/call-counts.js';
// The campaign dialer (subscribes its own call-finished queue; start order does not matter).
import './dialer/index.js';

export {};
