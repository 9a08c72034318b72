/** Campaign row → the campaign record of CONTRACT §4. */
import type { campaigns } from '../../db/schema.js';
import { sqlDateTime } from '../../db/time.js';
import type { CampaignStatus } from './schemas.js';

export type CampaignRow = typeof campaigns.$inferSelect;

export function serializeCampaign(row: CampaignRow) {
  return {
    id: row.id,
    name: row.name,
    status: row.status as CampaignStatus,
    assistant_id: row.assistantId,
    timezone: row.timezone,
    max_calls_in_parallel: row.maxCallsInParallel,
    allowed_hours_start_time: row.allowedHoursStartTime,
    allowed_hours_end_time: row.allowedHoursEndTime,
    allowed_days: row.allowedDays,
    max_retries: row.maxRetries,
    retry_interval: row.retryInterval,
    retry_on_voicemail: row.retryOnVoicemail,
    retry_on_goal_incomplete: row.retryOnGoalIncomplete,
    goal_completion_variable: row.goalCompletionVariable,
    mark_complete_when_no_leads: row.markCompleteWhenNoLeads,
    created_at: sqlDateTime(row.createdAt)!,
    updated_at: sqlDateTime(row.updatedAt)!,
  };
}
