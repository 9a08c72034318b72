/**
 * Logs without secrets (issue 15): a failed query's parameters and the userinfo and query
 * string of URLs never reach a log line; driven through a real failing query on the database.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createLogger } from '../../src/logger.js';
import { startTestService, type TestService } from '../support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => {
  await t.close();
});

function capture() {
  let text = '';
  const stream = new Writable({ write(chunk, _enc, cb) { text += chunk; cb(); } });
  return { log: createLogger('info', 'json', stream as never), text: () => text };
}

describe('log redaction', () => {
  it('a failed query is logged without its parameters', async () => {
    const planted = ['planted-email@secret.test', 'whsec_PLANTEDSECRET', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'];
    const { log, text } = capture();
    const err = await t.service.ctx.database.db
      .execute(sql`SELECT ${planted[0]}::int, ${planted[1]}::int, ${planted[2]}::int FROM no_such_table`)
      .then(() => null, (e: unknown) => e);
    expect(err).not.toBeNull();
    log.error({ err }, 'query failed');
    expect(text()).toContain('query failed');
    expect(text()).toContain('no_such_table');
    for (const secret of planted) expect(text()).not.toContain(secret);
  });

  it('URLs lose userinfo and query strings in logged errors', () => {
    const { log, text } = capture();
    log.warn({ err: new Error('Target https://admin:hunter2@hooks.example.com/x?token=PLANTED is not allowed') }, 'blocked');
    expect(text()).toContain('https://hooks.example.com/x');
    expect(text()).not.toContain('hunter2');
    expect(text()).not.toContain('PLANTED');
  });
});
