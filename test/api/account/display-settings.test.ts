import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/service.js';

let t: TestService;

beforeAll(async () => {
  t = await startTestService({ env: { COST_CURRENCY: 'EUR' } });
});
afterAll(() => t.close());

describe('display settings', () => {
  it("say the service's cost currency to every signed-in user, and to nobody else", async () => {
    const alice = await t.createUser({ name: 'Alice' });
    const bob = await t.createUser({ name: 'Bob' });
    expect((await alice.get('/api/user/display-settings')).body).toEqual({ cost_currency: 'EUR' });
    expect((await bob.get('/api/user/display-settings')).body).toEqual({ cost_currency: 'EUR' });
    expect((await t.client('sb_not_a_token').get('/api/user/display-settings')).status).toBe(401);
  });
});
