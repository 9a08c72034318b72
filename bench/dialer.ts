/**
 * Dialer throughput (issue 7): one campaign of 10,000 leads on the external PostgreSQL,
 * max_calls_in_parallel 50 (the user's limit raised to 100), sandbox carrier at
 * SANDBOX_TIME_SCALE=0, one full service process (call engine + dialer) in this process.
 *
 * Reports completed calls per second (first dial to last call end) and the delay between a
 * slot freeing and the next dial: with at most 50 calls live, the (50+k)-th dial needs the
 * k-th call end, so delay_k = dial[50+k] − end[k] over the sorted times (FIFO matching).
 *
 *   npx tsx bench/dialer.ts            (standalone)
 *   npm run bench dialer               (through the harness)
 * Environment: BENCH_DIALER_LEADS (default 10000), BENCH_DIALER_PARALLEL (default 50).
 */
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { fullProcess } from '../src/compose.js';
import { executorOf } from '../src/calls/events.js';
import type { CallService, DbOrTx, PlaceCallInput } from '../src/calls/types.js';
import { loadConfig } from '../src/config.js';
import type { AppContext } from '../src/context.js';
import { assistants, calls, campaigns, leads, phoneNumbers } from '../src/db/schema.js';
import { startService } from '../src/service.js';
import { benchLogger, freshExternalDatabase, printTable, settingsNote, type Row } from './lib.js';
import { inTransaction } from '../src/db/pool.js';

const LEADS = Number(process.env.BENCH_DIALER_LEADS ?? 10_000);
const PARALLEL = Number(process.env.BENCH_DIALER_PARALLEL ?? 50);
const ADMIN_TOKEN = 'bench-admin-token-0123456789';

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * A call engine whose calls complete at once (one transaction: final record + call-finished
 * event, like the real engine's last step). Isolates the dialer's own cost: claim, limits,
 * NOTIFY wake-up, settlement.
 */
class InstantEngine implements CallService {
  readonly speaks = false;
  async offlineLlmFor(): Promise<boolean> {
    return true;
  }
  constructor(private readonly ctx: AppContext) {}

  async createCallRecords(tx: DbOrTx, inputs: readonly PlaceCallInput[]): Promise<number[]> {
    if (inputs.length === 0) return [];
    const rows = await tx
      .insert(calls)
      .values(
        inputs.map((input) => ({
          userId: input.userId,
          assistantId: input.assistantId,
          assistantName: 'Bench',
          campaignId: input.campaignId ?? null,
          leadId: input.leadId ?? null,
          secondaryContactId: input.secondaryContactId ?? null,
          type: 'outbound',
          status: 'initiated',
          clientPhoneNumber: input.to,
          variables: input.variables ?? {},
          ownerInstance: this.ctx.instanceId,
          // As the engine stamps it: the row's own time, after the claim checked the limits.
          createdAt: sql`clock_timestamp()`,
        })),
      )
      .returning({ id: calls.id });
    return rows.map((r) => r.id).sort((a, b) => a - b);
  }

  async startCall(callId: number): Promise<void> {
    setImmediate(() => void this.finish(callId).catch((err) => this.ctx.log.error({ err }, 'instant call failed')));
  }

  private async finish(callId: number): Promise<void> {
    await inTransaction(this.ctx.database.pool, async (client) => {
      const { rows } = await client.query(
        `update calls set status = 'completed', answered_by = 'human', answered_at = now(), ended_at = now(),
                transcript = 'AI: Hello.' || chr(10) || 'Customer: Hi.', updated_at = now()
          where id = $1 returning user_id`,
        [callId],
      );
      await this.ctx.services.callEvents?.emit(executorOf(client), { callId, userId: rows[0].user_id });
    });
  }

  async placeCall(input: PlaceCallInput): Promise<{ callId: number }> {
    const [callId] = await this.createCallRecords(this.ctx.database.db, [input]);
    await this.startCall(callId);
    return { callId };
  }

  activeCalls(): number {
    return 0;
  }
}

export const settings = settingsNote({ SANDBOX_TIME_SCALE: '0 (sandbox calls end at once: the dialer is measured)', LLM_BASE_URL: "'' (the offline stand-in)" });

export async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  if (!process.env.BENCH_ONLY_INSTANT) rows.push(await runOne('sandbox carrier (real call engine)', false));
  rows.push(await runOne('instant stand-in engine (dialer alone)', true));
  return rows;
}

