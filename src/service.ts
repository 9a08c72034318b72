/**
 * The composition root: assembles one running Switchboard process from the database
 * (embedded or external), migrations, first-start bootstrap, the background parts it is
 * given (with pg-boss and the call-finished event bus they share) and the HTTP app. Used by
 * src/main.ts (with `fullProcess` from src/compose.ts), the tests and the benchmarks alike.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import PgBoss from 'pg-boss';
import { AdminAuth } from './accounts/admin-token.js';
import { bootstrapIfEmpty, type BootstrapResult } from './accounts/bootstrap.js';
import { listenForAccountChanges } from './accounts/changes.js';
import { openTwilioAccount } from './accounts/carrier-accounts.js';
import { TokenCache } from './accounts/token-cache.js';
import type { Config } from './config.js';
import { CallFinishedEvents } from './calls/events.js';
import { carriersFromConfig, providersFromConfig } from './compose.js';
import { recordingStoreFor } from './recordings/store.js';
import { AccountProviders, ProviderCredentials } from './accounts/provider-keys.js';
import type { AppContext } from './context.js';
import { startEmbeddedPostgres, type EmbeddedServer } from './db/embedded.js';
import { runMigrations } from './db/migrate.js';
import { startupDatabaseError } from './db/startup-error.js';
import { connect } from './db/pool.js';
import { isDatabaseUnavailable, loopFailureLogger } from './db/unavailable.js';
import { buildApp } from './http/app.js';
import { purposeKey } from './lib/secrets.js';
import { createLogger } from './logger.js';
import { Metrics } from './observability/metrics.js';
import { startTracing, type Tracing } from './observability/tracing.js';
import type { BackgroundPart, PartFactory } from './parts.js';
import type { ProviderRegistry } from './providers/registry.js';
import type { CarrierRegistry } from './telephony/registry.js';

export interface StartOptions {
  config: Config;
  log?: Logger;
  /** Overrides config.DATABASE_URL (tests, benchmarks). */
  databaseUrl?: string;
  /** Bind the HTTP port (default true); tests use app.inject instead. */
  listen?: boolean;
  /**
   * The background parts to run, in start order (`fullProcess` from src/compose.ts for a
   * whole process). None (the default): an HTTP-only process without pg-boss.
   */
  parts?: readonly PartFactory[];
  /** The carriers calls use (default: from the configuration, see src/compose.ts). */
  carriers?: CarrierRegistry;
  /** The LLM and speech providers (default: from the configuration, see src/compose.ts). */
  providers?: ProviderRegistry;
  /** Size of the connection pool (default 20). */
  poolSize?: number;
}

export interface RunningService {
  app: FastifyInstance;
  ctx: AppContext;
  /** Set when listening. */
  url?: string;
  bootstrap: BootstrapResult;
  close(): Promise<void>;
  /** During close(): end the grace period now (live calls are ended at once, with the reason). */
  hurry(): void;
}

/** Advisory lock serialising the start of background parts across instances (see startService). */
const PARTS_STARTUP_LOCK = 727_002;

/**
 * pg-boss's housekeeping from the configuration (issue 15, retention): finished jobs (completed,
 * cancelled or failed) leave the job table after JOB_ARCHIVE_AFTER_HOURS and are deleted from the
 * archive after JOB_RETENTION_DAYS. pg-boss runs it on one instance at a time (its own lock),
 * every `maintenanceIntervalSeconds`.
 */
export function jobQueueOptions(config: Pick<Config, 'JOB_ARCHIVE_AFTER_HOURS' | 'JOB_RETENTION_DAYS' | 'JOB_EXPIRE_SECONDS'>) {
  const archiveAfterSeconds = config.JOB_ARCHIVE_AFTER_HOURS * 3600;
  return {
    archiveCompletedAfterSeconds: archiveAfterSeconds,
    archiveFailedAfterSeconds: archiveAfterSeconds,
    deleteAfterDays: config.JOB_RETENTION_DAYS,
    // Expired jobs are found by this pass too: a dead process's jobs return within 1.5 × JOB_EXPIRE_SECONDS.
    maintenanceIntervalSeconds: Math.min(120, Math.floor(config.JOB_EXPIRE_SECONDS / 2)),
  } satisfies PgBoss.ConstructorOptions;
}

