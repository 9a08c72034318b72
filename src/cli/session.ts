/**
 * One CLI command's access to the deployment: its configuration, its database (see
 * database.ts) and where to print. Commands that read or change accounts refuse to run on a
 * schema older than this version (they would fail half-way); `migrate` brings it up to date.
 */
import type { Logger } from 'pino';
import { createLogger } from '../logger.js';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { pendingMigrations } from '../db/migrate.js';
import { connect, type Database } from '../db/pool.js';
import { openDatabaseTarget, type DatabaseTarget } from './database.js';
import { createOutput, type Output } from './output.js';

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
}

export const processIo: CliIo = {
  env: process.env,
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
};

/** A failure the CLI reports as one message and an exit code, without a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export interface Session {
  config: Config;
  out: Output;
  log: Logger;
  io: CliIo;
}

export function openSession(io: CliIo, json: boolean): Session {
  let config: Config;
  try {
    config = loadConfig(io.env);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, 2);
    throw err;
  }
  // The CLI's own log lines (e.g. an embedded server it starts) are warnings only, on stderr,
  // with the service's redaction list (src/lib/redact.ts).
  const log = createLogger('warn', 'json', { write: (s: string) => io.stderr(s) });
  return { config, out: createOutput(json, io.stdout, io.stderr), log, io };
}

export interface DatabaseSession extends Session {
  database: Database;
  target: DatabaseTarget;
}

/** Runs `work` with the database open, and closes everything the command opened. */
export async function withDatabase<T>(
  session: Session,
  work: (s: DatabaseSession) => Promise<T>,
  opts: { requireCurrentSchema?: boolean } = {},
): Promise<T> {
  const target = await openDatabaseTarget(session.config, session.log).catch((err: unknown) => {
    throw new CliError(`Cannot reach the database: ${(err as Error).message}`);
  });
  let database: Database | undefined;
  try {
    if (opts.requireCurrentSchema !== false) {
      const pending = await pendingMigrations(target.url);
      if (pending.length > 0) {
        throw new CliError(`The database schema is behind this version (${pending.length} migration(s) pending): run \`npx switchboard migrate\` first.`);
      }
    }
    database = connect(target.url, { max: 2, applicationName: 'switchboard-cli' });
    return await work({ ...session, database, target });
  } finally {
    await database?.close();
    await target.release();
  }
}
