/**
 * The post-call webhook payload (CONTRACT §8) and the rules that decide which webhooks a
 * finished call triggers (spec 3.5, 6).
 */
import { isoMicro } from '../db/time.js';

export type WebhookKind = 'post_call' | 'inbound';

/** What the delivery needs to know about one call, its assistant, user, lead and campaign. */
export interface CallContext {
  callId: number;
  userId: number;
  type: string;
  status: string;
  duration: number;
  assistantPhoneNumber: string;
  clientPhoneNumber: string;
  transcript: string;
  variables: Record<string, unknown>;
  evaluation: Record<string, unknown>;
  recordingUrl: string | null;
  createdAt: string;
  endedAt: string | null;
  updatedAt: string;
  webhookSecret: string;
  /** null when the call has no assistant any more. */
  assistant: {
    isWebhookActive: boolean;
    webhookUrl: string | null;
    inboundWebhookUrl: string | null;
    sendWebhookOnlyOnCompleted: boolean;
    includeRecordingInWebhook: boolean;
    deleted: boolean;
  } | null;
  lead: { id: number; campaignId: number; phoneNumber: string; variables: Record<string, unknown> } | null;
  campaign: { id: number; name: string } | null;
}

export interface WebhookPayload {
  id: number;
  customer_phone: string;
  assistant_phone: string;
  duration: number;
  status: string;
  extracted_variables: Record<string, unknown>;
  input_variables: Record<string, unknown>;
  transcript: string;
  recording_url: string | null;
  created_at: string;
  finished_at: string;
  /** No status: the dialer settles the lead's status from the same event, concurrently. */
  lead: { id: number; campaign_id: number; phone_number: string; variables: Record<string, unknown> } | null;
  campaign: { id: number; name: string } | null;
}

export function buildPayload(c: CallContext): WebhookPayload {
  const includeRecording = c.assistant?.includeRecordingInWebhook ?? false;
  return {
    id: c.callId,
    customer_phone: c.clientPhoneNumber,
    assistant_phone: c.assistantPhoneNumber,
    duration: c.duration,
    status: c.status,
    extracted_variables: c.evaluation,
    input_variables: c.variables,
    transcript: c.transcript,
    recording_url: includeRecording && c.recordingUrl ? c.recordingUrl : null,
    created_at: isoMicro(c.createdAt)!,
    finished_at: isoMicro(c.endedAt ?? c.updatedAt)!,
    lead: c.lead
      ? { id: c.lead.id, campaign_id: c.lead.campaignId, phone_number: c.lead.phoneNumber, variables: c.lead.variables }
      : null,
    campaign: c.campaign ? { id: c.campaign.id, name: c.campaign.name } : null,
  };
}

/** The URL a webhook of this kind goes to now, or null when it is switched off. */
export function currentUrl(c: CallContext, kind: WebhookKind): string | null {
  const a = c.assistant;
  if (!a || a.deleted) return null;
  if (kind === 'post_call') return a.isWebhookActive && a.webhookUrl ? a.webhookUrl : null;
  return c.type === 'inbound' && a.inboundWebhookUrl ? a.inboundWebhookUrl : null;
}

export interface Target {
  kind: WebhookKind;
  url: string;
}

/**
 * The webhooks a finished call sends. `manual` (a resend by hand) skips the
 * send-only-on-completed filter: the user asked for this call explicitly.
 * An inbound webhook to the same URL as the post-call one is sent once (as post_call).
 */
export function targetsFor(c: CallContext, opts: { manual?: boolean } = {}): Target[] {
  const a = c.assistant;
  if (!a || a.deleted) return [];
  if (!opts.manual && a.sendWebhookOnlyOnCompleted && c.status !== 'completed') return [];
  const out: Target[] = [];
  const post = currentUrl(c, 'post_call');
  if (post) out.push({ kind: 'post_call', url: post });
  const inbound = currentUrl(c, 'inbound');
  if (inbound && inbound !== post) out.push({ kind: 'inbound', url: inbound });
  return out;
}
