/**
 * The embedded server's superuser credentials, kept in DATA_DIR/embedded-postgres.json. When
 * that file is lost (a partial backup or copy) the cluster is kept and the password reset:
 * PostgreSQL's single-user mode needs no password and no network, and runs only on a cluster no
 * server holds (the caller holds the DATA_DIR lock and has shut down any orphan).
 */
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { StartupError } from './startup-error.js';

export interface Credentials { user: string; password: string }

export const CREDENTIALS_FILE = 'embedded-postgres.json';

export function readCredentials(dataDir: string): Credentials | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(path.join(dataDir, CREDENTIALS_FILE), 'utf8')) as Partial<Credentials>;
    return typeof parsed.user === 'string' && typeof parsed.password === 'string' ? { user: parsed.user, password: parsed.password } : null;
  } catch {
    return null;
  }
}

export function writeCredentials(dataDir: string, creds: Credentials): void {
  const file = path.join(dataDir, CREDENTIALS_FILE);
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, JSON.stringify(creds), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/**
 * Finds the bootstrap superuser (oid 10, whatever its name) and gives it a new password,
 * in one single-user session. The password travels on stdin, never on a command line.
 */
export async function resetSuperuserPassword(opts: {
  postgres: string;
  pgData: string;
  dataDir: string;
  ids: { uid: number; gid: number } | null;
}): Promise<Credentials> {
  const password = randomBytes(18).toString('base64url');
  const script = [
    'SELECT rolname FROM pg_authid WHERE oid = 10;',
    `DO $$ BEGIN EXECUTE format('ALTER ROLE %I PASSWORD %L', (SELECT rolname FROM pg_authid WHERE oid = 10), '${password}'); END $$;`,
    '',
  ].join('\n');
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(opts.postgres, ['--single', '-D', opts.pgData, '-c', 'listen_addresses=', '-c', 'unix_socket_directories=', 'postgres'], {
      ...(opts.ids ?? {}),
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, LC_MESSAGES: 'C' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.once('error', reject);
    child.once('close', (c) => resolve({ code: c, stdout: out, stderr: err }));
    child.stdin.end(script);
  });
  const user = /rolname = "([^"]+)"/.exec(stdout)?.[1];
  if (code !== 0 || !user || /ERROR/.test(stdout + stderr)) {
    const reason = (stderr + stdout).split('\n').find((l) => /ERROR|FATAL/.test(l))?.trim() ?? `exit ${code}`;
    throw new StartupError(
      `${path.join(opts.dataDir, CREDENTIALS_FILE)} is missing and the database password could not be reset (${reason}); the data in ${opts.pgData} is untouched — restore the file from a backup`,
    );
  }
  return { user, password };
}