async function runOne(engine: string, instant: boolean): Promise<Row> {
  const ext = await freshExternalDatabase('sb_bench_dialer');
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: ext.url,
    ADMIN_TOKEN,
    SANDBOX_TIME_SCALE: '0',
    LLM_BASE_URL: '',
  });
  const logs = benchLogger(config.LOG_LEVEL);
  const service = await startService({ config, databaseUrl: ext.url, listen: false, parts: fullProcess, poolSize: 20, log: logs.log });
  if (instant) service.ctx.services.calls = new InstantEngine(service.ctx);
  try {
    const { db } = service.ctx.database;
    const created = await service.app.inject({
      method: 'POST',
      url: '/api/admin/users',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', accept: 'application/json' },
      payload: JSON.stringify({ name: 'Bench', email: 'bench@example.test', max_calls_in_parallel: PARALLEL * 2 }),
    });
    const { data: user, token } = created.json() as { data: { id: number }; token: string };
    const [phone] = await db.insert(phoneNumbers).values({ userId: user.id, phoneNumber: '+4930123456', countryCode: 'DE', typeLabel: 'Normal' }).returning();
    const [assistant] = await db
      .insert(assistants)
      .values({ userId: user.id, name: 'Bench', type: 'outbound', voiceId: 1, languageId: 1, llmModelId: 1, phoneNumberId: phone.id, initialMessage: 'Hello {{customer_name}}.' })
      .returning();
    const [campaign] = await db
      .insert(campaigns)
      .values({ userId: user.id, assistantId: assistant.id, name: 'Bench campaign', timezone: 'UTC', maxCallsInParallel: PARALLEL })
      .returning();
    for (let i = 0; i < LEADS; i += 1000) {
      await db.insert(leads).values(
        Array.from({ length: Math.min(1000, LEADS - i) }, (_, j) => ({
          userId: user.id,
          campaignId: campaign.id,
          phoneNumber: `+4915${String(i + j).padStart(8, '0')}10`,
          variables: { customer_name: `Lead ${i + j}` },
        })),
      );
    }

    const started = Date.now();
    const res = await service.app.inject({
      method: 'POST',
      url: '/api/user/campaigns/update-status',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
      payload: JSON.stringify({ campaign_id: campaign.id, action: 'start' }),
    });
    if (res.statusCode !== 200) throw new Error(`campaign start failed: ${res.statusCode} ${res.body}`);

    const client = new pg.Client({ connectionString: ext.url });
    await client.connect();
    try {
      const deadline = started + 15 * 60_000;
      for (;;) {
        const { rows } = await client.query('select status from campaigns where id = $1', [campaign.id]);
        if (rows[0].status === 'completed') break;
        if (Date.now() > deadline) throw new Error('the campaign did not complete within 15 minutes');
        await new Promise((r) => setTimeout(r, 250));
      }
      const doneSeconds = (Date.now() - started) / 1000;
      const { rows } = await client.query(
        `select extract(epoch from created_at) * 1000 as s, extract(epoch from ended_at) * 1000 as e, status
           from calls where campaign_id = $1`,
        [campaign.id],
      );
      const starts = rows.map((r) => Number(r.s)).sort((a, b) => a - b);
      const ends = rows.map((r) => Number(r.e)).sort((a, b) => a - b);
      const completed = rows.filter((r) => r.status === 'completed').length;
      const span = (ends[ends.length - 1] - starts[0]) / 1000;
      const delays: number[] = [];
      for (let k = 0; k + PARALLEL < starts.length; k++) delays.push(Math.max(0, starts[k + PARALLEL] - ends[k]));
      delays.sort((a, b) => a - b);
      const durations = rows.map((r) => Number(r.e) - Number(r.s)).sort((a, b) => a - b);
      const [{ final }] = (await client.query(`select count(*)::int as final from leads where campaign_id = $1 and status <> 'created'`, [campaign.id])).rows;
      return {
          engine,
          database: 'external',
          leads: LEADS,
          parallel: PARALLEL,
          calls: rows.length,
          'completed calls/s': Math.round(completed / span),
          'call p50 ms': Math.round(percentile(durations, 50)),
          'slot→dial p50 ms': Math.round(percentile(delays, 50) * 10) / 10,
          'slot→dial p99 ms': Math.round(percentile(delays, 99) * 10) / 10,
          'leads final': final,
          notified: service.ctx.services.dialer?.notified ?? 0,
          ticks: service.ctx.services.dialer?.ticks ?? 0,
          'tick avg ms': Math.round((service.ctx.services.dialer?.tickMs ?? 0) / Math.max(1, service.ctx.services.dialer?.ticks ?? 0)),
          'campaign done s': Math.round(doneSeconds * 10) / 10,
      };
    } finally {
      await client.end();
    }
  } finally {
    await service.close();
    logs.close();
    await ext.drop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const rows = await run();
  printTable('Dialer throughput', rows, settings);
  process.exit(0);
}
