/**
 * A process killed (SIGKILL) in the middle of processing a document (issue 29): while it is
 * dead the document is `processing` and nothing of it is searchable (no half-indexed document);
 * the next process to start processes it again from its source, and it ends up ready with each
 * passage once. The real entry point (src/main.ts) runs on a test database; the website it
 * crawls holds its second page until the process is killed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMain, stopMain, type MainProcess } from '../support/main-process.js';
import { createTestDatabase, dropTestDatabase } from '../support/service.js';

const ADMIN = 'sigkill-admin-token-0123456789abcdef';
let databaseUrl: string;
let site: http.Server;
let siteUrl: string;
let hold = true;
let held: () => void = () => {};
const heldRequest = new Promise<void>((r) => (held = r));
let main: MainProcess | null = null;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  site = http.createServer((req, res) => {
    const html = (title: string, body: string) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`);
    if (req.url === '/') return html('Home', '<p>The clinic welcomes patients with toothache.</p><a href="/prices">Prices</a>');
    if (req.url === '/prices') {
      if (hold) {
        held();
        return; // never answered: the process is killed while it waits here
      }
      return html('Prices', '<p>Root canal treatment costs 450 euros.</p>');
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  if (main && main.child.exitCode === null) await stopMain(main.child);
  site?.closeAllConnections();
  site?.close();
  await dropTestDatabase(databaseUrl);
});

const env = () => ({ DATABASE_URL: databaseUrl, ADMIN_TOKEN: ADMIN, ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'warn' });

async function call(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${main!.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}

it('a document whose process was killed mid-way is never half searchable and is processed by the next start', async () => {
  main = await startMain(env());
  const user = await call('POST', '/api/admin/users', ADMIN, { name: 'K', email: 'k@example.test' });
  const token = user.body.token as string;
  const kb = (await call('POST', '/api/user/knowledgebases', token, { name: 'Clinic' })).body.data.id;
  const doc = (await call('POST', `/api/user/knowledgebases/${kb}/documents`, token, { type: 'website', url: `${siteUrl}/` })).body.data.id;

  await heldRequest; // the first page is read, the second is being fetched
  main.child.kill('SIGKILL');
  await new Promise((r) => main!.child.once('exit', r));

  hold = false;
  main = await startMain(env());
  // Processing again, or already done if the new start's run was quick: never failed, never half.
  expect(['processing', 'ready']).toContain((await call('GET', `/api/user/knowledgebases/${kb}/documents/${doc}`, token)).body.data.status);
  // Until the new run commits, nothing of the document is searchable; then all of it is.
  let status = 'processing';
  for (let i = 0; i < 200 && status === 'processing'; i++) {
    const found = (await call('GET', `/api/user/knowledgebases/${kb}/search?q=toothache`, token)).body.data;
    status = (await call('GET', `/api/user/knowledgebases/${kb}/documents/${doc}`, token)).body.data.status;
    if (status === 'processing') expect(found).toEqual([]);
    else break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const ready = (await call('GET', `/api/user/knowledgebases/${kb}/documents/${doc}`, token)).body.data;
  expect(ready).toMatchObject({ status: 'ready', pages: [`${siteUrl}/`, `${siteUrl}/prices`] });
  const hits = (await call('GET', `/api/user/knowledgebases/${kb}/search?q=${encodeURIComponent('root canal price')}&limit=10`, token)).body.data;
  expect(hits[0].content).toContain('450 euros');
  // each passage once: the killed run wrote nothing, the new one replaced nothing twice
  const all = (await call('GET', `/api/user/knowledgebases/${kb}`, token)).body.data;
  expect(all.chunks_count).toBe(ready.chunks_count);
  expect(new Set(hits.map((h: { chunk_id: number }) => h.chunk_id)).size).toBe(hits.length);
}, 120_000);
