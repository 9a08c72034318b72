/**
 * Foundation benchmark: GET /api/user/me and GET /api/user/assistants/languages on the
 * embedded and on the external PostgreSQL, against a bare Fastify hello-world (the ceiling).
 * Each server runs in its own process, and so does autocannon (generateLoad in lib.ts).
 *
 * The service runs at its defaults (LOG_LEVEL=info, one JSON line per request to a file),
 * except the per-token rate limit (300 a minute): one token drives all the load, so it is
 * off (RATE_LIMIT_PER_MINUTE=0). The last row is what logging at `info` costs: the same
 * route on a second service at LOG_LEVEL=warn, measured alternately with the first (ABAB, so
 * a change in the machine's load falls on both).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createUserToken, freshExternalDatabase, load, printTable, root, settingsNote, spawnService, tempDir, type LoadResult, type Row } from './lib.js';
import { freePort } from '../src/db/embedded.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** GET /api/user/me must reach this share of the bare-Fastify ceiling at the defaults (issue 31). */
const TARGET_SHARE = 0.4;
/** …and logging at `info` may cost at most this share of the throughput at `warn`. */
const TARGET_INFO_COST = 0.1;

export const settings = settingsNote({ RATE_LIMIT_PER_MINUTE: '0 (one token drives all the load; the default is 300 a minute)' });
const BENCH_ENV = { RATE_LIMIT_PER_MINUTE: '0' };

async function helloWorldCeiling(): Promise<number> {
  const port = await freePort();
  const script = `
    import Fastify from 'fastify';
    const app = Fastify();
    app.get('/hello', async () => ({ hello: 'world' }));
    await app.listen({ port: ${port}, host: '127.0.0.1' });
  `;
  const file = path.join(root, 'bench', '.hello-world.mjs');
  fs.writeFileSync(file, script);
  const child = spawn(process.execPath, [file], { cwd: root, stdio: 'ignore' });
  try {
    for (let i = 0; i < 100; i++) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/hello`)).ok) break;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const r = await load(`http://127.0.0.1:${port}/hello`, { connections: CONNECTIONS, seconds: SECONDS });
    return r.reqPerSec;
  } finally {
    child.kill('SIGKILL');
    fs.rmSync(file, { force: true });
  }
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

export async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  const ceiling = await helloWorldCeiling();
  rows.push({ database: '-', route: 'GET /hello (bare Fastify)', 'log level': '-', 'req/s': ceiling, 'p50 ms': '-', 'p99 ms': '-', errors: 0, 'vs ceiling': '100%', target: '' });

  const targets: { name: string; env: Record<string, string>; cleanup: () => Promise<void>; token?: string }[] = [];
  const dataDir = tempDir('switchboard-bench-');
  targets.push({ name: 'embedded', env: { DATA_DIR: dataDir }, cleanup: async () => fs.rmSync(dataDir, { recursive: true, force: true }) });
  try {
    const ext = await freshExternalDatabase();
    targets.push({ name: 'external', env: { DATABASE_URL: ext.url, ADMIN_TOKEN: 'bench-admin-token-0123456789' }, cleanup: ext.drop });
  } catch (err) {
    console.warn(`external PostgreSQL unavailable, skipped: ${(err as Error).message}`);
  }

  const me = '/api/user/me';
  let infoCost: Row | undefined;
  for (const target of targets) {
    const svc = await spawnService({ ...BENCH_ENV, ...target.env });
    try {
      let token = /Demo user token:\s+(\S+)/.exec(svc.stdout)?.[1];
      if (!token) token = await createUserToken(svc.url, target.env.ADMIN_TOKEN);
      const headers = { authorization: `Bearer ${token}` };
      for (const route of [me, '/api/user/assistants/languages']) {
        const r = await load(svc.url + route, { connections: CONNECTIONS, seconds: SECONDS, headers });
        const share = r.reqPerSec / ceiling;
        rows.push({
          database: target.name,
          route: `GET ${route}`,
          'log level': 'info (default)',
          'req/s': r.reqPerSec,
          'p50 ms': r.p50,
          'p99 ms': r.p99,
          errors: r.errors + r.non2xx,
          'vs ceiling': pct(share),
          target: route === me ? `>= ${pct(TARGET_SHARE)}: ${share >= TARGET_SHARE ? 'met' : 'MISSED'}` : '',
        });
      }
      if (target.name === 'embedded') infoCost = await costOfInfo({ pid: svc.process.pid! }, svc.url, headers);
    } finally {
      await svc.stop();
      await target.cleanup();
    }
  }
  if (infoCost) rows.push(infoCost);
  return rows;
}

