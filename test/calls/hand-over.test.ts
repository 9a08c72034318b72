/**
 * assistant_transfer's load of the assistant taking a call over (src/calls/hand-over.ts): its
 * voice comes from the account's own providers, and never from the deployment's when the
 * account's keys cannot be read.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHandOver } from '../../src/calls/hand-over.js';
import { AccountProvidersUnavailableError, ProviderRegistry } from '../../src/providers/registry.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService } from '../support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

describe('loadHandOver', () => {
  it("fails when the account's own provider keys cannot be read, rather than speaking on the deployment's", async () => {
    const user = await t.createUser();
    const target = await insertAssistant(t, user.id, { name: 'Billing' });
    const deployment = t.service.ctx.providers;
    // The account's keys: readable (its own registry), then unreadable (a database error, a changed SECRET_KEY).
    const own = new ProviderRegistry(deployment.llm, { tts: [...deployment.tts.values()] });
    let readable = true;
    const providers = new ProviderRegistry(deployment.llm, { tts: [...deployment.tts.values()] });
    providers.useAccounts({
      forAccount: async () => {
        if (readable) return own;
        throw new Error('stored provider keys cannot be opened with SECRET_KEY: elevenlabs');
      },
      invalidate: () => undefined,
    });
    const deps = { pool: t.service.ctx.database.pool, userId: user.id, callVariables: {}, providers, log: pino({ level: 'silent' }) };
    const loaded = await loadHandOver(deps, target.id);
    expect(loaded).toMatchObject({ id: target.id, name: 'Billing' });
    readable = false;
    await expect(loadHandOver(deps, target.id)).rejects.toBeInstanceOf(AccountProvidersUnavailableError);
  });
});
