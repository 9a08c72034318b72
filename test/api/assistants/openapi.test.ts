/** Every assistant route is documented in /openapi.json with its body and responses. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

it('lists the assistant routes with their schemas', async () => {
  const doc = (await t.anonymous.get('/openapi.json')).body;
  const expected: [string, string][] = [
    ['post', '/api/user/assistant'],
    ['get', '/api/user/assistant/{id}'],
    ['put', '/api/user/assistant/{id}'],
    ['delete', '/api/user/assistant/{id}'],
    ['get', '/api/user/assistants/get'],
    ['get', '/api/user/assistants/outbound'],
    ['post', '/api/user/assistants/enable-inbound-webhook'],
    ['post', '/api/user/assistants/disable-webhook'],
    ['post', '/api/user/assistants/disable-inbound-webhook'],
  ];
  for (const [method, path] of expected) {
    const op = doc.paths[path]?.[method];
    expect(op, `${method} ${path}`).toBeDefined();
    expect(op.tags).toEqual(['assistants']);
    expect(typeof op.summary).toBe('string');
  }
  const update = doc.paths['/api/user/assistant/{id}'].put;
  const props = update.requestBody.content['application/json'].schema.properties;
  for (const field of ['assistant_name', 'speech_speed', 'end_call_tool.description', 'tool_ids', 'max_duration', 'type']) {
    expect(props, field).toHaveProperty(field);
  }
  expect(Object.keys(update.responses).sort()).toEqual(['200', '404', '422', '500']);
  const list = doc.paths['/api/user/assistants/get'].get;
  expect(list.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['page', 'per_page']);
});
