/**
 * The call engine's start-up check of PUBLIC_BASE_URL (src/calls/index.ts): Twilio refuses
 * plain-http media streams, so while Twilio numbers exist an http:// base stops the start under
 * NODE_ENV=production (read through the configuration) and is only a warning elsewhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../src/calls/index.js';
import { createTestDatabase, dropTestDatabase, startTestService } from '../support/service.js';

let databaseUrl: string;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  // A Twilio number needs usable credentials: the deployment's, here.
  const setup = await startTestService({ databaseUrl, env: { TWILIO_ACCOUNT_SID: 'AC' + '9'.repeat(32), TWILIO_AUTH_TOKEN: 't'.repeat(32) } });
  const user = await setup.createUser();
  const number = await setup.admin.post(`/api/admin/users/${user.id}/phone-numbers`, { phone_number: '+14155550900', type_label: 'Normal', carrier: 'twilio' });
  expect(number.status).toBe(201);
  await setup.close();
}, 60_000);
afterAll(async () => {
  if (databaseUrl) await dropTestDatabase(databaseUrl);
});

const start = (env: Record<string, string>) => startTestService({ databaseUrl, parts: [callEnginePart], env });

describe('PUBLIC_BASE_URL with Twilio numbers', () => {
  it('a plain-http address stops the start in production', async () => {
    await expect(start({ NODE_ENV: 'production', PUBLIC_BASE_URL: 'http://sb.example' })).rejects.toThrow(
      'PUBLIC_BASE_URL must be an https:// address Twilio can reach while Twilio numbers exist (it is http://sb.example)',
    );
  });

  it('elsewhere it only warns, and https:// starts in production', async () => {
    const envs: Record<string, string>[] = [
      { PUBLIC_BASE_URL: 'http://sb.example' },
      { NODE_ENV: 'development', PUBLIC_BASE_URL: 'http://sb.example' },
      { NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://sb.example' },
    ];
    for (const env of envs) {
      const t = await start(env);
      expect((await t.anonymous.get('/health')).status).toBe(200);
      await t.close();
    }
  }, 30_000);
});
