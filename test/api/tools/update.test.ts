import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { ISO_MICRO, validTool } from './helpers.js';

let t: TestService;
let alice: TestUser;
let tool: Record<string, any>;

const HEADERS = [{ name: 'Authorization', value: 'Bearer k1' }];
const SCHEMA = [{ name: 'city', type: 'string', description: 'The city' }];

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ max_tools: 1000 });
});
afterAll(() => t.close());
beforeEach(async () => {
  const res = await alice.post('/api/user/tools', validTool({ timeout: 20, headers: HEADERS, schema: SCHEMA }));
  expect(res.status).toBe(201);
  tool = res.body.data;
});

const update = (body: unknown, id: unknown = tool.id) => alice.put(`/api/user/tools/${id}`, body);

/** Expects 422 "Validierung fehlgeschlagen" with exactly these errors, and the tool unchanged. */
async function expectInvalid(body: Record<string, unknown>, errors: Record<string, string[]>) {
  const res = await update(body);
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body).toEqual({ message: 'Validierung fehlgeschlagen', errors });
  expect((await alice.get(`/api/user/tools/${tool.id}`)).body).toEqual(tool);
}

describe('PUT /api/user/tools/{id}', () => {
  it('changes only the supplied fields and answers with all current values', async () => {
    const res = await update({ description: 'A new description' });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Tool erfolgreich aktualisiert');
    expect(res.body.data).toEqual({ ...tool, description: 'A new description', updated_at: res.body.data.updated_at });
    expect(res.body.data.updated_at).toMatch(ISO_MICRO);
    expect(res.body.data.updated_at > tool.updated_at).toBe(true);
    expect(res.body.data.created_at).toBe(tool.created_at);
    expect((await alice.get(`/api/user/tools/${tool.id}`)).body).toEqual(res.body.data);
  });

  it('keeps timeout unless supplied (no reset to the default 10)', async () => {
    const res = await update({ name: 'renamed_tool' });
    expect(res.body.data).toMatchObject({ name: 'renamed_tool', timeout: 20, headers: HEADERS, schema: SCHEMA });
  });

  it('updates every field at once', async () => {
    const body = {
      name: 'book_table',
      description: 'Book a table',
      endpoint: 'http://localhost:9000/book',
      method: 'PATCH',
      timeout: 30,
      headers: [{ name: 'X-Key', value: 'v2' }],
      schema: [{ name: 'guests', type: 'number', description: 'Number of guests' }],
    };
    const res = await update(body);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject(body);
  });

  it('replaces headers and schema when supplied, also with empty lists', async () => {
    const newHeaders = [{ name: 'X-One', value: '1' }, { name: 'X-Two', value: '2' }];
    let res = await update({ headers: newHeaders });
    expect(res.body.data.headers).toEqual(newHeaders);
    expect(res.body.data.schema).toEqual(SCHEMA);
    res = await update({ headers: [], schema: [] });
    expect(res.body.data).toMatchObject({ headers: [], schema: [] });
  });

  it('treats null for timeout, headers and schema as not supplied', async () => {
    const res = await update({ timeout: null, headers: null, schema: null });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(tool);
  });

  it('leaves updated_at alone when nothing changes (empty body, same values)', async () => {
    for (const body of [{}, { name: tool.name, timeout: 20, headers: HEADERS, schema: SCHEMA }]) {
      const res = await update(body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Tool erfolgreich aktualisiert', data: tool });
    }
  });

  it('ignores unknown body fields, also id and timestamps', async () => {
    const res = await update({ id: 424242, user_id: 1, created_at: '2000-01-01T00:00:00.000000Z', colour: 'blue', timeout: 7 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: tool.id, created_at: tool.created_at, timeout: 7 });
    expect(res.body.data).not.toHaveProperty('colour');
  });

  it('accepts the edges: timeout 1 and 30, description 255, parameter names 2 and 32', async () => {
    expect((await update({ timeout: 1 })).body.data.timeout).toBe(1);
    expect((await update({ timeout: 30 })).body.data.timeout).toBe(30);
    expect((await update({ description: 'd'.repeat(255) })).body.data.description).toHaveLength(255);
    const schema = [
      { name: 'ab', type: 'boolean', description: 'abc' },
      { name: 'b'.repeat(32), type: 'number', description: 'x'.repeat(255) },
    ];
    expect((await update({ schema })).body.data.schema).toEqual(schema);
  });

  describe('422 Validierung fehlgeschlagen, nothing changed', () => {
    it('timeout 0, 31, 10.5 and "10"', async () => {
      await expectInvalid({ timeout: 0 }, { timeout: ['The timeout field must be between 1 and 30.'] });
      await expectInvalid({ timeout: 31 }, { timeout: ['The timeout field must be between 1 and 30.'] });
      await expectInvalid({ timeout: 10.5 }, { timeout: ['The timeout field must be an integer.'] });
      await expectInvalid({ timeout: '10' }, { timeout: ['The timeout field must be an integer.'] });
    });

    it('names outside the pattern', async () => {
      for (const name of ['Get_weather', '_x', 'get-weather', 'get2']) {
        await expectInvalid({ name }, { name: ['The name field format is invalid.'] });
      }
    });

    it('a required field sent as null or empty', async () => {
      await expectInvalid({ name: null }, { name: ['The name field is required.'] });
      await expectInvalid({ description: '' }, { description: ['The description field is required.'] });
      await expectInvalid({ method: null }, { method: ['The method field is required.'] });
    });

    it('description of 256, bad endpoint and method', async () => {
      await expectInvalid(
        { description: 'd'.repeat(256), endpoint: 'ftp://x.test', method: 'get' },
        {
          description: ['The description field must not be greater than 255 characters.'],
          endpoint: ['The endpoint field must be a valid URL.'],
          method: ['The selected method is invalid.'],
        },
      );
    });

    it('headers and schema items keyed by index', async () => {
      await expectInvalid(
        { headers: [{ name: 'X-A' }], schema: [{ name: 'a', type: 'date', description: 'ab' }] },
        {
          'headers.0.value': ['The headers.0.value field is required.'],
          'schema.0.name': ['The schema.0.name field must be between 2 and 32 characters.'],
          'schema.0.type': ['The selected schema.0.type is invalid.'],
          'schema.0.description': ['The schema.0.description field must be between 3 and 255 characters.'],
        },
      );
      await expectInvalid(
        { schema: [{ name: 'c'.repeat(33), type: 'string', description: 'abc' }] },
        { 'schema.0.name': ['The schema.0.name field must be between 2 and 32 characters.'] },
      );
    });

    it('no partial write: a valid field next to an invalid one is not applied', async () => {
      await expectInvalid({ description: 'Would change', timeout: 0 }, { timeout: ['The timeout field must be between 1 and 30.'] });
    });

    it('a body that is not an object is an empty update', async () => {
      const res = await alice.request('PUT', `/api/user/tools/${tool.id}`, '[1,2]');
      expect(res).toMatchObject({ status: 200, body: { data: tool } });
    });
  });

  describe('404 Tool nicht gefunden', () => {
    it('for an unknown id, whatever the body', async () => {
      for (const body of [{ description: 'x' }, { timeout: 0 }]) {
        expect(await update(body, 2_000_000_000)).toMatchObject({ status: 404, body: { message: 'Tool nicht gefunden' } });
      }
    });

    it.each(['abc', '0', '-1', '1.5', '99999999999', '2147483648'])('for the path id %j', async (id) => {
      const res = await update({ description: 'x' }, id);
      expect(res).toEqual(expect.objectContaining({ status: 404, body: { message: 'Tool nicht gefunden' } }));
    });

    it("for another user's tool, exactly like a missing one, and the tool stays unchanged", async () => {
      const bob = await t.createUser();
      for (const body of [{ description: 'hijacked' }, { timeout: 0 }, {}]) {
        const res = await bob.put(`/api/user/tools/${tool.id}`, body);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ message: 'Tool nicht gefunden' });
      }
      expect((await alice.get(`/api/user/tools/${tool.id}`)).body).toEqual(tool);
    });

    it('for a deleted tool', async () => {
      await alice.delete(`/api/user/tools/${tool.id}`);
      expect(await update({ description: 'x' })).toMatchObject({ status: 404, body: { message: 'Tool nicht gefunden' } });
    });
  });
});
