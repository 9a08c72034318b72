/** Invariants of a finished campaign, read from the database (integration and crash tests). */
import pg from 'pg';

export interface CampaignReport {
  leads: { id: number; status: string; attempts: number; current_call_id: number | null }[];
  calls: { id: number; lead_id: number | null; secondary_contact_id: number | null; status: string; start: number; end: number | null }[];
  secondary: { id: number; lead_id: number; status: string; attempts: number }[];
}

export async function readCampaign(url: string, campaignId: number): Promise<CampaignReport> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const leads = (await c.query('select id, status, attempts, current_call_id from leads where campaign_id = $1 order by id', [campaignId])).rows;
    const calls = (
      await c.query(
        `select id, lead_id, secondary_contact_id, status,
                extract(epoch from created_at) * 1e6 as start, extract(epoch from ended_at) * 1e6 as "end"
           from calls where campaign_id = $1 order by id`,
        [campaignId],
      )
    ).rows.map((r) => ({ ...r, start: Number(r.start), end: r.end === null ? null : Number(r.end) }));
    const secondary = (
      await c.query('select s.id, s.lead_id, s.status, s.attempts from secondary_contacts s join leads l on l.id = s.lead_id where l.campaign_id = $1', [campaignId])
    ).rows;
    return { leads, calls, secondary };
  } finally {
    await c.end();
  }
}

/** The most call intervals [start, end) open at one instant (ends sort before starts at a tie). */
export function maxConcurrent(calls: { start: number; end: number | null }[]): number {
  const events: [number, number][] = [];
  for (const c of calls) {
    events.push([c.start, 1]);
    events.push([c.end ?? Number.MAX_SAFE_INTEGER, -1]);
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let max = 0;
  for (const [, d] of events) {
    open += d;
    max = Math.max(max, open);
  }
  return max;
}

/** Leads that had two calls whose intervals overlap. */
export function leadsWithOverlappingCalls(calls: CampaignReport['calls']): number[] {
  const byLead = new Map<number, CampaignReport['calls']>();
  for (const c of calls) {
    if (c.lead_id === null) continue;
    if (!byLead.has(c.lead_id)) byLead.set(c.lead_id, []);
    byLead.get(c.lead_id)!.push(c);
  }
  const bad: number[] = [];
  for (const [lead, list] of byLead) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 1; i < list.length; i++) {
      const prevEnd = list[i - 1].end;
      if (prevEnd === null || list[i].start < prevEnd) {
        bad.push(lead);
        break;
      }
    }
  }
  return bad;
}

/** Calls per (lead, contact): no contact may have more than max_retries attempts. */
export function attemptsPerContact(calls: CampaignReport['calls']): Map<string, number> {
  const counts = new Map<string, number>();
  for (const c of calls) {
    const key = `${c.lead_id}:${c.secondary_contact_id ?? 'primary'}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs: number, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
