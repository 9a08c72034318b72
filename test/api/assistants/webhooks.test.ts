/** The webhook switches (spec 3.5, 4.10–4.12, 7). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { minimalCreate } from './fixtures.js';

let t: TestService;
let alice: TestUser;
let id: number;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  id = (await alice.post('/api/user/assistant', { ...minimalCreate, calls_direction: 'receive' })).body.data.id;
});
afterAll(() => t.close());

const read = async () => (await alice.get(`/api/user/assistant/${id}`)).body.data;

describe('enable-inbound-webhook', () => {
  it('stores the inbound URL and answers {message, data: []}', async () => {
    const res = await alice.post('/api/user/assistants/enable-inbound-webhook', { assistant_id: id, webhook_url: 'https://hooks.example.test/in' });
    expect(res).toMatchObject({ status: 200, body: { message: 'Webhook enabled successfully', data: [] } });
    expect(res.body).toEqual({ message: 'Webhook enabled successfully', data: [] });
    expect((await read()).inbound_webhook_url).toBe('https://hooks.example.test/in');
  });

  it('accepts assistant_id as a digit string', async () => {
    const res = await alice.post('/api/user/assistants/enable-inbound-webhook', { assistant_id: String(id), webhook_url: 'https://hooks.example.test/in2' });
    expect(res.status).toBe(200);
    expect((await read()).inbound_webhook_url).toBe('https://hooks.example.test/in2');
  });

  it('missing fields: 422 "The given data was invalid." with one message per missing field', async () => {
    const res = await alice.post('/api/user/assistants/enable-inbound-webhook', {});
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The given data was invalid.',
      errors: { assistant_id: ['The assistant id field is required.'], webhook_url: ['The webhook url field is required.'] },
    });
    const one = await alice.post('/api/user/assistants/enable-inbound-webhook', { assistant_id: id });
    expect(one.body).toEqual({ message: 'The given data was invalid.', errors: { webhook_url: ['The webhook url field is required.'] } });
  });

  it('invalid values: 422 on the field', async () => {
    const res = await alice.post('/api/user/assistants/enable-inbound-webhook', { assistant_id: 'abc', webhook_url: 'nope' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      assistant_id: ['The assistant id field must be an integer.'],
      webhook_url: ['The webhook url field must be a valid URL.'],
    });
  });

  it('unknown assistant: 404 "Assistant not found"', async () => {
    const res = await alice.post('/api/user/assistants/enable-inbound-webhook', { assistant_id: 999999, webhook_url: 'https://hooks.example.test/x' });
    expect(res).toMatchObject({ status: 404, body: { message: 'Assistant not found' } });
  });
});

describe('disable-inbound-webhook', () => {
  it('clears the inbound URL and leaves the post-call webhook alone', async () => {
    await alice.put(`/api/user/assistant/${id}`, { is_webhook_active: true, webhook_url: 'https://hooks.example.test/post' });
    await alice.post('/api/user/assistants/enable-inbound-webhook', { assistant_id: id, webhook_url: 'https://hooks.example.test/in' });
    const res = await alice.post('/api/user/assistants/disable-inbound-webhook', { assistant_id: id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Inbound webhook disabled successfully', data: [] });
    expect(await read()).toMatchObject({ inbound_webhook_url: null, is_webhook_active: true, webhook_url: 'https://hooks.example.test/post' });
  });

  it('422 without assistant_id, 404 for an unknown one', async () => {
    expect((await alice.post('/api/user/assistants/disable-inbound-webhook', {})).body).toEqual({
      message: 'The given data was invalid.',
      errors: { assistant_id: ['The assistant id field is required.'] },
    });
    expect(await alice.post('/api/user/assistants/disable-inbound-webhook', { assistant_id: 999999 })).toMatchObject({
      status: 404,
      body: { message: 'Assistant not found' },
    });
  });
});

describe('disable-webhook', () => {
  it('sets is_webhook_active false and webhook_url null; it can be enabled again with a new URL', async () => {
    await alice.put(`/api/user/assistant/${id}`, { is_webhook_active: true, webhook_url: 'https://hooks.example.test/post' });
    await alice.post('/api/user/assistants/enable-inbound-webhook', { assistant_id: id, webhook_url: 'https://hooks.example.test/in' });
    const res = await alice.post('/api/user/assistants/disable-webhook', { assistant_id: id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Webhook disabled successfully', data: [] });
    expect(await read()).toMatchObject({ is_webhook_active: false, webhook_url: null, inbound_webhook_url: 'https://hooks.example.test/in' });
    // enabling again needs a URL now
    expect((await alice.put(`/api/user/assistant/${id}`, { is_webhook_active: true })).status).toBe(422);
    expect((await alice.put(`/api/user/assistant/${id}`, { is_webhook_active: true, webhook_url: 'https://hooks.example.test/new' })).status).toBe(200);
    expect(await read()).toMatchObject({ is_webhook_active: true, webhook_url: 'https://hooks.example.test/new' });
  });

  it('422 without assistant_id, 404 for an unknown or deleted one', async () => {
    expect((await alice.post('/api/user/assistants/disable-webhook', {})).body).toEqual({
      message: 'The given data was invalid.',
      errors: { assistant_id: ['The assistant id field is required.'] },
    });
    const gone = (await alice.post('/api/user/assistant', minimalCreate)).body.data.id;
    await alice.delete(`/api/user/assistant/${gone}`);
    for (const assistant_id of [999999, gone]) {
      expect(await alice.post('/api/user/assistants/disable-webhook', { assistant_id })).toMatchObject({
        status: 404,
        body: { message: 'Assistant not found' },
      });
    }
  });
});
