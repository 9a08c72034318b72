/**
 * The call record of spec 2.5, shared by the calls API, webhooks and the dialer.
 */
import { z } from 'zod';
import type { calls } from '../../db/schema.js';
import { sqlDateTime } from '../../db/time.js';

/** The columns the record is built from (a full `calls` row satisfies it). */
export type CallRow = Pick<
  typeof calls.$inferSelect,
  | 'id'
  | 'assistantName'
  | 'campaignName'
  | 'type'
  | 'duration'
  | 'assistantPhoneNumber'
  | 'clientPhoneNumber'
  | 'status'
  | 'transcript'
  | 'variables'
  | 'evaluation'
  | 'webhookResponse'
  | 'carrierCost'
  | 'totalCost'
  | 'answeredBy'
  | 'recordingUrl'
  | 'createdAt'
  | 'updatedAt'
>;

export interface CallRecord {
  id: number;
  assistant_name: string;
  campaign_name: string | null;
  type: string;
  duration: number;
  assistant_phone_number: string;
  client_phone_number: string;
  status: string;
  transcript: string;
  variables: Record<string, unknown>;
  evaluation: Record<string, unknown>;
  webhook_response: Record<string, unknown>;
  carrier_cost: number;
  total_cost: number;
  answered_by: string;
  recording_url: string | null;
  created_at: string;
  updated_at: string;
}

/** A JSON object as the spec types it; anything else stored (array, scalar) is wrapped as `{body}`. */
function asObject(value: unknown): Record<string, unknown> {
  if (value === null || value === undefined) return {};
  if (typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  return { body: value };
}

/** numeric(16,8) arrives as a string from pg; the API shows a number with up to 8 decimals. */
export function costNumber(value: string | number | null | undefined): number {
  const n = typeof value === 'number' ? value : Number(value ?? 0);
  return Number.isFinite(n) ? n : 0;
}

export function serializeCall(row: CallRow): CallRecord {
  return {
    id: row.id,
    assistant_name: row.assistantName,
    campaign_name: row.campaignName ?? null,
    type: row.type,
    duration: Math.trunc(Number(row.duration) || 0),
    assistant_phone_number: row.assistantPhoneNumber,
    client_phone_number: row.clientPhoneNumber,
    status: row.status,
    transcript: row.transcript ?? '',
    variables: asObject(row.variables),
    evaluation: asObject(row.evaluation),
    webhook_response: asObject(row.webhookResponse),
    carrier_cost: costNumber(row.carrierCost),
    total_cost: costNumber(row.totalCost),
    answered_by: row.answeredBy,
    recording_url: row.recordingUrl ?? null,
    created_at: sqlDateTime(row.createdAt) ?? '',
    updated_at: sqlDateTime(row.updatedAt) ?? '',
  };
}

/** A call as the list reads it (see listCalls): the JSON columns are PostgreSQL's JSON text, unparsed. */
export type ListedCallRow = Omit<CallRow, 'variables' | 'evaluation' | 'webhookResponse'> & {
  variables: string | null;
  evaluation: string | null;
  webhookResponse: string | null;
};

/** `asObject` on JSON text: an object as it is, `null` as `{}`, anything else wrapped as `{"body":…}`. */
function objectJson(text: string | null): string {
  if (text === null || text === 'null') return '{}';
  return text.startsWith('{') ? text : `{"body":${text}}`;
}

const str = JSON.stringify;

/**
 * The JSON text of `serializeCall`'s record for a listed call, written directly: the list's
 * records are built as text, with their JSON columns as PostgreSQL wrote them (parsing those
 * only to serialize them again cost a tenth of the service's CPU per page). Same keys, order
 * and values as `serializeCall`; test/api/calls/list.test.ts compares every listed record
 * with the same call read alone.
 */
export function renderCallRecord(row: ListedCallRow): string {
  return (
    `{"id":${row.id}` +
    `,"assistant_name":${str(row.assistantName)}` +
    `,"campaign_name":${row.campaignName === null ? 'null' : str(row.campaignName)}` +
    `,"type":${str(row.type)}` +
    `,"duration":${Math.trunc(Number(row.duration) || 0)}` +
    `,"assistant_phone_number":${str(row.assistantPhoneNumber)}` +
    `,"client_phone_number":${str(row.clientPhoneNumber)}` +
    `,"status":${str(row.status)}` +
    `,"transcript":${str(row.transcript ?? '')}` +
    `,"variables":${objectJson(row.variables)}` +
    `,"evaluation":${objectJson(row.evaluation)}` +
    `,"webhook_response":${objectJson(row.webhookResponse)}` +
    `,"carrier_cost":${costNumber(row.carrierCost)}` +
    `,"total_cost":${costNumber(row.totalCost)}` +
    `,"answered_by":${str(row.answeredBy)}` +
    `,"recording_url":${row.recordingUrl === null ? 'null' : str(row.recordingUrl)}` +
    `,"created_at":${str(sqlDateTime(row.createdAt) ?? '')}` +
    `,"updated_at":${str(sqlDateTime(row.updatedAt) ?? '')}}`
  );
}

/** OpenAPI description of the record. */
export const callRecordSchema = z.object({
  id: z.number().int(),
  assistant_name: z.string().describe('assistant that handled the call (kept after the assistant is deleted)'),
  campaign_name: z.string().nullable().describe('campaign of the call; null when the call is not part of a campaign'),
  type: z.string().describe('inbound, outbound or web'),
  duration: z.number().int().describe('seconds'),
  assistant_phone_number: z.string(),
  client_phone_number: z.string(),
  status: z.string().describe('initiated, ringing, busy, in-progress, ended, completed, ended_by_customer, ended_by_assistant, no-answer, failed'),
  transcript: z.string(),
  variables: z.record(z.string(), z.unknown()),
  evaluation: z.record(z.string(), z.unknown()),
  webhook_response: z.record(z.string(), z.unknown()),
  carrier_cost: z.number(),
  total_cost: z.number(),
  answered_by: z.string().describe('human, machine or unknown'),
  recording_url: z.string().nullable(),
  created_at: z.string().describe('YYYY-MM-DD HH:MM:SS (UTC)'),
  updated_at: z.string().describe('YYYY-MM-DD HH:MM:SS (UTC)'),
});
