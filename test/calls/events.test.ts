/**
 * The call-finished event bus: an event whose consumer's handler fails on every retry is not
 * dropped without a trace. pg-boss used to mark its job `failed` and nothing else (a call whose
 * webhook-planning event died so had no webhook, and nothing said so); now it goes to the
 * queue's dead letter (`<queue>-failed`) and an error naming the call and the queue is logged.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLetterOf, executorOf, type CallFinished } from '../../src/calls/events.js';
import type { PartFactory } from '../../src/parts.js';
import { startTestService, type TestService } from '../support/service.js';
import { sleep, waitUntil } from '../support/receiver.js';

let t: TestService;
const logged: { level: number; msg: string; callId?: number; queue?: string }[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logged.push(JSON.parse(line));
      done();
    },
  });
  // Any background part makes the process start its job queue and event bus; this one does nothing else.
  const nothingElse: PartFactory = () => ({ name: 'nothing-else', start: async () => undefined, stop: async () => undefined });
  t = await startTestService({ parts: [nothingElse], log: pino({ level: 'error' }, sink) });
});
afterAll(() => t?.close());

describe('a call-finished event its consumer gives up on', () => {
  it('is dead-lettered and logged as an error with its call; one handled in time is not', async () => {
    const events = t.service.ctx.services.callEvents!;
    const queue = 'test-events-failing';
    const handled: CallFinished[] = [];
    await events.subscribe(
      queue,
      async (e) => {
        if (e.callId === 2) {
          handled.push(e);
          return;
        }
        throw new Error('the consumer cannot handle it');
      },
      { pollingIntervalSeconds: 0.5 },
    );
    const { pool } = t.service.ctx.database;
    // Emitted as the engine does (retryLimit 20); the first event is made to be on its last try.
    await events.emit(executorOf(pool), { callId: 1, userId: 7 });
    await pool.query(`UPDATE pgboss.job SET retry_limit = 0 WHERE name = $1 AND data->>'callId' = '1'`, [queue]);
    await waitUntil(async () => logged.some((l) => l.callId === 1), 15_000, 'the given-up event logged');
    expect(logged).toContainEqual(expect.objectContaining({ level: 50, callId: 1, queue, msg: expect.stringContaining('given up') }));

    // Emitted only now: a batch holding both would fail (and retry) the second with the first.
    await events.emit(executorOf(pool), { callId: 2, userId: 7 });
    await waitUntil(async () => handled.length === 1, 5_000, 'the second event handled');
    await sleep(1_000);
    expect(logged.filter((l) => l.callId === 2)).toEqual([]);
    const { rows } = await pool.query(`SELECT data->>'callId' AS call_id, state FROM pgboss.job WHERE name = $1`, [deadLetterOf(queue)]);
    expect(rows).toEqual([{ call_id: '1', state: 'completed' }]);
  }, 30_000);
});
