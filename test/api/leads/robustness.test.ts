import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAssistant, insertCampaign, insertLead } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

let t: TestService;
let alice: TestUser;
let leadId: number;
let campaignId: number;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser();
  const a = await insertAssistant(t, alice.id);
  campaignId = (await insertCampaign(t, alice.id, a.id)).id;
  leadId = (await insertLead(t, alice.id, campaignId)).id;
});
afterAll(() => t.close());

describe('bodies that are not JSON objects never cause a 500', () => {
  it('answers 422 for arrays, strings, numbers and null on every lead and campaign write', async () => {
    const targets: [string, string][] = [
      ['POST', '/api/user/lead'],
      ['PUT', `/api/user/leads/${leadId}`],
      ['PUT', `/api/leads/${leadId}`],
      ['POST', '/api/user/campaigns'],
      ['POST', '/api/user/campaigns/update-status'],
    ];
    for (const [method, url] of targets) {
      for (const body of ['[1,2]', '"text"', '42', 'null', 'true']) {
        const res = await alice.request(method, url, body);
        expect(res.status, `${method} ${url} ${body}`).toBe(422);
        expect(res.body.message).toBe('The given data was invalid.');
        expect(Object.keys(res.body.errors)).toHaveLength(1);
      }
    }
  });
});