/** Scrape-time gauges of the process itself: its pool and the calls it runs. */
function observeProcess(ctx: AppContext): void {
  const metrics = ctx.services.metrics!;
  const { pool } = ctx.database;
  const help = 'Connections of the shared database pool, by state (total, idle, waiting = requests queued for one).';
  metrics.gauge('switchboard_db_pool_connections', help, () => pool.totalCount, { state: 'total' });
  metrics.gauge('switchboard_db_pool_connections', help, () => pool.idleCount, { state: 'idle' });
  metrics.gauge('switchboard_db_pool_connections', help, () => pool.waitingCount, { state: 'waiting' });
  metrics.gauge('switchboard_db_pool_max', 'Size limit of the shared database pool.', () => pool.options.max ?? 10);
  metrics.gauge('switchboard_calls_live', 'Calls this process is running now.', () => ctx.services.calls?.activeCalls() ?? 0);
}

export async function startService(opts: StartOptions): Promise<RunningService> {
  const { config } = opts;
  const log = opts.log ?? createLogger(config.LOG_LEVEL);
  let embedded: EmbeddedServer | undefined;
  let url = opts.databaseUrl ?? config.DATABASE_URL;
  if (!url) {
    embedded = await startEmbeddedPostgres({ dataDir: config.DATA_DIR, port: config.EMBEDDED_PG_PORT, log });
    url = embedded.url;
    log.info({ port: embedded.port }, 'embedded PostgreSQL started');
  }
  const parts: BackgroundPart[] = [];
  let database: ReturnType<typeof connect> | undefined;
  let boss: PgBoss | undefined;
  let app: FastifyInstance | undefined;
  let accountChanges: ReturnType<typeof listenForAccountChanges> | undefined;
  let tracing: Tracing | undefined;

  let closing = false;
  let ctx: AppContext | undefined;
  const close = async () => {
    closing = true;
    // Draining first, with the HTTP server still open: /ready turns 503 and no new calls or
    // dialer work are taken, while live calls (their media sockets and carrier callbacks
    // included) go on for the grace period; then their post-call processing, events and
    // webhooks run. Each step is bounded by its part.
    if (ctx) ctx.shuttingDown = true;
    // All at once, so new calls are refused from the first moment (a dialer tick in flight may
    // still start the calls it created: the engine runs those within the grace period).
    await Promise.all(parts.map((part) => part.quiesce?.().catch((err) => log.error({ err, part: part.name }, 'quiescing background part failed'))));
    for (const part of parts) {
      await part.drain?.().catch((err) =>
        // Shutting down while the database is away: what is left is durable, or recovered elsewhere.
        isDatabaseUnavailable(err) ? log.warn({ part: part.name, reason: (err as Error).message }, 'draining background part: the database is unavailable') : log.error({ err, part: part.name }, 'draining background part failed'),
      );
    }
    await app?.close().catch((err) => log.error({ err }, 'closing HTTP server failed'));
    await accountChanges?.stop();
    for (const part of [...parts].reverse()) {
      await part.stop().catch((err) => log.error({ err, part: part.name }, 'stopping background part failed'));
    }
    await boss?.stop({ graceful: true, wait: true, timeout: 10_000 }).catch(() => undefined);
    // The last spans (calls ended by the shutdown) are exported before the process goes.
    await tracing?.shutdown().catch((err) => log.warn({ err }, 'exporting the last traces failed'));
    ctx?.recordings.close();
    await database?.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
  };

  try {
    await runMigrations(url).catch((err: unknown) => {
      throw startupDatabaseError(err, url!);
    });
    database = connect(url, { max: opts.poolSize });
    const bootstrap = embedded && !config.DATABASE_URL
      ? await bootstrapIfEmpty(database.db, { adminTokenFromEnv: config.ADMIN_TOKEN })
      : {};

    ctx = {
      config,
      database,
      log,
      tokens: new TokenCache(database.db),
      adminAuth: new AdminAuth(database.db, config.ADMIN_TOKEN),
      carriers:
        opts.carriers ??
        carriersFromConfig(config, {
          // An account's own Twilio credentials, sealed in the database (src/accounts/carrier-accounts.ts).
          twilioAccounts: (userId) => openTwilioAccount(database!.db, purposeKey(config, 'credentials'), userId),
        }),
      providers: opts.providers ?? providersFromConfig(config),
      recordings: recordingStoreFor(config),
      instanceId: randomBytes(6).toString('hex'),
      services: { metrics: new Metrics() },
    };
    observeProcess(ctx);
    if (config.OTEL_EXPORTER_OTLP_ENDPOINT) {
      // Loaded only here: a process without an endpoint never imports the OpenTelemetry SDK.
      tracing = await startTracing({
        endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
        headers: config.OTEL_EXPORTER_OTLP_HEADERS,
        serviceName: config.OTEL_SERVICE_NAME,
        instanceId: ctx.instanceId,
      });
      ctx.services.tracing = tracing;
      log.info({ endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT }, 'exporting traces over OTLP/HTTP');
    }
    // Revoked tokens, disabled users and a rotated admin token reach this process's caches at once.
    accountChanges = listenForAccountChanges({ connectionString: url, log, tokens: ctx.tokens, admin: ctx.adminAuth });
    await accountChanges.start();
    if (!(await ctx.adminAuth.configured())) {
      log.warn('no admin token is configured: set ADMIN_TOKEN or run `npx switchboard admin-token rotate`');
    }
    // Users' own speech keys (sealed in the database) over the deployment's, per account.
    ctx.providers.useAccounts(new AccountProviders(new ProviderCredentials(database.db, config), config, ctx.providers));

    const factories = opts.parts ?? [];
    if (factories.length > 0) {
      // Instances starting together on one database take turns here: pg-boss's createQueue
      // of the same queue from two processes at once can deadlock (seen with three instances
      // started together on a fresh database). A session lock on a pooled client, held only
      // while this process's parts start.
      const startup = await database.pool.connect();
      try {
        await startup.query('SELECT pg_advisory_lock($1)', [PARTS_STARTUP_LOCK]);
        boss = new PgBoss({ connectionString: url, max: 4, application_name: 'switchboard-jobs', ...jobQueueOptions(config) });
        // While shutting down, the server ending the queue's sessions (57P01) is expected, not an error.
        // The database away (restarted, failed over): one throttled warning; pg-boss retries.
        const queueFailed = loopFailureLogger(log, 'job queue error');
        boss.on('error', (err: Error) =>
          closing && (err as { code?: string }).code === '57P01' ? log.debug({ err }, 'job queue connection closed at shutdown') : queueFailed(err),
        );
        await boss.start();
        ctx.services.boss = boss;
        // One event bus for the process: the engine emits on it, every consumer subscribes to it.
        ctx.services.callEvents = new CallFinishedEvents(boss, log);
        for (const factory of factories) {
          const part = factory(ctx);
          if (!part) continue;
          Object.assign(ctx.services, part.provides);
          await part.start();
          parts.push(part);
        }
        ctx.services.callEvents.allSubscribed();
      } finally {
        await startup.query('SELECT pg_advisory_unlock($1)', [PARTS_STARTUP_LOCK]).catch(() => undefined);
        startup.release();
      }
    }

    app = await buildApp(ctx);
    let listening: string | undefined;
    if (opts.listen !== false) {
      listening = await app.listen({ port: config.PORT, host: config.HOST });
    } else {
      await app.ready();
    }
    const hurry = () => {
      for (const part of parts) part.hurry?.();
    };
    return { app, ctx, url: listening, bootstrap, close, hurry };
  } catch (err) {
    await close();
    throw err;
  }
}
