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
  it('answers 422 (creates, status changes) or a no-op 200 (updates) for arrays, strings, numbers and null', async () => {
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
        if (method === 'PUT') {
          // An update whose body has no fields changes nothing (every field is optional).
          expect(res.status, `${method} ${url} ${body}`).toBe(200);
          continue;
        }
        expect(res.status, `${method} ${url} ${body}`).toBe(422);
        expect(res.body.message).toBe('The given data was invalid.');
        // No fields at all: the ordinary required-field errors, never an unnamed one.
        expect(Object.keys(res.body.errors).length).toBeGreaterThanOrEqual(1);
        expect(Object.keys(res.body.errors)).not.toContain('_');
        for (const list of Object.values<string[]>(res.body.errors)) for (const m of list) expect(m).not.toMatch(/The {2}field/);
      }
    }
  });
});

describe('text PostgreSQL cannot store (NUL, unpaired surrogates) is a 422, never a 500', () => {
  const bad = ['a\u0000b', 'x\ud800', '\udc00y'];
  it('in lead variables (keys and values, also nested and in secondary contacts) on create and update', async () => {
    for (const text of bad) {
      for (const variables of [{ k: text }, { [text]: 1 }, { k: { deep: [text] } }]) {
        let res = await alice.post('/api/user/lead', { phone_number: '+4915112345678', campaign_id: campaignId, variables });
        expect(res.status).toBe(422);
        expect(Object.keys(res.body.errors)).toEqual(['variables']);
        res = await alice.post('/api/user/lead', {
          phone_number: '+4915112345678',
          campaign_id: campaignId,
          secondary_contacts: [{ phone_number: '+4930123456', variables }],
        });
        expect(res.status).toBe(422);
        expect(Object.keys(res.body.errors)).toEqual(['secondary_contacts.0.variables']);
        res = await alice.put(`/api/user/leads/${leadId}`, { variables });
        expect(res.status).toBe(422);
        expect(Object.keys(res.body.errors)).toEqual(['variables']);
      }
      expect((await alice.put(`/api/user/leads/${leadId}`, { phone_number: `+49151${text}` })).body).toEqual({ message: 'Invalid phone number' });
    }
  });

  it('in campaign text fields', async () => {
    const a = await insertAssistant(t, alice.id);
    for (const text of bad) {
      for (const field of ['name', 'goal_completion_variable', 'timezone']) {
        const res = await alice.post('/api/user/campaigns', { name: 'ok', assistant_id: a.id, [field]: text });
        expect(res.status).toBe(422);
        expect(Object.keys(res.body.errors)).toEqual([field]);
      }
    }
  });
});
