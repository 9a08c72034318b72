/** Request and response schemas of the campaign endpoints (CONTRACT §4, §5; spec 4.7). */
import { z } from 'zod';
import { msg, v } from '../toolkit/validation.js';

export const CAMPAIGN_STATUSES = ['draft', 'in-progress', 'stopped', 'completed'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

/**
 * An identifier field of a body: a JSON integer or a string of digits (CONTRACT §1), read
 * as a number. Anything else is 422 "must be an integer"; a missing or null value reads
 * "is required". An integer that names no row (0, negative, huge) passes here and is
 * answered 404 by the handler, because CONTRACT §5 answers every integer that is not one
 * of the caller's rows with 404.
 */
export function idField() {
  return z
    .unknown()
    .transform((x, ctx): number => {
      if (x === undefined || x === null) {
        ctx.addIssue({ code: 'custom', message: msg.required, input: x });
        return z.NEVER;
      }
      if (typeof x === 'number' && Number.isSafeInteger(x)) return x;
      if (typeof x === 'string' && /^\d{1,15}$/.test(x)) return Number(x);
      ctx.addIssue({ code: 'custom', message: msg.integer, input: x });
      return z.NEVER;
    })
    .meta({ anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^\\d+$' }], description: 'an id; a string of digits is accepted too' });
}

/** An optional identifier field: absent stays undefined, present values follow idField. */
export function optionalIdField() {
  return z
    .unknown()
    .transform((x, ctx): number | undefined => {
      if (x === undefined) return undefined;
      if (typeof x === 'number' && Number.isSafeInteger(x)) return x;
      if (typeof x === 'string' && /^\d{1,15}$/.test(x)) return Number(x);
      ctx.addIssue({ code: 'custom', message: msg.integer, input: x });
      return z.NEVER;
    })
    .optional()
    .meta({ anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^\\d+$' }], description: 'an id; a string of digits is accepted too' });
}

/**
 * `HH:MM`. Any pair of times is a window (src/dialer/window.ts): end after start is a daytime
 * window, end before start runs overnight, equal times mean the whole day.
 */
const hhmm = () =>
  v.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, { error: msg.dateFormat('H:i') }).describe('HH:MM, 00:00–23:59');

/** Weekday names, case-insensitive, stored lowercase, once each, Monday first. */
const allowedDays = () =>
  z
    .array(
      z.string(msg.in).transform((d) => d.toLowerCase()).pipe(z.enum(WEEKDAYS, msg.in)),
      msg.array,
    )
    .min(1, { error: 'The :attribute field must have at least 1 items.' })
    .transform((days) => WEEKDAYS.filter((d) => days.includes(d)));

/** The fields of a campaign as a client sends them; create adds defaults, update makes every one optional. */
const campaignFields = {
  name: v.string({ max: 255 }).trim().min(1, { error: msg.required }),
  assistant_id: idField(),
  timezone: v.timezone().describe("IANA time zone; defaults to the assistant's"),
  max_calls_in_parallel: v.int({ min: 1, max: 100 }),
  allowed_hours_start_time: hhmm(),
  allowed_hours_end_time: hhmm(),
  allowed_days: allowedDays(),
  max_retries: v.int({ min: 1, max: 5 }),
  retry_interval: v.int({ min: 10, max: 4320 }).describe('minutes between attempts'),
  retry_on_voicemail: v.bool(),
  retry_on_goal_incomplete: v.bool(),
  goal_completion_variable: v.string({ max: 255 }).nullable(),
  mark_complete_when_no_leads: v.bool(),
};

const GOAL_VARIABLE_REQUIRED = 'The :attribute field is required when retry on goal incomplete is true.';

export const createCampaignBody = z
  .object({
    name: campaignFields.name,
    assistant_id: campaignFields.assistant_id,
    timezone: campaignFields.timezone.optional(),
    max_calls_in_parallel: campaignFields.max_calls_in_parallel.optional().default(3),
    allowed_hours_start_time: campaignFields.allowed_hours_start_time.optional().default('00:00'),
    allowed_hours_end_time: campaignFields.allowed_hours_end_time.optional().default('23:59'),
    allowed_days: campaignFields.allowed_days.optional().default([...WEEKDAYS]),
    max_retries: campaignFields.max_retries.optional().default(3),
    retry_interval: campaignFields.retry_interval.optional().default(60),
    retry_on_voicemail: campaignFields.retry_on_voicemail.optional().default(false),
    retry_on_goal_incomplete: campaignFields.retry_on_goal_incomplete.optional().default(false),
    goal_completion_variable: campaignFields.goal_completion_variable.optional(),
    mark_complete_when_no_leads: campaignFields.mark_complete_when_no_leads.optional().default(true),
  })
  .superRefine((b, ctx) => {
    if (b.retry_on_goal_incomplete && !b.goal_completion_variable) {
      ctx.addIssue({ code: 'custom', path: ['goal_completion_variable'], message: GOAL_VARIABLE_REQUIRED });
    }
  });

/**
 * Campaign update (`PUT /api/user/campaign/{id}`): the create fields, each optional; only the
 * ones sent change. The rule that ties `retry_on_goal_incomplete` to a goal variable is
 * checked against the stored campaign by the service (the body alone may hold half of it).
 */
export const updateCampaignBody = z.object(
  Object.fromEntries(Object.entries(campaignFields).map(([k, s]) => [k, s.optional()])) as {
    [K in keyof typeof campaignFields]: z.ZodOptional<(typeof campaignFields)[K]>;
  },
);
export type UpdateCampaignInput = z.output<typeof updateCampaignBody>;
export { GOAL_VARIABLE_REQUIRED };

export type CreateCampaignInput = z.output<typeof createCampaignBody>;

/**
 * Start/stop. `status` is accepted in place of `action` when `action` is absent (CONTRACT §7,
 * issue 9); the route's preValidation hook resolves the alias, so the handler sees `action`.
 */
export const updateStatusBody = z.object({
  campaign_id: idField(),
  action: v.enum(['start', 'stop']).optional().describe('start or stop (required unless status is sent)'),
  status: v.enum(['start', 'stop']).optional().describe('alias of action, used only when action is absent'),
});

export const campaignSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.enum(CAMPAIGN_STATUSES),
  assistant_id: z.number().int(),
  timezone: z.string(),
  max_calls_in_parallel: z.number().int(),
  allowed_hours_start_time: z.string(),
  allowed_hours_end_time: z.string(),
  allowed_days: z.array(z.string()),
  max_retries: z.number().int(),
  retry_interval: z.number().int(),
  retry_on_voicemail: z.boolean(),
  retry_on_goal_incomplete: z.boolean(),
  goal_completion_variable: z.string().nullable(),
  mark_complete_when_no_leads: z.boolean(),
  created_at: z.string().describe('YYYY-MM-DD HH:MM:SS (UTC)'),
  updated_at: z.string().describe('YYYY-MM-DD HH:MM:SS (UTC)'),
});

export const updateStatusResponse = z.object({
  message: z.string(),
  success: z.boolean(),
  data: z.object({ campaign_id: z.number().int(), status: z.enum(CAMPAIGN_STATUSES) }),
});
