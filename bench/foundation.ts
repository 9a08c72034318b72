/**
 * Foundation benchmark: GET /api/user/me and GET /api/user/assistants/languages on the
 * embedded and on the external PostgreSQL, against a bare Fastify hello-world (the ceiling).
 * Each server runs in its own process, and so does autocannon (generateLoad in lib.ts).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createUserToken, freshExternalDatabase, load, printTable, root, spawnService, tempDir, type Row } from './lib.js';
import { freePort } from '../src/db/embedded.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

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

export async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  const ceiling = await helloWorldCeiling();
  rows.push({ database: '-', route: 'GET /hello (bare Fastify)', 'req/s': ceiling, 'p50 ms': '-', 'p99 ms': '-', errors: 0, 'vs ceiling': '100%' });

  const targets: { name: string; env: Record<string, string>; cleanup: () => Promise<void>; token?: string }[] = [];
  const dataDir = tempDir('switchboard-bench-');
  targets.push({ name: 'embedded', env: { DATA_DIR: dataDir }, cleanup: async () => fs.rmSync(dataDir, { recursive: true, force: true }) });
  try {
    const ext = await freshExternalDatabase();
    targets.push({ name: 'external', env: { DATABASE_URL: ext.url, ADMIN_TOKEN: 'bench-admin-token-0123456789' }, cleanup: ext.drop });
  } catch (err) {
    console.warn(`external PostgreSQL unavailable, skipped: ${(err as Error).message}`);
  }

  for (const target of targets) {
    const svc = await spawnService(target.env);
    try {
      let token = /Demo user token:\s+(\S+)/.exec(svc.stdout)?.[1];
      if (!token) token = await createUserToken(svc.url, target.env.ADMIN_TOKEN);
      for (const route of ['/api/user/me', '/api/user/assistants/languages']) {
        const r = await load(svc.url + route, { connections: CONNECTIONS, seconds: SECONDS, headers: { authorization: `Bearer ${token}` } });
        rows.push({
          database: target.name,
          route: `GET ${route}`,
          'req/s': r.reqPerSec,
          'p50 ms': r.p50,
          'p99 ms': r.p99,
          errors: r.errors + r.non2xx,
          'vs ceiling': `${Math.round((r.reqPerSec / ceiling) * 100)}%`,
        });
      }
    } finally {
      await svc.stop();
      await target.cleanup();
    }
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printTable(`Foundation (${CONNECTIONS} connections, ${SECONDS} s each)`, await run());
}
