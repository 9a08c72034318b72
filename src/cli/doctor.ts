/**
 * `switchboard doctor`: checks what a deployment needs and prints, for each part, whether it
 * works and, when not, the fix. Exit code 1 when any check fails (warnings do not fail).
 * A check is a name and a function; checks that need the database get it, and are skipped
 * with a reason when the database itself cannot be reached.
 */
import fs from 'node:fs';
import path from 'node:path';
import { storedAdminTokenHash } from '../accounts/admin-token.js';
import type { Config } from '../config.js';
import { pendingMigrations } from '../db/migrate.js';
import { connect, type Database } from '../db/pool.js';
import { openDatabaseTarget, type DatabaseTarget } from './database.js';
import { twilioCheck, voicesCheck } from './doctor-carriers.js';
import { localVoiceCheck, turnModelCheck, vadCheck } from './doctor-voice.js';
import type { Session } from './session.js';

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  status: CheckStatus;
  detail: string;
  fix?: string;
}

export interface DoctorContext {
  config: Config;
  /** Present when the database could be reached. */
  database?: Database;
  target?: DatabaseTarget;
  /** Timeout of each outbound probe. */
  timeoutMs: number;
}

export interface Check {
  name: string;
  needsDatabase?: boolean;
  run(ctx: DoctorContext): Promise<CheckResult>;
}

const ok = (detail: string): CheckResult => ({ status: 'ok', detail });
const warn = (detail: string, fix: string): CheckResult => ({ status: 'warn', detail, fix });
const fail = (detail: string, fix: string): CheckResult => ({ status: 'fail', detail, fix });

function reason(err: unknown): string {
  const e = err as { cause?: { code?: string; message?: string }; code?: string; message?: string; name?: string };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'no answer in time';
  return e.cause?.code ?? e.code ?? e.cause?.message ?? e.message ?? String(err);
}

async function probe(url: string, init: RequestInit, timeoutMs: number): Promise<Response> {
  return fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
}

const databaseCheck: Check = {
  name: 'database',
  needsDatabase: true,
  async run({ database, target }) {
    const { rows } = await database!.pool.query<{ v: string }>("SELECT current_setting('server_version') AS v");
    const pending = await pendingMigrations(target!.url);
    const where = `PostgreSQL ${rows[0].v} through ${target!.description}`;
    if (pending.length > 0) {
      return fail(`${where}; ${pending.length} migration(s) pending (${pending.join(', ')})`, 'run `npx switchboard migrate` (the service also migrates when it starts)');
    }
    return ok(`${where}; schema up to date`);
  },
};

const adminTokenCheck: Check = {
  name: 'admin token',
  needsDatabase: true,
  async run({ config, database }) {
    if (config.ADMIN_TOKEN) return ok('ADMIN_TOKEN is set');
    if (await storedAdminTokenHash(database!.db)) return ok('a generated admin token is stored (only its hash)');
    return fail('no admin token: the admin API and /metrics refuse every request', 'run `npx switchboard admin-token rotate`, or set ADMIN_TOKEN');
  },
};

const secretKeyCheck: Check = {
  name: 'secret key',
  async run({ config }) {
    if (config.SECRET_KEY) return ok('SECRET_KEY is set (use the same value on every instance)');
    if (config.DATABASE_URL) {
      return warn('SECRET_KEY is not set: stored credentials (provider keys, carrier tokens) cannot be saved', 'set SECRET_KEY to a random string of at least 32 characters, the same on every instance (e.g. `openssl rand -base64 48`)');
    }
    const file = path.join(path.resolve(config.DATA_DIR), 'secret.key');
    return ok(fs.existsSync(file) ? `generated key in ${file}` : `a key will be generated into ${file} on the first start`);
  },
};

const accountsCheck: Check = {
  name: 'accounts',
  needsDatabase: true,
  async run({ database }) {
    const { rows } = await database!.pool.query<{ users: number; active: number; numbers: number }>(
      `SELECT (SELECT count(*)::int FROM users) AS users,
              (SELECT count(*)::int FROM users WHERE disabled_at IS NULL) AS active,
              (SELECT count(*)::int FROM phone_numbers) AS numbers`,
    );
    const { users, active, numbers } = rows[0];
    if (active === 0) return warn(`${users} user(s), none active`, 'create one: `npx switchboard users create --name "Ada" --email ada@example.com`');
    if (numbers === 0) return warn(`${active} active user(s), no phone number`, 'add one: `npx switchboard numbers add <user> +4930123456`');
    return ok(`${active} active user(s) of ${users}, ${numbers} phone number(s)`);
  },
};

