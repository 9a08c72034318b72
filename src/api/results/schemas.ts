/**
 * Request and answer of GET /api/user/results: one account's calls summed up over a period of
 * whole days in a time zone. Query values arrive as strings; an empty value counts as not sent,
 * as in the call list's filters.
 */
import { z } from 'zod';
import { isCalendarDate, isTimezone, msg, optionalQuery, queryId as idString } from '../toolkit/validation.js';

/** The longest period one request may cover, in days (a leap year). */
export const MAX_PERIOD_DAYS = 366;
/** The period when none is given: the last 30 days, today included. */
export const DEFAULT_PERIOD_DAYS = 30;

/**
 * What became of a call, for the charts: `answered` (a person took it), `voicemail` (a machine
 * took it), `no-answer`, `busy`, `failed` (never connected), `not-connected` (ended by the
 * service before anyone answered), `live` (still ringing or talking).
 */
export const OUTCOMES = ['answered', 'voicemail', 'no-answer', 'busy', 'failed', 'not-connected', 'live'] as const;
export type Outcome = (typeof OUTCOMES)[number];



const dateString = z.string().refine(isCalendarDate, { error: msg.dateFormat('Y-m-d') });

export const resultsQuery = z
  .object({
    date_from: optionalQuery(dateString).describe('first day of the period, YYYY-MM-DD in `timezone` (default: 29 days before date_to)'),
    date_to: optionalQuery(dateString).describe('last day of the period, YYYY-MM-DD in `timezone`, inclusive (default: today)'),
    timezone: optionalQuery(z.string().max(64, { error: msg.maxString(64) }).refine(isTimezone, { error: msg.timezone }))
      .describe('IANA time zone whose days the calls are counted in, e.g. Europe/Berlin (default UTC)'),
    assistant_id: optionalQuery(idString).describe("only this assistant's calls"),
    campaign_id: optionalQuery(idString).describe("only this campaign's calls"),
  });
export type ResultsQuery = z.output<typeof resultsQuery>;

const latency = z
  .object({
    turns: z.number().int().describe('replies measured'),
    p50_ms: z.number().nullable().describe('median time from the caller\'s end of speech to the assistant\'s first audio, ms; null without replies'),
    p95_ms: z.number().nullable().describe('95th percentile of the same, ms'),
  })
  .describe("turn latency of the assistant's replies (call turns of kind reply with a first audio time)");

const summary = {
  calls: z.number().int(),
  answered: z.number().int().describe('calls a person answered'),
  answer_rate: z.number().nullable().describe('answered / finished calls (all but live ones), 0-1; null when none finished'),
  average_duration: z.number().nullable().describe('mean duration of answered calls, seconds; null when none'),
  cost: z.number().describe('sum of total_cost, in `currency`'),
  latency,
};

const group = z.object({
  id: z.number().int().nullable().describe('null: calls of assistants since deleted ("Deleted assistants"), or calls outside campaigns, a deleted campaign\'s included ("Outside campaigns")'),
  name: z.string(),
  ...summary,
});

export const resultsSchema = z.object({
  date_from: z.string().describe('YYYY-MM-DD'),
  date_to: z.string().describe('YYYY-MM-DD, inclusive'),
  timezone: z.string(),
  currency: z.string().describe('ISO 4217 code of every cost (the service\'s COST_CURRENCY)'),
  outcomes: z.array(z.enum(OUTCOMES)).describe('the outcome keys, in chart order'),
  totals: z.object({ ...summary, voicemail: z.number().int(), finished: z.number().int().describe('calls that are not live') }),
  days: z
    .array(z.object({
      day: z.string().describe('YYYY-MM-DD in `timezone`'),
      calls: z.number().int(),
      outcomes: z.record(z.enum(OUTCOMES), z.number().int()).describe('calls of the day by outcome (every key present)'),
      cost: z.number(),
    }))
    .describe('every day of the period, oldest first, days without calls included'),
  assistants: z.array(group).describe('per assistant with calls in the period, most calls first'),
  campaigns: z.array(group).describe('per campaign with calls in the period, most calls first; id null: calls outside campaigns'),
});
export type Results = z.infer<typeof resultsSchema>;
