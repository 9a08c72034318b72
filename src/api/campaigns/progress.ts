/**
 * A campaign in motion, for the dashboard's live view (issue 17): its leads by status, its
 * calls in flight and how many of its calls finished in each of the last minutes. Three
 * small index-backed queries, cheap enough to poll every few seconds.
 */
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { LIVE_STATUSES } from '../../calls/state-machine.js';
import { rowsOf, type Db } from '../../db/pool.js';
import { LEAD_STATUSES, type LeadStatus } from '../leads/schemas.js';
import { CAMPAIGN_STATUSES, type CampaignStatus } from './schemas.js';

/** Minutes of history in `calls_finished_per_minute`. */
export const PROGRESS_MINUTES = 15;

export const progressSchema = z.object({
  campaign_id: z.number().int(),
  status: z.enum(CAMPAIGN_STATUSES),
  leads: z.object({
    total: z.number().int(),
    created: z.number().int(),
    completed: z.number().int(),
    'reached-max-retries': z.number().int(),
  }),
  calls_in_flight: z.number().int().describe('calls of the campaign in initiated, ringing or in-progress'),
  calls_finished_per_minute: z
    .array(z.object({ minute: z.string().describe('YYYY-MM-DD HH:MM:00 (UTC)'), count: z.number().int() }))
    .describe(`calls of the campaign that reached a final status, per minute, the last ${PROGRESS_MINUTES} minutes (the current one last)`),
});
export type CampaignProgress = z.infer<typeof progressSchema>;

export async function campaignProgress(db: Db, userId: number, campaign: { id: number; status: string }): Promise<CampaignProgress> {
  const [byStatus, inFlight, finished] = await Promise.all([
    db.execute(sql`select status, count(*)::int as n from leads where campaign_id = ${campaign.id} group by status`),
    db.execute(sql`
      select count(*)::int as n from calls
       where user_id = ${userId} and campaign_id = ${campaign.id}
         and status in (${sql.join(LIVE_STATUSES.map((s) => sql`${s}`), sql`, `)})`),
    // Calls last at most 20 minutes (max_call_duration), so the ones that finished in the
    // window were created in the window plus that: the created_at bound keeps the scan on the
    // campaign's newest index entries.
    db.execute(sql`
      select to_char(date_trunc('minute', ended_at at time zone 'UTC'), 'YYYY-MM-DD HH24:MI:00') as minute, count(*)::int as n
        from calls
       where user_id = ${userId} and campaign_id = ${campaign.id}
         and created_at >= now() - make_interval(mins => ${PROGRESS_MINUTES + 25})
         and ended_at >= date_trunc('minute', now()) - make_interval(mins => ${PROGRESS_MINUTES - 1})
       group by 1`),
  ]);
  const leads = { total: 0, created: 0, completed: 0, 'reached-max-retries': 0 } satisfies Record<LeadStatus | 'total', number>;
  for (const r of rowsOf<{ status: string; n: number }>(byStatus)) {
    if ((LEAD_STATUSES as readonly string[]).includes(r.status)) leads[r.status as LeadStatus] += r.n;
    leads.total += r.n;
  }
  const counts = new Map(rowsOf<{ minute: string; n: number }>(finished).map((r) => [r.minute, r.n]));
  const now = new Date();
  now.setUTCSeconds(0, 0);
  const perMinute: CampaignProgress['calls_finished_per_minute'] = [];
  for (let i = PROGRESS_MINUTES - 1; i >= 0; i--) {
    const minute = `${new Date(now.getTime() - i * 60_000).toISOString().slice(0, 16).replace('T', ' ')}:00`;
    perMinute.push({ minute, count: counts.get(minute) ?? 0 });
  }
  return {
    campaign_id: campaign.id,
    status: campaign.status as CampaignStatus,
    leads,
    calls_in_flight: rowsOf<{ n: number }>(inFlight)[0]?.n ?? 0,
    calls_finished_per_minute: perMinute,
  };
}
