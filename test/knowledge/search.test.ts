/**
 * Search as the process keeps it between searches: a base's lexicon (document frequencies and
 * the trigrams of its lexemes) and vectors are reused while the base is unchanged and reloaded
 * after a document is re-processed; a misspelt name finds the passage through the lexicon; the
 * cache's size budget bounds what is kept without changing results.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { knowledgePart } from '../../src/knowledge/index.js';
import { KnowledgeSearch } from '../../src/knowledge/search.js';
import { readCapabilities } from '../../src/knowledge/store.js';
import { realArray } from '../../src/knowledge/vectors.js';
import { OpenAiEmbeddings } from '../../src/providers/embeddings/openai.js';
import { EmbeddingsDouble } from '../support/doubles/embeddings.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';

let t: TestService;
let alice: TestUser;
let double: EmbeddingsDouble;
const KB = '/api/user/knowledgebases';

beforeAll(async () => {
  double = await new EmbeddingsDouble(null).start();
  t = await startTestService({ parts: [knowledgePart], env: { EMBEDDINGS_BASE_URL: double.baseUrl, EMBEDDINGS_MODEL: 'hash-512' } });
  alice = await t.createUser();
}, 60_000);
afterAll(async () => {
  await t?.close();
  await double?.close();
});

async function settle(kb: number, docId: number) {
  for (let i = 0; i < 300; i++) {
    const d = (await alice.get(`${KB}/${kb}/documents/${docId}`)).body.data;
    if (d.status !== 'processing') return d;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('still processing');
}

async function addText(kb: number, content: string) {
  const doc = (await alice.post(`${KB}/${kb}/documents`, { type: 'text', content })).body.data;
  expect((await settle(kb, doc.id)).status).toBe('ready');
  return doc.id as number;
}

const search = async (kb: number, q: string) => (await alice.get(`${KB}/${kb}/search?q=${encodeURIComponent(q)}`)).body.data as { content: string }[];

it('a misspelt name finds its passage; words of a re-processed document replace the old ones at once', async () => {
  const kb = (await alice.post(KB, { name: 'Clinic' })).body.data.id;
  await addText(kb, '# Team\n\nDr. Anna Lindqvist founded the practice in 2009 and places implants.');
  const doc = await addText(kb, '# Parking\n\nThe car park behind the building is free for patients.');
  expect((await search(kb, 'Lindquist'))[0].content).toContain('Lindqvist');
  expect((await search(kb, 'car park'))[0].content).toContain('car park');

  const put = await alice.put(`${KB}/${kb}/documents/${doc}`, { content: '# Bicycles\n\nBicycle stands are at the entrance.' });
  expect(put.status).toBe(200);
  await settle(kb, doc);
  expect((await search(kb, 'bicycle stands'))[0].content).toContain('Bicycle stands');
  expect((await search(kb, 'car park')).some((h) => h.content.includes('car park'))).toBe(false);
  // and the misspelling now comes from the reloaded lexicon
  expect((await search(kb, 'Lindquist'))[0].content).toContain('Lindqvist');
});

it('a budget too small to keep anything gives the same results, by full text and by vectors', async () => {
  const kb = (await alice.post(KB, { name: 'Budget' })).body.data.id;
  await addText(kb, '# Implantologie\n\nImplantatversorgung mit Keramik.');
  await addText(kb, '# Hours\n\nOpen on weekdays from eight.');
  const pool = t.service.ctx.database.pool;
  const caps = await readCapabilities(pool);
  const embedder = new OpenAiEmbeddings({ baseUrl: double.baseUrl, model: 'hash-512' });
  const roomy = new KnowledgeSearch(pool, caps, embedder);
  const tiny = new KnowledgeSearch(pool, caps, embedder, { vectorBytes: 16, lexiconBytes: 16 });
  for (const q of ['weekdays', 'Implantatversorgng', 'tell me about implant options']) {
    const expected = (await roomy.search(kb, q, 5)).map((h) => h.chunkId);
    expect(expected.length).toBeGreaterThan(0);
    for (let i = 0; i < 2; i++) expect((await tiny.search(kb, q, 5)).map((h) => h.chunkId)).toEqual(expected);
  }
});

it('warm loads a base for the next search: the same results as a search that loaded it itself', async () => {
  const kb = (await alice.post(KB, { name: 'Warm' })).body.data.id;
  await addText(kb, '# Lift\n\nThe lift to the second floor is next to the pharmacy.');
  const pool = t.service.ctx.database.pool;
  const caps = await readCapabilities(pool);
  const warmed = new KnowledgeSearch(pool, caps, null);
  await warmed.warm(kb);
  const cold = new KnowledgeSearch(pool, caps, null);
  const expected = (await cold.search(kb, 'Where is the pharmasy?', 5)).map((h) => h.chunkId);
  expect(expected.length).toBe(1);
  expect((await warmed.search(kb, 'Where is the pharmasy?', 5)).map((h) => h.chunkId)).toEqual(expected);
});

it("a processed document's words are merged into the full-text index proper, none left in its pending list", async () => {
  // GIN's pending list made the planner read every chunk of a freshly filled base (docs/decisions.md
  // "Knowledge search speed, part 2"); processing merges it, so there is nothing left to merge.
  const kb = (await alice.post(KB, { name: 'Index' })).body.data.id;
  const paragraphs = Array.from({ length: 60 }, (_, i) => `## Room ${i}\n\nRoom ${i} holds chair number ${i * 7} and the x-ray unit ${i}b for the morning team.`);
  await addText(kb, paragraphs.join('\n\n'));
  const pool = t.service.ctx.database.pool;
  const { rows: [{ chunks }] } = await pool.query<{ chunks: number }>('SELECT count(*)::int AS chunks FROM knowledge_chunks WHERE knowledge_base_id = $1', [kb]);
  expect(chunks).toBeGreaterThan(1);
  const { rows: [{ pages }] } = await pool.query<{ pages: string }>(`SELECT gin_clean_pending_list('knowledge_chunks_tsv_idx'::regclass) AS pages`);
  expect(Number(pages)).toBe(0);
  expect((await search(kb, 'chair number 413'))[0].content).toContain('chair number 413');
});

it("vectors are read in real[]'s binary form, as PostgreSQL sends it; arrays that are no vector are none", async () => {
  const pool = t.service.ctx.database.pool;
  const read = async (literal: string) => {
    const { rows: [row] } = await pool.query<{ b: Buffer }>(`SELECT array_send(${literal}::real[]) AS b`);
    return realArray(row.b);
  };
  expect(Array.from((await read(`'{0.5,-1.25,3e-8,-0,1e30}'`))!)).toEqual([0.5, -1.25, Math.fround(3e-8), -0, Math.fround(1e30)]);
  const long = Array.from({ length: 512 }, (_, i) => Math.fround(Math.sin(i)));
  expect(Array.from((await read(`'{${long.join(',')}}'`))!)).toEqual(long);
  expect(Array.from((await read(`'{}'`))!)).toEqual([]);
  expect(await read(`'{1,NULL}'`)).toBeNull();
  expect(await read(`'{{1,2},{3,4}}'`)).toBeNull();
});
