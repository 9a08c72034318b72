import type { Logger } from 'pino';
import type { AdminAuth } from './accounts/bootstrap.js';
import type { TokenCache } from './accounts/token-cache.js';
import type { Config } from './config.js';
import type { Database } from './db/pool.js';

/**
 * Everything a request handler or background part may use, built once per process in
 * src/main.ts (or per test in test/support). Background services (call engine, dialer,
 * webhook delivery) are added by their modules as optional members.
 */
export interface AppContext {
  config: Config;
  database: Database;
  log: Logger;
  tokens: TokenCache;
  adminAuth: AdminAuth;
  /** A short random id of this process, stored on live calls for crash recovery. */
  instanceId: string;
  /** Long-running parts, each optional so the HTTP layer can run without them in tests. */
  services: Services;
}

// Modules extend this interface (declaration merging) with their own services.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Services {}
