/**
 * Assembles one running Switchboard process: database (embedded or external), migrations,
 * first-start bootstrap, background parts (pg-boss, call engine, dialer, webhooks) and the
 * HTTP app. Used by src/main.ts, the tests and the benchmarks alike.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import PgBoss from 'pg-boss';
import { AdminAuth, bootstrapIfEmpty, type BootstrapResult } from './accounts/bootstrap.js';
import { TokenCache } from './accounts/token-cache.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { startEmbeddedPostgres, type EmbeddedServer } from './db/embedded.js';
import { runMigrations } from './db/migrate.js';
import { connect } from './db/pool.js';
import { buildApp } from './http/app.js';
import { createLogger } from './logger.js';

/** A long-running part of the process, started after the database and stopped before it. */
export interface BackgroundPart {
  name: string;
  start(): Promise<void>;
  /** Stop taking new work; let work in flight finish (bounded). */
  stop(): Promise<void>;
}

declare module './context.js' {
  interface Services {
    boss?: PgBoss;
  }
}

/** Factories of the background parts, in start order; each may install itself into ctx.services. */
export type PartFactory = (ctx: AppContext) => BackgroundPart | null;
const partFactories: PartFactory[] = [];

export function registerBackgroundPart(factory: PartFactory): void {
  partFactories.push(factory);
}

export interface StartOptions {
  config: Config;
  log?: Logger;
  /** Overrides config.DATABASE_URL (tests, benchmarks). */
  databaseUrl?: string;
  /** Bind the HTTP port (default true); tests use app.inject instead. */
  listen?: boolean;
  /** Start the background parts (default true). */
  background?: boolean;
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

  const close = async () => {
    await app?.close().catch((err) => log.error({ err }, 'closing HTTP server failed'));
    for (const part of [...parts].reverse()) {
      await part.stop().catch((err) => log.error({ err, part: part.name }, 'stopping background part failed'));
    }
    await boss?.stop({ graceful: true, wait: true, timeout: 10_000 }).catch(() => undefined);
    await database?.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
  };

  try {
    await runMigrations(url);
    database = connect(url, { max: opts.poolSize });
    const bootstrap = embedded && !config.DATABASE_URL
      ? await bootstrapIfEmpty(database.db, { adminTokenFromEnv: config.ADMIN_TOKEN })
      : {};

    const ctx: AppContext = {
      config,
      database,
      log,
      tokens: new TokenCache(database.db),
      adminAuth: new AdminAuth(database.db, config.ADMIN_TOKEN),
      instanceId: randomBytes(6).toString('hex'),
      services: {},
    };

    if (opts.background !== false) {
      boss = new PgBoss({ connectionString: url, max: 4, application_name: 'switchboard-jobs' });
      boss.on('error', (err: Error) => log.error({ err }, 'job queue error'));
      await boss.start();
      ctx.services.boss = boss;
      for (const factory of partFactories) {
        const part = factory(ctx);
        if (!part) continue;
        await part.start();
        parts.push(part);
      }
    }

    app = await buildApp(ctx);
    let listening: string | undefined;
    if (opts.listen !== false) {
      listening = await app.listen({ port: config.PORT, host: config.HOST });
    } else {
      await app.ready();
    }
    return { app, ctx, url: listening, bootstrap, close };
  } catch (err) {
    await close();
    throw err;
  }
}