/** Rounds of the info-vs-warn comparison (each one run on each service). */
const COST_ROUNDS = Number(process.env.BENCH_COST_ROUNDS ?? 3);

interface Measured {
  reqPerSec: number;
  requests: number;
  errors: number;
  /** CPU time (user + system) the service's process spent during the run. */
  cpuMs: number;
}

/** CPU time of a process so far, from /proc (clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function measured(pid: number, url: string, headers: Record<string, string>): Promise<Measured> {
  const before = cpuMsOf(pid);
  const r: LoadResult = await load(url + '/api/user/me', { connections: CONNECTIONS, seconds: SECONDS, headers });
  return { reqPerSec: r.reqPerSec, requests: r.reqPerSec * SECONDS, errors: r.errors + r.non2xx, cpuMs: cpuMsOf(pid) - before };
}

/**
 * GET /api/user/me on the service at `info` (`infoUrl`, running) and on a second one at
 * `warn` (own embedded database), alternately, COST_ROUNDS runs each: info's throughput against
 * warn's, and the CPU time each spent per request (/proc), which the machine's other load moves less.
 */
async function costOfInfo(info: { pid: number }, infoUrl: string, headers: Record<string, string>): Promise<Row> {
  const dir = tempDir('switchboard-bench-warn-');
  const warn = await spawnService({ ...BENCH_ENV, DATA_DIR: dir, LOG_LEVEL: 'warn' });
  try {
    const warnToken = /Demo user token:\s+(\S+)/.exec(warn.stdout)?.[1];
    const runs: { info: Measured[]; warn: Measured[] } = { info: [], warn: [] };
    for (let i = 0; i < COST_ROUNDS; i++) {
      runs.info.push(await measured(info.pid, infoUrl, headers));
      runs.warn.push(await measured(warn.process.pid!, warn.url, { authorization: `Bearer ${warnToken}` }));
    }
    const total = (ms: Measured[]) => ({ requests: ms.reduce((n, m) => n + m.requests, 0), cpuMs: ms.reduce((n, m) => n + m.cpuMs, 0) });
    const [i, w] = [total(runs.info), total(runs.warn)];
    const [infoRate, warnRate] = [i.requests / (COST_ROUNDS * SECONDS), w.requests / (COST_ROUNDS * SECONDS)];
    const cost = 1 - infoRate / warnRate;
    const [infoUs, warnUs] = [(i.cpuMs * 1000) / i.requests, (w.cpuMs * 1000) / w.requests];
    return {
      database: 'embedded',
      route: `GET /api/user/me: info vs warn (alternating, ${COST_ROUNDS}×${SECONDS} s each)`,
      'log level': `info ${runs.info.map((r) => r.reqPerSec).join('/')}, warn ${runs.warn.map((r) => r.reqPerSec).join('/')}`,
      'req/s': `${Math.round(infoRate)} vs ${Math.round(warnRate)}`,
      'p50 ms': '-',
      'p99 ms': '-',
      errors: [...runs.info, ...runs.warn].reduce((n, r) => n + r.errors, 0),
      'vs ceiling': `CPU/request ${infoUs.toFixed(0)} vs ${warnUs.toFixed(0)} µs (+${((infoUs / warnUs - 1) * 100).toFixed(1)}%)`,
      target: `cost ${(cost * 100).toFixed(1)}% <= ${pct(TARGET_INFO_COST)}: ${cost <= TARGET_INFO_COST ? 'met' : 'MISSED'}`,
    };
  } finally {
    await warn.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printTable(`Foundation (${CONNECTIONS} connections, ${SECONDS} s each)`, await run(), settings);
}