const publicUrlCheck: Check = {
  name: 'public URL',
  async run({ config, timeoutMs }) {
    const url = config.publicBaseUrl;
    const local = /^https?:\/\/(localhost|127\.|\[::1\])/.test(url);
    let answer: string;
    try {
      const res = await probe(`${url}/health`, {}, timeoutMs);
      if (res.status !== 200) {
        return fail(`${url}/health answered ${res.status}`, 'PUBLIC_BASE_URL must point at this service (check the reverse proxy routes to it)');
      }
      answer = `${url}/health answers`;
    } catch (err) {
      return fail(`${url}/health did not answer (${reason(err)})`, config.PUBLIC_BASE_URL
        ? 'start the service, and check that DNS, the reverse proxy and the firewall lead to it'
        : 'start the service, or set PUBLIC_BASE_URL to the address it is reached at');
    }
    if (!config.PUBLIC_BASE_URL || local) {
      return warn(`${answer}, but it is a local address that carriers and webhook receivers cannot reach`, 'set PUBLIC_BASE_URL to the public https address of this service (see docs/deployment.md)');
    }
    if (!url.startsWith('https://')) return warn(`${answer} over plain http`, 'serve it over https behind a reverse proxy with TLS (docs/deployment.md)');
    return ok(answer);
  },
};

const llmCheck: Check = {
  name: 'LLM',
  async run({ config, timeoutMs }) {
    if (!config.LLM_BASE_URL) {
      return warn('LLM_BASE_URL is not set: calls use the offline stand-in', 'set LLM_BASE_URL (and LLM_API_KEY) to an OpenAI-compatible endpoint, e.g. https://api.openai.com/v1');
    }
    const base = config.LLM_BASE_URL.replace(/\/+$/, '');
    try {
      const res = await probe(`${base}/models`, { headers: config.LLM_API_KEY ? { authorization: `Bearer ${config.LLM_API_KEY}` } : {} }, timeoutMs);
      if (res.status === 401 || res.status === 403) {
        return fail(`${base} refused the key (${res.status})`, config.LLM_API_KEY ? 'LLM_API_KEY is wrong or expired: set a valid key' : 'set LLM_API_KEY');
      }
      if (res.status >= 200 && res.status < 300) return ok(`${base} accepts the key`);
      return warn(`${base}/models answered ${res.status}`, 'check that LLM_BASE_URL is the API base including the version, e.g. https://api.openai.com/v1');
    } catch (err) {
      return fail(`${base} did not answer (${reason(err)})`, 'check LLM_BASE_URL and that this machine can reach it');
    }
  },
};

const sandboxCheck: Check = {
  name: 'carrier: sandbox',
  async run({ config }) {
    return ok(`always available (SANDBOX_TIME_SCALE ${config.SANDBOX_TIME_SCALE})`);
  },
};

/** Every check, in the order printed. Carriers and speech providers add theirs here. */
export const checks: Check[] = [databaseCheck, adminTokenCheck, secretKeyCheck, accountsCheck, publicUrlCheck, llmCheck, sandboxCheck, twilioCheck, voicesCheck, localVoiceCheck(), vadCheck(), turnModelCheck];

export async function runChecks(config: Config, log: Session['log'], list: Check[] = checks, timeoutMs = 5_000): Promise<{ name: string; result: CheckResult }[]> {
  const ctx: DoctorContext = { config, timeoutMs };
  const results: { name: string; result: CheckResult }[] = [];
  let dbError: string | undefined;
  try {
    ctx.target = await openDatabaseTarget(config, log);
    ctx.database = connect(ctx.target.url, { max: 2, applicationName: 'switchboard-doctor' });
    await ctx.database.pool.query('SELECT 1');
  } catch (err) {
    dbError = reason(err);
  }
  try {
    for (const check of list) {
      let result: CheckResult;
      if (check.needsDatabase && dbError !== undefined) {
        result = check === databaseCheck
          ? fail(`cannot connect (${dbError})`, config.DATABASE_URL
            ? 'check DATABASE_URL (host, port, user, password, database) and that PostgreSQL accepts connections from here'
            : 'check DATA_DIR and that this user can read it; see the message above')
          : { status: 'skip', detail: 'needs the database' };
      } else {
        result = await check.run(ctx).catch((err: unknown) => fail(`check failed: ${reason(err)}`, 'see the message'));
      }
      results.push({ name: check.name, result });
    }
  } finally {
    await ctx.database?.close().catch(() => undefined);
    await ctx.target?.release().catch(() => undefined);
  }
  return results;
}

const LABEL: Record<CheckStatus, string> = { ok: 'ok', warn: 'WARN', fail: 'FAIL', skip: 'skip' };

/** Prints the results; returns the exit code. */
export async function doctor(s: Session): Promise<number> {
  const results = await runChecks(s.config, s.log);
  if (s.out.json) {
    s.out.table(results.map(({ name, result }) => ({ check: name, ...result })));
  } else {
    const width = Math.max(...results.map((r) => r.name.length));
    for (const { name, result } of results) {
      s.io.stdout(`${LABEL[result.status].padEnd(4)}  ${name.padEnd(width)}  ${result.detail}\n`);
      if (result.fix) s.io.stdout(`${' '.repeat(width + 8)}fix: ${result.fix}\n`);
    }
  }
  return results.some((r) => r.result.status === 'fail') ? 1 : 0;
}
