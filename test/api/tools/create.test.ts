import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { ISO_MICRO, validTool } from './helpers.js';

let t: TestService;
let alice: TestUser;

beforeAll(async () => {
  t = await startTestService();
  // a roomy plan so the rule tests below are not cut short by the limit
  alice = await t.createUser({ name: 'Alice', max_tools: 1000 });
});
afterAll(() => t.close());

const create = (body: unknown) => alice.post('/api/user/tools', body);

/** Expects a 422 whose only error is `message` on `field`, with the summarized top-level message. */
async function expectFieldError(body: Record<string, unknown>, field: string, message: string) {
  const res = await create(body);
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body).toEqual({ message, errors: { [field]: [message] } });
}

async function expectCreated(body: Record<string, unknown>) {
  const res = await create(body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

describe('POST /api/user/tools — success', () => {
  it('answers 201 with the message and the full tool, timeout defaulting to 10', async () => {
    const res = await create(validTool());
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('Tool erfolgreich erstellt');
    expect(Object.keys(res.body.data)).toEqual([
      'id', 'name', 'description', 'endpoint', 'method', 'timeout', 'headers', 'schema', 'created_at', 'updated_at',
    ]);
    expect(res.body.data).toMatchObject({
      name: 'get_weather',
      description: 'Look up the weather for a city when the customer asks about it.',
      endpoint: 'https://api.example.test/weather',
      method: 'POST',
      timeout: 10,
      headers: [],
      schema: [],
    });
    expect(Number.isInteger(res.body.data.id)).toBe(true);
    expect(res.body.data.created_at).toMatch(ISO_MICRO);
    expect(res.body.data.updated_at).toBe(res.body.data.created_at);
  });

  it('stores headers and schema as given and returns them to their owner', async () => {
    const headers = [{ name: 'Authorization', value: 'Bearer secret-key-123' }, { name: 'X-Tenant', value: 'acme' }];
    const schema = [
      { name: 'city', type: 'string', description: 'The city to look up' },
      { name: 'days', type: 'number', description: 'How many days ahead' },
      { name: 'metric', type: 'boolean', description: 'Celsius instead of Fahrenheit' },
    ];
    const data = await expectCreated(validTool({ method: 'GET', timeout: 5, headers, schema }));
    expect(data).toMatchObject({ method: 'GET', timeout: 5, headers, schema });
    const read = await alice.get(`/api/user/tools/${data.id}`);
    expect(read.body.headers).toEqual(headers);
    expect(read.body.schema).toEqual(schema);
  });

  it('ignores unknown body fields, also id, user_id and timestamps', async () => {
    const bob = await t.createUser();
    const data = await expectCreated(
      validTool({ id: 999999, user_id: bob.id, created_at: '2000-01-01T00:00:00.000000Z', colour: 'blue' }),
    );
    expect(data.id).not.toBe(999999);
    expect(data).not.toHaveProperty('colour');
    expect(data.created_at).not.toBe('2000-01-01T00:00:00.000000Z');
    expect((await bob.get('/api/user/tools')).body).toEqual([]);
    expect((await alice.get(`/api/user/tools/${data.id}`)).status).toBe(200);
  });

  it('ignores unknown fields inside headers and schema items', async () => {
    const data = await expectCreated(
      validTool({
        headers: [{ name: 'X-A', value: '1', extra: true }],
        schema: [{ name: 'city', type: 'string', description: 'The city', required: true }],
      }),
    );
    expect(data.headers).toEqual([{ name: 'X-A', value: '1' }]);
    expect(data.schema).toEqual([{ name: 'city', type: 'string', description: 'The city' }]);
  });

  it('treats null for timeout, headers and schema as not supplied', async () => {
    const data = await expectCreated(validTool({ timeout: null, headers: null, schema: null }));
    expect(data).toMatchObject({ timeout: 10, headers: [], schema: [] });
  });
});

describe('POST /api/user/tools — name', () => {
  it.each(['get_weather', 'a', 'lookup', 'get_weather_', 'a'.repeat(64)])('accepts %j', async (name) => {
    expect((await expectCreated(validTool({ name }))).name).toBe(name);
  });

  it.each(['Get_weather', '_x', 'get-weather', 'get2', 'get weather', 'getWeather', 'wetter_ä'])('refuses %j', async (name) => {
    await expectFieldError(validTool({ name }), 'name', 'The name field format is invalid.');
  });

  it('refuses a name over 64 characters (the LLM function-name limit)', async () => {
    await expectFieldError(validTool({ name: 'a'.repeat(65) }), 'name', 'The name field must not be greater than 64 characters.');
  });

  it('requires it: missing, null and empty all read "required"', async () => {
    for (const name of [undefined, null, '']) {
      await expectFieldError(validTool({ name }), 'name', 'The name field is required.');
    }
  });

  it('must be a string', async () => {
    await expectFieldError(validTool({ name: 42 }), 'name', 'The name field must be a string.');
  });
});

describe('POST /api/user/tools — description', () => {
  it('accepts 255 characters and refuses 256', async () => {
    expect((await expectCreated(validTool({ description: 'd'.repeat(255) }))).description).toHaveLength(255);
    await expectFieldError(
      validTool({ description: 'd'.repeat(256) }),
      'description',
      'The description field must not be greater than 255 characters.',
    );
  });

  it('counts characters, not bytes', async () => {
    expect((await expectCreated(validTool({ description: 'ü'.repeat(255) }))).description).toBe('ü'.repeat(255));
  });

  it('is required', async () => {
    await expectFieldError(validTool({ description: undefined }), 'description', 'The description field is required.');
    await expectFieldError(validTool({ description: '' }), 'description', 'The description field is required.');
  });
});

describe('POST /api/user/tools — endpoint', () => {
  it.each(['http://localhost:8080/hook', 'https://api.example.test/v1/weather?units=metric', 'https://10.0.0.1/x'])(
    'accepts %j',
    async (endpoint) => {
      expect((await expectCreated(validTool({ endpoint }))).endpoint).toBe(endpoint);
    },
  );

  it.each(['not a url', 'ftp://example.test/file', 'example.test/weather', 'http://', 'javascript:alert(1)'])(
    'refuses %j',
    async (endpoint) => {
      await expectFieldError(validTool({ endpoint }), 'endpoint', 'The endpoint field must be a valid URL.');
    },
  );

  it('accepts 2048 characters and refuses 2049', async () => {
    const url = (n: number) => `https://api.example.test/${'p'.repeat(n - 'https://api.example.test/'.length)}`;
    expect((await expectCreated(validTool({ endpoint: url(2048) }))).endpoint).toHaveLength(2048);
    await expectFieldError(validTool({ endpoint: url(2049) }), 'endpoint', 'The endpoint field must not be greater than 2048 characters.');
  });

  it('is required', async () => {
    await expectFieldError(validTool({ endpoint: undefined }), 'endpoint', 'The endpoint field is required.');
  });
});

describe('POST /api/user/tools — method', () => {
  it.each(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])('accepts %s', async (method) => {
    expect((await expectCreated(validTool({ method }))).method).toBe(method);
  });

  it.each(['get', 'HEAD', 'OPTIONS', 'CONNECT'])('refuses %j', async (method) => {
    await expectFieldError(validTool({ method }), 'method', 'The selected method is invalid.');
  });

  it('is required', async () => {
    for (const method of [undefined, null, '']) {
      await expectFieldError(validTool({ method }), 'method', 'The method field is required.');
    }
  });
});

describe('POST /api/user/tools — timeout', () => {
  it.each([1, 30, 15])('accepts %j', async (timeout) => {
    expect((await expectCreated(validTool({ timeout }))).timeout).toBe(timeout);
  });

  it.each([0, 31, -5])('refuses %j as out of range', async (timeout) => {
    await expectFieldError(validTool({ timeout }), 'timeout', 'The timeout field must be between 1 and 30.');
  });

  it.each([10.5, '10', true, [10]])('refuses %j as not an integer', async (timeout) => {
    await expectFieldError(validTool({ timeout }), 'timeout', 'The timeout field must be an integer.');
  });
});

describe('POST /api/user/tools — headers', () => {
  it('accepts an empty list and common header names', async () => {
    expect((await expectCreated(validTool({ headers: [] }))).headers).toEqual([]);
    const headers = [{ name: 'X-API-Key', value: 'k' }, { name: 'Content-Type', value: 'application/json; charset=utf-8' }];
    expect((await expectCreated(validTool({ headers }))).headers).toEqual(headers);
  });

  it('requires name and value in every item, keyed by index', async () => {
    const res = await create(validTool({ headers: [{ name: 'X-A', value: '1' }, { name: 'X-B' }, { value: 'v' }] }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      'headers.1.value': ['The headers.1.value field is required.'],
      'headers.2.name': ['The headers.2.name field is required.'],
    });
    expect(res.body.message).toBe('The headers.1.value field is required. (and 1 more error)');
  });

  it('requires strings', async () => {
    await expectFieldError(validTool({ headers: [{ name: 'X-A', value: 5 }] }), 'headers.0.value', 'The headers.0.value field must be a string.');
    await expectFieldError(validTool({ headers: [{ name: 5, value: 'x' }] }), 'headers.0.name', 'The headers.0.name field must be a string.');
    await expectFieldError(validTool({ headers: [{ name: 'X-A', value: '' }] }), 'headers.0.value', 'The headers.0.value field is required.');
  });

  it('must be an array of objects', async () => {
    await expectFieldError(validTool({ headers: { Authorization: 'x' } }), 'headers', 'The headers field must be an array.');
    await expectFieldError(validTool({ headers: ['Authorization: x'] }), 'headers.0', 'The headers.0 field must be an object.');
  });

  it('accepts header names of 255 characters and refuses 256', async () => {
    expect((await expectCreated(validTool({ headers: [{ name: 'X'.repeat(255), value: 'v' }] }))).headers[0].name).toHaveLength(255);
    await expectFieldError(
      validTool({ headers: [{ name: 'X'.repeat(256), value: 'v' }] }),
      'headers.0.name',
      'The headers.0.name field must not be greater than 255 characters.',
    );
  });

  it('refuses header names that are not HTTP tokens and values with line breaks', async () => {
    await expectFieldError(validTool({ headers: [{ name: 'X API Key', value: 'k' }] }), 'headers.0.name', 'The headers.0.name field format is invalid.');
    await expectFieldError(
      validTool({ headers: [{ name: 'X-A', value: 'k\r\nX-Injected: 1' }] }),
      'headers.0.value',
      'The headers.0.value field format is invalid.',
    );
  });
});

describe('POST /api/user/tools — schema', () => {
  const param = (overrides: Record<string, unknown> = {}) => ({ name: 'city', type: 'string', description: 'The city', ...overrides });

  it('accepts parameter names of 2 and 32 characters', async () => {
    const schema = [param({ name: 'ab' }), param({ name: 'A'.repeat(32) })];
    expect((await expectCreated(validTool({ schema }))).schema).toEqual(schema);
  });

  it('refuses parameter names of 1 and 33 characters', async () => {
    const message = (i: number) => `The schema.${i}.name field must be between 2 and 32 characters.`;
    await expectFieldError(validTool({ schema: [param({ name: 'a' })] }), 'schema.0.name', message(0));
    await expectFieldError(validTool({ schema: [param(), param({ name: 'a'.repeat(33) })] }), 'schema.1.name', message(1));
  });

  it('accepts letters and underscores starting with a letter, in either case', async () => {
    const schema = [param({ name: 'cityName' }), param({ name: 'Zip_Code_' })];
    expect((await expectCreated(validTool({ schema }))).schema).toEqual(schema);
  });

  it.each(['_city', '2city', 'city2', 'city-name', 'city name'])('refuses parameter name %j', async (name) => {
    await expectFieldError(validTool({ schema: [param({ name })] }), 'schema.0.name', 'The schema.0.name field format is invalid.');
  });

  it('accepts the three types and refuses others', async () => {
    const schema = ['string', 'number', 'boolean'].map((type, i) => param({ name: `p_${'abc'[i]}`, type }));
    expect((await expectCreated(validTool({ schema }))).schema).toEqual(schema);
    for (const type of ['integer', 'bool', 'String', 'array']) {
      await expectFieldError(validTool({ schema: [param({ type })] }), 'schema.0.type', 'The selected schema.0.type is invalid.');
    }
  });

  it('accepts descriptions of 3 and 255 characters and refuses 2 and 256', async () => {
    const schema = [param({ name: 'aa', description: 'abc' }), param({ name: 'bb', description: 'x'.repeat(255) })];
    expect((await expectCreated(validTool({ schema }))).schema).toEqual(schema);
    const message = 'The schema.0.description field must be between 3 and 255 characters.';
    await expectFieldError(validTool({ schema: [param({ description: 'ab' })] }), 'schema.0.description', message);
    await expectFieldError(validTool({ schema: [param({ description: 'x'.repeat(256) })] }), 'schema.0.description', message);
  });

  it('requires all three fields of an item', async () => {
    const res = await create(validTool({ schema: [{}] }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      'schema.0.name': ['The schema.0.name field is required.'],
      'schema.0.type': ['The schema.0.type field is required.'],
      'schema.0.description': ['The schema.0.description field is required.'],
    });
    expect(res.body.message).toBe('The schema.0.name field is required. (and 2 more errors)');
  });

  it('refuses a parameter name used twice', async () => {
    await expectFieldError(
      validTool({ schema: [param(), param({ type: 'number' })] }),
      'schema.1.name',
      'The schema.1.name field has a duplicate value.',
    );
  });

  it('must be an array', async () => {
    await expectFieldError(validTool({ schema: 'city' }), 'schema', 'The schema field must be an array.');
  });
});

describe('POST /api/user/tools — the 422 envelope', () => {
  it('reports every field at once in field order with "(and N more errors)"', async () => {
    const res = await create({ name: 'Bad-Name', timeout: 0, method: 'FETCH' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The name field format is invalid. (and 4 more errors)',
      errors: {
        name: ['The name field format is invalid.'],
        description: ['The description field is required.'],
        endpoint: ['The endpoint field is required.'],
        method: ['The selected method is invalid.'],
        timeout: ['The timeout field must be between 1 and 30.'],
      },
    });
  });

  it('uses the singular for one more error', async () => {
    const res = await create(validTool({ name: undefined, description: undefined }));
    expect(res.body.message).toBe('The name field is required. (and 1 more error)');
  });

  it('answers an empty body, an array and a string body with the required errors, never a 500', async () => {
    for (const body of [undefined, [], '"text"', 'null']) {
      const res = body === undefined ? await alice.request('POST', '/api/user/tools', '') : await alice.request('POST', '/api/user/tools', body);
      expect(res.status, String(body)).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['name', 'description', 'endpoint', 'method']);
      expect(res.body.message).toBe('The name field is required. (and 3 more errors)');
    }
  });

  it('refuses text PostgreSQL cannot store (NUL, unpaired surrogate) with a 422, not a 500', async () => {
    await expectFieldError(validTool({ description: 'a\u0000b' }), 'description', 'The description field format is invalid.');
    const raw = JSON.stringify(validTool({ headers: [{ name: 'X-A', value: 'PLACEHOLDER' }] })).replace('PLACEHOLDER', '\\ud800');
    const res = await alice.request('POST', '/api/user/tools', raw);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ 'headers.0.value': ['The headers.0.value field format is invalid.'] });
  });

  it('creates nothing when validation fails', async () => {
    const before = (await alice.get('/api/user/tools')).body.length;
    await create(validTool({ timeout: 99 }));
    expect((await alice.get('/api/user/tools')).body).toHaveLength(before);
  });

  it('needs a token', async () => {
    expect(await t.anonymous.post('/api/user/tools', validTool())).toMatchObject({ status: 401, body: { message: 'Unauthenticated.' } });
  });
});
