/** Shared pieces of the benchmarks: spawn a service process, drive it with autocannon (in a process of its own), print tables. */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pino } from 'pino';
import { freePort, startEmbeddedPostgres } from '../src/db/embedded.js';
import { createLogger, type Logger } from '../src/logger.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const EXTERNAL_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface Row {
  [column: string]: string | number;
}

/**
 * The line a bench prints under its table: the service runs at its default settings (issue 31:
 * LOG_LEVEL=info, JSON lines to a file as `npm start > file` writes them), and `changed` names
 * each default the bench sets otherwise, with why where it is not obvious.
 */
export function settingsNote(changed: Record<string, string> = {}): string {
  const list = Object.entries(changed).map(([name, value]) => `${name}=${value}`);
  return `Service at its default settings (LOG_LEVEL=info, JSON log lines to a file)${list.length ? `, except ${list.join(', ')}` : ''}.`;
}

export function printTable(title: string, rows: Row[], settings?: string): void {
  if (rows.length === 0) return;
  const cols = Object.keys(rows[0]);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(width[i])).join(' | ')} |`;
  console.log(`\n### ${title}\n`);
  if (settings) console.log(`${settings}\n`);
  console.log(line(cols));
  console.log(`|${width.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(cols.map((c) => String(r[c] ?? ''))));
}

export interface LoadResult {
  reqPerSec: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** The options of one load run; `requests` cycle (each with its own headers) when given. */
export interface LoadOptions {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
  requests?: { method: 'GET'; path: string; headers: Record<string, string> }[];
}

/** Runs autocannon in a fresh process of its own (bench/load-generator.ts says why). */
export async function generateLoad(options: LoadOptions): Promise<LoadResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench', 'load-generator.ts')], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  child.stdin!.end(JSON.stringify(options));
  const code = await exited;
  if (code !== 0) throw new Error(`load generator exited with ${code}: ${out}`);
  return JSON.parse(out) as LoadResult;
}

export async function load(url: string, opts: { connections: number; seconds: number; headers?: Record<string, string> }): Promise<LoadResult> {
  return generateLoad({
    url,
    connections: opts.connections,
    duration: opts.seconds,
    headers: { accept: 'application/json', ...opts.headers },
  });
}

export interface SpawnedService {
  url: string;
  /** What the service wrote so far (its log file: stdout and stderr). */
  stdout: string;
  /** The size of its log file so far. */
  logBytes(): number;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * The node flags `npm start` runs the service with (package.json's start script), so that a
 * benchmark measures the service as it is started.
 */
export function startNodeFlags(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  return pkg.scripts.start.split(/\s+/).filter((arg) => arg.startsWith('--'));
}

/**
 * Starts `node dist/main.js` (built by `npm ci`) as `npm start > file` does: the service's
 * defaults (the log level `info` included) overridden by `env` only, its output to a log file
 * (not a pipe into this process, which would share the machine's cores with it); resolves once
 * it listens. BENCH_NODE_FLAGS: extra flags for its node, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`
 * (node refuses --cpu-prof in NODE_OPTIONS).
 */
export async function spawnService(env: Record<string, string>): Promise<SpawnedService> {
  const port = await freePort();
  const entry = path.join(root, 'dist', 'main.js');
  if (!fs.existsSync(entry)) throw new Error('dist/main.js is missing: run `npm run build` first');
  const extra = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const logDir = tempDir('switchboard-bench-log-');
  const logFile = path.join(logDir, 'service.log');
  const fd = fs.openSync(logFile, 'a');
  const serviceEnv: Record<string, string | undefined> = { ...process.env, PORT: String(port), HOST: '127.0.0.1', ...env };
  if (!('LOG_LEVEL' in env)) delete serviceEnv.LOG_LEVEL; // the default, whatever this shell has
  const child = spawn(process.execPath, [...startNodeFlags(), ...extra, entry], { cwd: root, env: serviceEnv, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  const read = () => fs.readFileSync(logFile, 'utf8');
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`service exited early:\n${read()}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) break;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    get stdout() {
      return read();
    },
    logBytes: () => fs.statSync(logFile).size,
    process: child,
    async stop() {
      await stopChild(child);
      fs.rmSync(logDir, { recursive: true, force: true });
    },
  };
}

/**
 * The logger of a service a bench runs in its own process: as the service makes it at
 * `level` (the bench passes its config's LOG_LEVEL: the default unless the shell sets one),
 * JSON lines to a file through an asynchronous sonic-boom, as createLogger writes them to stdout.
 */
export function benchLogger(level: string): { log: Logger; file: string; bytes(): number; close(): void } {
  const dir = tempDir('switchboard-bench-log-');
  const file = path.join(dir, 'service.log');
  const destination = pino.destination({ dest: file, sync: false });
  return {
    log: createLogger(level, 'json', destination),
    file,
    bytes: () => fs.statSync(file).size,
    close() {
      destination.end();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** SIGTERM, up to 15 s for a graceful exit, then SIGKILL. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

/** A fresh database on the external server; returns its URL and a function that drops it. */
export async function freshExternalDatabase(prefix = 'sb_bench'): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: EXTERNAL_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const u = new URL(EXTERNAL_URL);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: EXTERNAL_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o755);
  return dir;
}

export async function createUserToken(baseUrl: string, adminToken: string): Promise<string> {
  const res = await fetch(`${baseUrl}/api/admin/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench', email: `bench-${Date.now()}@example.test` }),
  });
  const body = (await res.json()) as { token: string };
  return body.token;
}

/**
 * The database a benchmark seeds: a fresh one on the external server (BENCH_DATABASE_URL, else
 * TEST_DATABASE_URL), or an embedded PostgreSQL in a temporary folder; `cleanup` removes it.
 */
export async function benchDatabase(embedded: boolean, prefix: string): Promise<{ name: string; url: string; cleanup(): Promise<void> }> {
  if (!embedded) {
    const db = await freshExternalDatabase(prefix);
    return { name: 'external', url: db.url, cleanup: db.drop };
  }
  const dir = tempDir(`switchboard-${prefix}-`);
  const server = await startEmbeddedPostgres({ dataDir: dir, log: createLogger('warn'), ephemeral: true });
  return {
    name: 'embedded',
    url: server.url,
    async cleanup() {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
