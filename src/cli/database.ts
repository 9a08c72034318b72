/**
 * How the CLI reaches the database, without the HTTP API: `DATABASE_URL` when set; else the
 * embedded server of `DATA_DIR` — the running one (the service's, found through its
 * `postmaster.pid` and the stored credentials) or, when none runs, one the CLI starts for the
 * duration of the command and stops again.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { startEmbeddedPostgres } from '../db/embedded.js';

export interface DatabaseTarget {
  url: string;
  /** How it was reached, for messages. */
  description: string;
  /** Stops what the CLI started (nothing for a server someone else runs). */
  release(): Promise<void>;
}

interface RunningServer {
  pid: number;
  port: number;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The embedded server running on DATA_DIR, read from its postmaster.pid (line 1 pid, 4 port, 8 status). */
export function runningEmbeddedServer(dataDir: string): RunningServer | null {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(path.resolve(dataDir), 'pg', 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!(pid > 0) || !(port > 0) || !processAlive(pid)) return null;
  if (lines[7] !== undefined && lines[7].trim() !== '' && lines[7].trim() !== 'ready') return null;
  return { pid, port };
}

function embeddedCredentials(dataDir: string): { user: string; password: string } {
  const file = path.join(path.resolve(dataDir), 'embedded-postgres.json');
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as { user: string; password: string };
  } catch (err) {
    throw new Error(`Cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): run the CLI as the user that runs the service, or set DATABASE_URL.`);
  }
}

export async function openDatabaseTarget(config: Config, log: Logger): Promise<DatabaseTarget> {
  if (config.DATABASE_URL) {
    return { url: config.DATABASE_URL, description: 'DATABASE_URL', release: async () => undefined };
  }
  const running = runningEmbeddedServer(config.DATA_DIR);
  if (running) {
    const creds = embeddedCredentials(config.DATA_DIR);
    return {
      url: `postgres://${encodeURIComponent(creds.user)}:${encodeURIComponent(creds.password)}@127.0.0.1:${running.port}/postgres`,
      description: `the running embedded PostgreSQL of ${path.resolve(config.DATA_DIR)} (port ${running.port})`,
      release: async () => undefined,
    };
  }
  const server = await startEmbeddedPostgres({ dataDir: config.DATA_DIR, log });
  return {
    url: server.url,
    description: `the embedded PostgreSQL of ${path.resolve(config.DATA_DIR)} (started for this command)`,
    release: () => server.stop(),
  };
}
