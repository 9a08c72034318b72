/**
 * Ingestion on the job queue (issue 29), on real files made here: a PDF (pdf-lib), a DOCX
 * (docx), a text, and a small local website with links, robots.txt, a redirect and links off
 * its origin. A document with no text, a corrupt PDF, a file that is not what it claims, an
 * oversized upload and an address the service may not reach each get a clear error and change
 * nothing searchable.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knowledgePart } from '../../src/knowledge/index.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';
import { makeDocx, makePdf, upload } from './files.js';

let t: TestService;
let alice: TestUser;
let site: http.Server;
let other: http.Server;
let siteUrl: string;
let otherUrl: string;
const hits: string[] = [];

const KB = '/api/user/knowledgebases';

function page(title: string, body: string, links: string[] = []): string {
  return `<!doctype html><html><head><title>${title}</title></head><body><nav><a href="/">Home</a></nav>
    <h1>${title}</h1>${body}${links.map((l) => `<p><a href="${l}">${l}</a></p>`).join('')}</body></html>`;
}

beforeAll(async () => {
  other = http.createServer((req, res) => {
    hits.push(`other ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/html' }).end(page('Elsewhere', '<p>Off-origin page about quantum bananas.</p>'));
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  site = http.createServer((req, res) => {
    hits.push(`site ${req.url}`);
    const html = (s: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(s);
    switch (req.url) {
      case '/robots.txt':
        return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n');
      case '/':
        return html(page('Praxis Sonnenhof', '<p>Welcome to our dental clinic in Berlin.</p>',
          ['/prices', '/team', '/private/staff', `${otherUrl}/away`, '/moved', 'mailto:info@example.test', '/prices#cleaning']));
      case '/prices':
        return html(page('Prices', '<h2>Dental hygiene</h2><p>A professional teeth cleaning costs 89 euros.</p>', ['/team']));
      case '/team':
        return html(page('Team', '<p>Dr. Anna Lindqvist leads the practice.</p>'));
      case '/moved':
        return res.writeHead(301, { location: '/opening-hours' }).end();
      case '/opening-hours':
        return html(page('Opening hours', '<p>We are open Monday to Friday from 8 to 18.</p>'));
      case '/private/staff':
        return html(page('Staff only', '<p>Secret staff rota.</p>'));
      default:
        return res.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  // The local website lives on 127.0.0.1, which only ALLOW_PRIVATE_TARGETS lets through.
  t = await startTestService({ parts: [knowledgePart], env: { ALLOW_PRIVATE_TARGETS: 'true', KNOWLEDGE_MAX_DOCUMENT_MB: '0.05' } });
  alice = await t.createUser({ name: 'Alice' });
}, 60_000);
afterAll(async () => {
  await t?.close();
  site?.close();
  other?.close();
});

async function newKb(): Promise<number> {
  return (await alice.post(KB, { name: 'Clinic' })).body.data.id;
}

async function settled(kb: number, doc: number) {
  for (let i = 0; i < 200; i++) {
    const d = (await alice.get(`${KB}/${kb}/documents/${doc}`)).body.data;
    if (d.status !== 'processing') return d;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`document ${doc} still processing`);
}

async function search(kb: number, q: string) {
  const res = await alice.get(`${KB}/${kb}/search?q=${encodeURIComponent(q)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { document_id: number; document_name: string; heading: string; content: string; snippet: string; source: string | null }[];
}

async function chunkCount(kb: number): Promise<number> {
  const { rows } = await t.service.ctx.database.pool.query('SELECT count(*)::int AS n FROM knowledge_chunks WHERE knowledge_base_id = $1', [kb]);
  return rows[0].n;
}

describe('files', () => {
  it('a PDF is read, chunked and found', async () => {
    const kb = await newKb();
    const pdf = await makePdf([['Opening hours', 'We are open Monday to Friday from 8:00 to 18:00.'], ['Emergency line', 'Call +49 30 1234567 at night.']]);
    const res = await upload(t, alice.token, kb, pdf, 'info.pdf');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data).toMatchObject({ type: 'pdf', name: 'info.pdf', file_name: 'info.pdf', status: 'processing', size: pdf.length });
    const doc = await settled(kb, res.body.data.id);
    expect(doc).toMatchObject({ status: 'ready', error: null });
    expect(doc.chunks_count).toBeGreaterThan(0);
    const [hit] = await search(kb, 'When are you open?');
    expect(hit.document_id).toBe(doc.id);
    expect(hit.content).toContain('Monday to Friday');
    expect(hit).toMatchObject({ document_name: 'info.pdf', source: null });
    expect(hit.snippet).toContain('open Monday');
    expect((await alice.get(`${KB}/${kb}`)).body.data).toMatchObject({ status: 'ready', documents_count: 1, chunks_count: doc.chunks_count });
  });

  it('a DOCX keeps its headings', async () => {
    const kb = await newKb();
    const docx = await makeDocx([
      { heading: 'Preise', paragraphs: ['Eine professionelle Zahnreinigung kostet 89 Euro.'] },
      { heading: 'Team', paragraphs: ['Dr. Anna Lindqvist leitet die Praxis.'] },
    ]);
    const res = await upload(t, alice.token, kb, docx, 'praxis.docx', { name: 'Praxis' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.type).toBe('docx');
    expect(await settled(kb, res.body.data.id)).toMatchObject({ status: 'ready', name: 'Praxis' });
    const [hit] = await search(kb, 'Was kostet eine Zahnreinigung?');
    expect(hit).toMatchObject({ heading: 'Preise' });
    expect(hit.content).toContain('89 Euro');
    expect((await search(kb, 'Lindqvst'))[0]?.heading).toBe('Team'); // misspelt: found by the trigram list
  });

  it('a text document and its re-processing, which replaces its chunks at once', async () => {
    const kb = await newKb();
    const created = (await alice.post(`${KB}/${kb}/documents`, { type: 'text', content: '# Parking\n\nFree parking behind the building.' })).body.data;
    await settled(kb, created.id);
    expect((await search(kb, 'parking'))[0].heading).toBe('Parking');
    const changed = await alice.put(`${KB}/${kb}/documents/${created.id}`, { content: '# Parking\n\nParking costs 2 euros per hour in the garage.' });
    expect(changed.body).toMatchObject({ message: 'Document updated; it is being processed again.', data: { status: 'processing' } });
    await settled(kb, created.id);
    const hits2 = await search(kb, 'parking');
    expect(hits2).toHaveLength(1);
    expect(hits2[0].content).toContain('2 euros');
  });
});

describe('errors change nothing', () => {
  it('a PDF without text fails with the reason; nothing is indexed', async () => {
    const kb = await newKb();
    const res = await upload(t, alice.token, kb, await makePdf([[]]), 'scan.pdf');
    expect(res.status).toBe(201);
    expect(await settled(kb, res.body.data.id)).toMatchObject({ status: 'failed', error: 'The document contains no text that could be extracted.', chunks_count: 0 });
    expect((await alice.get(`${KB}/${kb}`)).body.data).toMatchObject({ status: 'failed', error: 'The document contains no text that could be extracted.' });
    expect(await chunkCount(kb)).toBe(0);
  });

  it('a corrupt PDF fails with the reason; a file that is no PDF at all is refused', async () => {
    const kb = await newKb();
    const good = await makePdf([['Some text']]);
    const res = await upload(t, alice.token, kb, good.subarray(0, 200), 'broken.pdf');
    expect(res.status).toBe(201);
    const doc = await settled(kb, res.body.data.id);
    expect(doc.status).toBe('failed');
    expect(doc.error).toMatch(/^The PDF could not be read/);
    const fake = await upload(t, alice.token, kb, Buffer.from('just text pretending'), 'fake.pdf');
    expect(fake).toMatchObject({ status: 422, body: { errors: { file: ['The file is not a PDF.'] } } });
    const noType = await upload(t, alice.token, kb, Buffer.from('hello'), 'notes.bin');
    expect(noType.status).toBe(422);
    expect(Object.keys(noType.body.errors)).toEqual(['type']);
    expect((await alice.get(`${KB}/${kb}/documents`)).body.data).toHaveLength(1);
    expect(await chunkCount(kb)).toBe(0);
  });

  it('an upload over KNOWLEDGE_MAX_DOCUMENT_MB is a 413 and stores nothing', async () => {
    const kb = await newKb();
    const big = Buffer.from('x '.repeat(40_000)); // 80 kB against 0.05 MB
    const res = await upload(t, alice.token, kb, big, 'big.txt');
    expect(res).toEqual({ status: 413, body: { message: 'The file may be at most 0.05 MB.' } });
    expect((await alice.get(`${KB}/${kb}/documents`)).body.data).toEqual([]);
  });
});

describe('websites', () => {
  it('crawls the origin from the start page: robots.txt obeyed, off-origin links and redirects off the site not followed', async () => {
    const kb = await newKb();
    hits.length = 0;
    const res = await alice.post(`${KB}/${kb}/documents`, { type: 'website', url: `${siteUrl}/` });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data).toMatchObject({ relative_links_limit: 10, name: `${siteUrl.replace('http://', '')}/` });
    const doc = await settled(kb, res.body.data.id);
    expect(doc.status, doc.error).toBe('ready');
    expect(doc.pages.sort()).toEqual([`${siteUrl}/`, `${siteUrl}/moved`, `${siteUrl}/prices`, `${siteUrl}/team`].sort());
    expect(hits).toContain('site /robots.txt');
    expect(hits).not.toContain('site /private/staff');
    expect(hits.some((h) => h.startsWith('other'))).toBe(false);
    const [price] = await search(kb, 'How much is a teeth cleaning?');
    expect(price).toMatchObject({ heading: 'Prices › Dental hygiene', source: `${siteUrl}/prices` });
    expect((await search(kb, 'staff rota')).length).toBe(0);
    expect((await search(kb, 'opening hours Monday'))[0].content).toContain('Monday to Friday');
  });

  it('relative_links_limit bounds the pages read; links[] reads exactly those pages', async () => {
    const kb = await newKb();
    const limited = (await alice.post(`${KB}/${kb}/documents`, { type: 'website', url: `${siteUrl}/`, relative_links_limit: 1 })).body.data;
    expect((await settled(kb, limited.id)).pages).toEqual([`${siteUrl}/`, `${siteUrl}/prices`]);
    const listed = (await alice.post(`${KB}/${kb}/documents`, { type: 'website', links: [`${siteUrl}/team`] })).body.data;
    expect((await settled(kb, listed.id)).pages).toEqual([`${siteUrl}/team`]);
  });

  it('a start page that cannot be read fails with the reason', async () => {
    const kb = await newKb();
    const missing = (await alice.post(`${KB}/${kb}/documents`, { type: 'website', url: `${siteUrl}/nowhere` })).body.data;
    expect(await settled(kb, missing.id)).toMatchObject({ status: 'failed', error: `${siteUrl}/nowhere answered HTTP 404` });
    const robots = (await alice.post(`${KB}/${kb}/documents`, { type: 'website', url: `${siteUrl}/private/staff` })).body.data;
    expect((await settled(kb, robots.id)).error).toBe(`robots.txt of ${siteUrl} does not allow ${siteUrl}/private/staff`);
    expect(await chunkCount(kb)).toBe(0);
  });
});
