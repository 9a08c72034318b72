/**
 * The accounts bench/home.ts reads: one busy account with CALLS calls spread evenly over the
 * last 90 days, across 4 assistants and 3 campaigns (and calls outside campaigns), every
 * outcome, and for each answered call a greeting and 3 replies with their timings; another
 * account with OTHER_CALLS calls the same way, which the first one's results must not count.
 * Seeded in SQL (generate_series), so 120,000 calls and ~300,000 turns take seconds.
 */
import pg from 'pg';
import { createUser } from '../../src/accounts/users.js';
import { runMigrations } from '../../src/db/migrate.js';
import { connect } from '../../src/db/pool.js';

export interface Seeded {
  token: string;
  otherToken: string;
  turns: number;
  seconds: number;
}

async function seedAccount(client: pg.Client, userId: number, calls: number): Promise<void> {
  await client.query(`
    INSERT INTO assistants (user_id, name, type, voice_id, language, language_id, llm_model_id)
    SELECT $1, 'Assistant ' || k, 'outbound', (SELECT min(id) FROM voices), 'English', (SELECT min(id) FROM languages), (SELECT min(id) FROM llm_models)
      FROM generate_series(1, 4) k`, [userId]);
  await client.query(`
    INSERT INTO campaigns (user_id, assistant_id, name, timezone)
    SELECT $1, a.id, 'Campaign ' || a.name, 'UTC' FROM assistants a WHERE a.user_id = $1 AND a.name <> 'Assistant 4'`, [userId]);
  // Outcome by g % 10: 0-5 answered by a person (three end statuses), 6 voicemail, 7 no-answer, 8 busy, 9 failed.
  // Every second call of assistants 1-3 belongs to their campaign; assistant 4 has none.
  await client.query(`
    WITH a AS (SELECT id, name, row_number() OVER (ORDER BY id) AS k FROM assistants WHERE user_id = $1),
         p AS (SELECT id, name, assistant_id FROM campaigns WHERE user_id = $1)
    INSERT INTO calls (user_id, assistant_id, assistant_name, campaign_id, campaign_name, type, status, duration,
      assistant_phone_number, client_phone_number, total_cost, carrier_cost, answered_by, answered_at, ended_at, created_at, updated_at)
    SELECT $1, a.id, a.name, CASE WHEN g % 2 = 0 THEN p.id END, CASE WHEN g % 2 = 0 THEN p.name END, 'outbound',
      (ARRAY['completed','completed','ended_by_customer','ended_by_assistant','completed','completed','completed','no-answer','busy','failed'])[1 + g % 10],
      CASE WHEN g % 10 <= 6 THEN 15 + (g * 37) % 300 ELSE 0 END,
      '+4930123456789', '+49151' || lpad(((g * 7919) % 100000000)::text, 8, '0'),
      CASE WHEN g % 10 <= 6 THEN round(0.002 + ((g * 13) % 100) / 1000.0, 4) ELSE 0.001 END, 0.001,
      CASE WHEN g % 10 = 6 THEN 'machine' WHEN g % 10 < 6 THEN 'human' ELSE 'unknown' END,
      CASE WHEN g % 10 <= 6 THEN t.at + interval '10 seconds' END, t.at + interval '5 minutes', t.at, t.at
    FROM generate_series(1, $2::int) g
    CROSS JOIN LATERAL (SELECT now() - ((g::float8 / $2::int) * interval '90 days') AS at) t
    JOIN a ON a.k = 1 + g % 4
    LEFT JOIN p ON p.assistant_id = a.id`, [userId, calls]);
}

export async function seed(url: string, calls: number, otherCalls: number): Promise<Seeded> {
  const started = Date.now();
  await runMigrations(url);
  const db = connect(url, { max: 2 });
  const busy = await createUser(db.db, { name: 'Busy account', email: 'busy@example.test' });
  const other = await createUser(db.db, { name: 'Other account', email: 'other@example.test' });
  await db.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`SET maintenance_work_mem = '256MB'`);
    await client.query('ALTER TABLE calls DISABLE TRIGGER calls_counts_insert');
    await seedAccount(client, busy.user.id, calls);
    await seedAccount(client, other.user.id, otherCalls);
    await client.query('ALTER TABLE calls ENABLE TRIGGER calls_counts_insert');
    await client.query(`DELETE FROM call_counts;
      INSERT INTO call_counts (user_id, status, type, shard, n) SELECT user_id, status, type, 0, count(*) FROM calls GROUP BY 1, 2, 3`);
    // Answered calls (a person or a machine): a greeting and three replies, first audio 300-1500 ms after the caller's end of speech.
    const turns = await client.query(`
      INSERT INTO call_turns (call_id, position, kind, started_at, caller_text, assistant_text, final_transcript_ms, llm_first_token_ms, tts_first_byte_ms, first_audio_ms)
      SELECT c.id, k, CASE WHEN k = 0 THEN 'greeting' ELSE 'reply' END, c.answered_at + k * interval '8 seconds',
        CASE WHEN k = 0 THEN NULL ELSE 'Yes, that works for me.' END, 'Great, I have booked it.',
        CASE WHEN k = 0 THEN NULL ELSE 150 END, 250 + (c.id * 7 + k * 131) % 500, 400 + (c.id * 7 + k * 131) % 700,
        300 + (c.id * 11 + k * 173) % 1200
      FROM calls c CROSS JOIN generate_series(0, 3) k
      WHERE c.answered_at IS NOT NULL`);
    await client.query('VACUUM (ANALYZE) calls');
    await client.query('VACUUM (ANALYZE) call_turns');
    await client.query('CHECKPOINT').catch(() => undefined);
    return { token: busy.token, otherToken: other.token, turns: turns.rowCount ?? 0, seconds: Math.round((Date.now() - started) / 1000) };
  } finally {
    await client.end();
  }
}
