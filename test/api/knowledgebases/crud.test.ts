/**
 * Knowledge bases and documents over the API (issue 29): shapes, validation, ownership on every
 * route (a second user gets 404 and changes nothing), the assistant's knowledgebase_id/_mode
 * rules, and deleting a base detaching it from its assistants. Processing itself is
 * test/knowledge/ingest.test.ts; no background part runs here, so documents stay `processing`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalCreate, MULTIMODAL_VOICE } from '../assistants/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
});
afterAll(() => t.close());

const KB = '/api/user/knowledgebases';

async function newKb(user: TestUser = alice, name = 'Clinic') {
  const res = await user.post(KB, { name, description: 'Our practice' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { id: number; status: string };
}

describe('knowledge bases', () => {
  it('create, read, list, rename, delete', async () => {
    const kb = await newKb();
    expect(kb).toMatchObject({ name: 'Clinic', description: 'Our practice', status: 'empty', error: null, documents_count: 0, chunks_count: 0 });
    expect((await alice.get(`${KB}/${kb.id}`)).body.data).toEqual(kb);
    expect((await alice.get(KB)).body.data.map((k: { id: number }) => k.id)).toContain(kb.id);
    const renamed = await alice.put(`${KB}/${kb.id}`, { name: 'Clinic Berlin' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: 'Clinic Berlin', description: 'Our practice' });
    expect((await alice.put(`${KB}/${kb.id}`, { description: '' })).body.data.description).toBeNull();
    expect((await alice.delete(`${KB}/${kb.id}`)).body).toEqual({ message: 'Knowledge base deleted.' });
    expect((await alice.get(`${KB}/${kb.id}`)).status).toBe(404);
  });

  it('validates name and description', async () => {
    const res = await alice.post(KB, { name: '', description: 5 });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['description', 'name']);
    expect((await alice.post(KB, { name: 'x'.repeat(256) })).status).toBe(422);
    expect((await alice.get(`${KB}/abc`)).status).toBe(404);
  });

  it('another user sees none of it and changes nothing, on every route', async () => {
    const kb = await newKb(alice, 'Private');
    const doc = (await alice.post(`${KB}/${kb.id}/documents`, { type: 'text', content: 'Opening hours: 8 to 18.' })).body.data;
    expect((await bob.get(KB)).body.data).toEqual([]);
    const calls: [string, string, unknown?][] = [
      ['GET', `${KB}/${kb.id}`],
      ['PUT', `${KB}/${kb.id}`, { name: 'Stolen' }],
      ['DELETE', `${KB}/${kb.id}`],
      ['GET', `${KB}/${kb.id}/search?q=hours`],
      ['GET', `${KB}/${kb.id}/documents`],
      ['POST', `${KB}/${kb.id}/documents`, { type: 'text', content: 'Injected' }],
      ['GET', `${KB}/${kb.id}/documents/${doc.id}`],
      ['PUT', `${KB}/${kb.id}/documents/${doc.id}`, { name: 'Stolen' }],
      ['DELETE', `${KB}/${kb.id}/documents/${doc.id}`],
    ];
    for (const [method, url, body] of calls) {
      const res = await bob.request(method, url, body);
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body.message).toMatch(/not found/);
    }
    // nor through a base of his own
    const bobs = await newKb(bob, 'Bob');
    expect((await bob.get(`${KB}/${bobs.id}/documents/${doc.id}`)).status).toBe(404);
    expect((await bob.delete(`${KB}/${bobs.id}/documents/${doc.id}`)).status).toBe(404);
    const still = (await alice.get(`${KB}/${kb.id}`)).body.data;
    expect(still).toMatchObject({ name: 'Private', documents_count: 1 });
    expect((await alice.get(`${KB}/${kb.id}/documents/${doc.id}`)).body.data.name).toBe(doc.name);
    // and bob's assistant cannot use alice's base
    const a = await bob.post('/api/user/assistant', { ...minimalCreate, knowledgebase_id: kb.id });
    expect(a.status).toBe(422);
    expect(a.body.errors).toEqual({ knowledgebase_id: ['The selected knowledgebase id is invalid.'] });
  });
});

describe('documents (JSON)', () => {
  it('a text document is stored as processing', async () => {
    const kb = await newKb();
    const res = await alice.post(`${KB}/${kb.id}/documents`, { type: 'text', content: 'We are open Monday to Friday.' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data).toMatchObject({ knowledgebase_id: kb.id, type: 'text', name: 'We are open Monday to Friday.', status: 'processing', chunks_count: 0, size: 29 });
    expect((await alice.get(`${KB}/${kb.id}`)).body.data.status).toBe('processing');
    const renamed = await alice.put(`${KB}/${kb.id}/documents/${res.body.data.id}`, { name: 'Hours' });
    expect(renamed.body).toMatchObject({ message: 'Document updated.', data: { name: 'Hours' } });
    expect((await alice.delete(`${KB}/${kb.id}/documents/${res.body.data.id}`)).status).toBe(200);
    expect((await alice.get(`${KB}/${kb.id}`)).body.data.status).toBe('empty');
  });

  it('refuses what it cannot process, with the field at fault', async () => {
    const kb = await newKb();
    const url = `${KB}/${kb.id}/documents`;
    const cases: [unknown, string][] = [
      [{}, 'type'],
      [{ type: 'video' }, 'type'],
      [{ type: 'text' }, 'content'],
      [{ type: 'website' }, 'url'],
      [{ type: 'website', url: 'ftp://example.test/' }, 'url'],
      [{ type: 'website', url: 'https://example.test/', relative_links_limit: 51 }, 'relative_links_limit'],
      [{ type: 'website', url: 'https://example.test/', links: ['https://example.test/a'] }, 'links'],
      [{ type: 'pdf' }, 'file'],
    ];
    for (const [body, field] of cases) {
      const res = await alice.post(url, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.errors), JSON.stringify(body)).toContain(field);
    }
    expect((await alice.get(url)).body.data).toEqual([]);
  });

  it('an address the service may not reach is refused before anything is stored (SSRF)', async () => {
    const kb = await newKb();
    for (const target of ['http://169.254.169.254/latest/meta-data/', 'http://127.0.0.1:5432/', 'http://[::ffff:10.0.0.1]/']) {
      const res = await alice.post(`${KB}/${kb.id}/documents`, { type: 'website', url: target });
      expect(res.status, target).toBe(422);
      expect(res.body.errors.url[0]).toMatch(/is not allowed/);
    }
    const links = await alice.post(`${KB}/${kb.id}/documents`, { type: 'website', links: ['https://example.test/', 'http://169.254.169.254/'] });
    expect(links.status).toBe(422);
    expect(Object.keys(links.body.errors)).toEqual(['links.1']);
    expect((await alice.get(`${KB}/${kb.id}/documents`)).body.data).toEqual([]);
  });
});

describe('assistants and knowledge bases', () => {
  it('knowledgebase_id must be the caller\'s own base; mode defaults to function_call', async () => {
    const kb = await newKb();
    const created = await alice.post('/api/user/assistant', { ...minimalCreate, knowledgebase_id: kb.id });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({ knowledgebase_id: kb.id, knowledgebase_mode: 'function_call' });
    const id = created.body.data.id;
    expect((await alice.put(`/api/user/assistant/${id}`, { knowledgebase_mode: 'prompt' })).status).toBe(200);
    expect((await alice.get(`/api/user/assistant/${id}`)).body.data).toMatchObject({ knowledgebase_id: kb.id, knowledgebase_mode: 'prompt' });
    const badMode = await alice.put(`/api/user/assistant/${id}`, { knowledgebase_mode: 'search' });
    expect(badMode.status).toBe(422);
    expect(Object.keys(badMode.body.errors)).toEqual(['knowledgebase_mode']);
    const unknownKb = await alice.put(`/api/user/assistant/${id}`, { knowledgebase_id: 999999 });
    expect(unknownKb.body.errors).toEqual({ knowledgebase_id: ['The selected knowledgebase id is invalid.'] });
    expect((await alice.put(`/api/user/assistant/${id}`, { knowledgebase_id: null })).status).toBe(200);
    expect((await alice.get(`/api/user/assistant/${id}`)).body.data.knowledgebase_id).toBeNull();
  });

  it('multimodal assistants take function_call mode only', async () => {
    const kb = await newKb();
    const res = await alice.post('/api/user/assistant', {
      name: 'M', type: 'outbound', mode: 'multimodal', voice_id: MULTIMODAL_VOICE, knowledgebase_id: kb.id, knowledgebase_mode: 'prompt',
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ knowledgebase_mode: ['Only function_call mode is available for multimodal assistants'] });
    const ok = await alice.post('/api/user/assistant', { name: 'M', type: 'outbound', mode: 'multimodal', voice_id: MULTIMODAL_VOICE, knowledgebase_id: kb.id });
    expect(ok.status).toBe(201);
    expect(ok.body.data.knowledgebase_mode).toBe('function_call');
    const later = await alice.put(`/api/user/assistant/${ok.body.data.id}`, { knowledgebase_mode: 'prompt' });
    expect(later.status).toBe(422);
    expect(later.body.errors.knowledgebase_mode).toEqual(['Only function_call mode is available for multimodal assistants']);
  });

  it('deleting a knowledge base detaches it from its assistants', async () => {
    const kb = await newKb();
    const a = (await alice.post('/api/user/assistant', { ...minimalCreate, knowledgebase_id: kb.id, knowledgebase_mode: 'prompt' })).body.data;
    expect((await alice.delete(`${KB}/${kb.id}`)).status).toBe(200);
    expect((await alice.get(`/api/user/assistant/${a.id}`)).body.data).toMatchObject({ knowledgebase_id: null, knowledgebase_mode: 'prompt' });
  });
});
