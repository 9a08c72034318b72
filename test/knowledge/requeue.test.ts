/**
 * Documents left `processing` are queued again when a process starts, once among processes
 * starting together: the second sweep (another instance starting at the same time) adds no job,
 * and the document is processed once to ready.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { knowledgePart } from '../../src/knowledge/index.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';

let t: TestService;
let alice: TestUser;

beforeAll(async () => {
  t = await startTestService({ parts: [knowledgePart] });
  alice = await t.createUser();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

it('two sweeps at once queue a left-over document once, and it ends up ready', async () => {
  const kb = (await alice.post('/api/user/knowledgebases', { name: 'Left over' })).body.data.id;
  const pool = t.service.ctx.database.pool;
  // As a process without the job queue leaves it: stored, `processing`, no job.
  const { rows: [doc] } = await pool.query<{ id: number; generation: number }>(
    `INSERT INTO knowledge_documents (knowledge_base_id, user_id, type, name, content) VALUES ($1, $2, 'text', 'note', 'The lift is at the back of the building.')
     RETURNING id, generation`,
    [kb, alice.id],
  );
  const ingest = t.service.ctx.services.knowledge!;
  const [first, second] = await Promise.all([ingest.requeueProcessing(), ingest.requeueProcessing()]);
  expect(first + second).toBe(1);
  const { rows: [{ n }] } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pgboss.job WHERE singleton_key = $1', [`requeue:${doc.id}:${doc.generation}`]);
  expect(n).toBe(1);
  let status = 'processing';
  for (let i = 0; i < 300 && status === 'processing'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    status = (await alice.get(`/api/user/knowledgebases/${kb}/documents/${doc.id}`)).body.data.status;
  }
  expect(status).toBe('ready');
});
