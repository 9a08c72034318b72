/** The real entry point (`src/main.ts`) as a child process on a port of its own, ready when /ready answers. */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../src/db/embedded.js';

export interface MainProcess {
  child: ChildProcess;
  url: string;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Only what it printed on stdout. */
  stdout(): string;
}

/**
 * `detached`: the process leads a process group of its own, so a test can signal the whole
 * group as a terminal's Ctrl-C does (`process.kill(-child.pid, 'SIGINT')`).
 */
export async function startMain(env: Record<string, string>, opts: { detached?: boolean; maxOpenFiles?: number } = {}): Promise<MainProcess> {
  const port = await freePort();
  const node = [process.execPath, '--import', 'tsx', 'src/main.ts'];
  // `maxOpenFiles`: the shell lowers RLIMIT_NOFILE (soft and hard), then becomes the service (same pid).
  const [command, ...args] = opts.maxOpenFiles ? ['/bin/sh', '-c', `ulimit -n ${opts.maxOpenFiles} && exec "$0" "$@"`, ...node] : node;
  const child = spawn(command!, args, {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: '', ADMIN_TOKEN: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.detached ?? false,
  });
  let out = '';
  let stdout = '';
  child.stdout!.on('data', (c) => {
    out += c;
    stdout += c;
  });
  child.stderr!.on('data', (c) => (out += c));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`exited early: ${out}`);
    try {
      if ((await fetch(`${url}/ready`)).ok) break;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, url, output: () => out, stdout: () => stdout };
}

/** SIGTERM, and the exit code once it has exited. */
export async function stopMain(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  return exited;
}
