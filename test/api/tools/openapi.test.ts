import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/service.js';

let t: TestService;
let doc: any;
beforeAll(async () => {
  t = await startTestService();
  doc = (await t.anonymous.get('/openapi.json')).body;
});
afterAll(() => t.close());

const TOOL_FIELDS = ['id', 'name', 'description', 'endpoint', 'method', 'timeout', 'headers', 'schema', 'created_at', 'updated_at'];

/** Resolves a local `$ref` of the document. */
function deref(schema: any): any {
  if (schema?.$ref) return schema.$ref.slice(2).split('/').reduce((o: any, k: string) => o[k], doc);
  return schema;
}

describe('OpenAPI document: mid-call tools', () => {
  it('lists the five operations under the tools tag', () => {
    expect(Object.keys(doc.paths['/api/user/tools']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/user/tools/{id}']).sort()).toEqual(['delete', 'get', 'put']);
    for (const op of [...Object.values(doc.paths['/api/user/tools']), ...Object.values(doc.paths['/api/user/tools/{id}'])] as any[]) {
      expect(op.tags).toEqual(['tools']);
      expect(typeof op.summary).toBe('string');
    }
  });

  it('documents the create body with its required fields and rules', () => {
    const body = deref(doc.paths['/api/user/tools'].post.requestBody.content['application/json'].schema);
    expect(body.required.sort()).toEqual(['description', 'endpoint', 'method', 'name']);
    expect(Object.keys(body.properties).sort()).toEqual(['description', 'endpoint', 'headers', 'method', 'name', 'schema', 'timeout']);
    expect(body.properties.description.maxLength).toBe(255);
    expect(JSON.stringify(body.properties.timeout)).toContain('"maximum":30');
    expect(JSON.stringify(body.properties.method)).toContain('PATCH');
    expect(JSON.stringify(body.properties.schema)).toContain('"maxLength":32');
  });

  it('documents the update body with every field optional', () => {
    const body = deref(doc.paths['/api/user/tools/{id}'].put.requestBody.content['application/json'].schema);
    expect(body.required ?? []).toEqual([]);
    expect(Object.keys(body.properties).sort()).toEqual(['description', 'endpoint', 'headers', 'method', 'name', 'schema', 'timeout']);
  });

  it('documents the tool object in the responses and the id path parameter', () => {
    const created = deref(doc.paths['/api/user/tools'].post.responses['201'].content['application/json'].schema);
    expect(Object.keys(deref(created.properties.data).properties)).toEqual(TOOL_FIELDS);
    const list = deref(doc.paths['/api/user/tools'].get.responses['200'].content['application/json'].schema);
    expect(list.type).toBe('array');
    const read = deref(doc.paths['/api/user/tools/{id}'].get.responses['200'].content['application/json'].schema);
    expect(Object.keys(read.properties)).toEqual(TOOL_FIELDS);
    for (const method of ['get', 'put', 'delete']) {
      const params = doc.paths['/api/user/tools/{id}'][method].parameters;
      expect(params).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'id', in: 'path', required: true })]));
      expect(doc.paths['/api/user/tools/{id}'][method].responses['404']).toBeDefined();
    }
  });
});
