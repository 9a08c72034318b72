import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { AdminAuth } from './accounts/admin-token.js';
import type { TokenCache } from './accounts/token-cache.js';
import type { Config } from './config.js';
import type { Database } from './db/pool.js';
import type { Metrics } from './observability/metrics.js';
import type { Tracing } from './observability/tracing.js';
import type { ProviderRegistry } from './providers/registry.js';
import type { RecordingStore } from './recordings/store.js';
import type { CarrierRegistry } from './telephony/registry.js';

/**
 * Everything a request handler or background part may use, built once per process by the
 * composition root (src/service.ts). Background services (call engine, dialer, webhook
 * delivery) are optional members of `services`, installed by the root from the parts it runs.
 */
export interface AppContext {
  config: Config;
  database: Database;
  log: Logger;
  tokens: TokenCache;
  adminAuth: AdminAuth;
  /** The carriers calls are placed on, by name (chosen by the composition root). */
  carriers: CarrierRegistry;
  /** The LLM and speech providers, by kind and name (chosen by the composition root). */
  providers: ProviderRegistry;
  /**
   * Where call recordings are kept (a folder or an S3 bucket, src/recordings): one per process,
   * whatever parts it runs — the engine saves to it, the API serves from it, and deleting a call
   * deletes its recording through it.
   */
  recordings: RecordingStore;
  /** A short random id of this process, stored on live calls for crash recovery. */
  instanceId: string;
  /** Set when the process begins to shut down (src/service.ts): /ready answers 503 from then on. */
  shuttingDown?: boolean;
  /** Long-running parts, each optional so the HTTP layer can run without them in tests. */
  services: Services;
}

// Modules extend this interface (declaration merging) with the services their parts provide.
export interface Services {
  /** The job queue, present when the process runs background parts. */
  boss?: PgBoss;
  /**
   * This process's Prometheus metrics (src/observability/metrics.ts), made by the composition
   * root before any part starts. Optional only so hand-built contexts in tests need none.
   */
  metrics?: Metrics;
  /** OpenTelemetry spans (src/observability/tracing.ts), present when OTEL_EXPORTER_OTLP_ENDPOINT is set. */
  tracing?: Tracing;
}
