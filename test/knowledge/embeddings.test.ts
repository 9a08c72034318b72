/**
 * With an embeddings server configured (EMBEDDINGS_BASE_URL, OpenAI-compatible /v1/embeddings;
 * here the local double), documents' chunks get vectors and search also ranks by them; a query
 * only the vectors can answer (no shared word, a shared word stem) is found. When the server
 * fails, documents are still indexed for full-text search.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { knowledgePart } from '../../src/knowledge/index.js';
import { EmbeddingsDouble } from '../support/doubles/embeddings.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';

let t: TestService;
let alice: TestUser;
let double: EmbeddingsDouble;
const KB = '/api/user/knowledgebases';

beforeAll(async () => {
  double = await new EmbeddingsDouble('emb-key').start();
  t = await startTestService({ parts: [knowledgePart], env: { EMBEDDINGS_BASE_URL: double.baseUrl, EMBEDDINGS_API_KEY: 'emb-key', EMBEDDINGS_MODEL: 'hash-512' } });
  alice = await t.createUser();
}, 60_000);
afterAll(async () => {
  await t?.close();
  await double?.close();
});

async function ready(kb: number, content: string) {
  const doc = (await alice.post(`${KB}/${kb}/documents`, { type: 'text', content })).body.data;
  for (let i = 0; i < 200; i++) {
    const d = (await alice.get(`${KB}/${kb}/documents/${doc.id}`)).body.data;
    if (d.status !== 'processing') return d;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('still processing');
}

it('chunks get vectors and search uses them', async () => {
  const kb = (await alice.post(KB, { name: 'K' })).body.data.id;
  const doc = await ready(kb, '# Implantologie\n\nImplantatversorgung mit Keramik.\n\n# Hours\n\nOpen on weekdays.');
  expect(doc.status).toBe('ready');
  const { rows } = await t.service.ctx.database.pool.query('SELECT array_length(embedding, 1) AS dims FROM knowledge_chunks WHERE document_id = $1', [doc.id]);
  expect(rows.map((r) => r.dims)).toEqual([512, 512]);
  const before = double.requests;
  // no lexeme in common with "Implantatversorgung" and too long for the trigram list: only the vectors find it
  const hits = (await alice.get(`${KB}/${kb}/search?q=${encodeURIComponent("tell me about implant options")}`)).body.data;
  expect(double.requests).toBe(before + 1);
  expect(hits[0].heading).toBe('Implantologie');
});

it('a failing embeddings server leaves documents indexed for full text', async () => {
  const kb = (await alice.post(KB, { name: 'K2' })).body.data.id;
  await double.close();
  const doc = await ready(kb, 'Parking is free behind the building.');
  expect(doc.status).toBe('ready');
  const hits = (await alice.get(`${KB}/${kb}/search?q=parking`)).body.data;
  expect(hits[0].content).toContain('Parking is free');
});
