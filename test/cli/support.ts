/**
 * Runs the `switchboard` command line: as a real child process (`runSwitchboard`, from
 * source, as `npx switchboard` runs the built one), or in this process (`runInProcess`, the
 * same program without the process start-up, for the many small cases).
 */
import { spawn } from 'node:child_process';
import { runCli } from '../../src/cli/program.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The test run's own settings must not leak into the command's configuration. */
function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, DATABASE_URL: '', ADMIN_TOKEN: '', DATA_DIR: '', LOG_LEVEL: '', ...env };
}

export function runSwitchboard(args: string[], env: Record<string, string>): Promise<CliResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export async function runInProcess(args: string[], env: Record<string, string>): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { env: cliEnv(env), stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

/** Runs a `--json` command that must succeed and returns its parsed output. */
export async function json<T = any>(run: typeof runSwitchboard, args: string[], env: Record<string, string>): Promise<T> {
  const res = await run(['--json', ...args], env);
  if (res.code !== 0) throw new Error(`switchboard ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
  return JSON.parse(res.stdout) as T;
}
