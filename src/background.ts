/**
 * Registers the background parts of a full process (call engine, dialer, webhook delivery).
 * Imported by src/main.ts and by tests/benchmarks that want the whole service.
 */
export {};
