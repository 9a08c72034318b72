import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

describe('OpenAPI document: leads and campaigns', () => {
  it('documents every lead and campaign route with its body and responses', async () => {
    const { paths } = (await t.anonymous.get('/openapi.json')).body;
    const ops: [string, string][] = [
      ['/api/user/lead', 'post'],
      ['/api/user/leads', 'get'],
      ['/api/user/leads/{id}', 'put'],
      ['/api/leads/{id}', 'put'],
      ['/api/user/leads/{id}', 'delete'],
      ['/api/user/campaigns', 'post'],
      ['/api/user/campaigns', 'get'],
      ['/api/user/campaign/{id}', 'delete'],
      ['/api/user/campaigns/update-status', 'post'],
    ];
    for (const [path, method] of ops) {
      const op = paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.summary).toEqual(expect.any(String));
      expect(op.responses).toHaveProperty('200' in op.responses ? '200' : '201');
    }
    const leadBody = paths['/api/user/lead'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(leadBody.properties)).toEqual(['phone_number', 'campaign_id', 'variables', 'allow_dupplicate', 'allow_duplicate', 'secondary_contacts']);
    expect(leadBody.required).toEqual(expect.arrayContaining(['phone_number', 'campaign_id']));
    const statusBody = paths['/api/user/campaigns/update-status'].post.requestBody.content['application/json'].schema;
    expect(statusBody.properties.action.enum).toEqual(['start', 'stop']);
    expect(statusBody.properties.status.enum).toEqual(['start', 'stop']);
    const campaignBody = paths['/api/user/campaigns'].post.requestBody.content['application/json'].schema;
    expect(campaignBody.properties.max_retries).toMatchObject({ minimum: 1, maximum: 5 });
    expect(campaignBody.properties.retry_interval).toMatchObject({ minimum: 10, maximum: 4320 });
  });
});
