/** Loads what the webhook delivery needs about calls, in one query per batch. */
import { publicRecordingUrl, type RecordingLinks } from '../recordings/links.js';
import { eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { assistants, calls, campaigns, leads, users } from '../db/schema.js';
import type { CallContext } from './payload.js';

export async function loadCallContexts(db: Db, callIds: number[], links: RecordingLinks | null = null): Promise<Map<number, CallContext>> {
  const out = new Map<number, CallContext>();
  if (callIds.length === 0) return out;
  const rows = await db
    .select({
      callId: calls.id,
      userId: calls.userId,
      type: calls.type,
      status: calls.status,
      duration: calls.duration,
      assistantPhoneNumber: calls.assistantPhoneNumber,
      clientPhoneNumber: calls.clientPhoneNumber,
      transcript: calls.transcript,
      variables: calls.variables,
      evaluation: calls.evaluation,
      recordingUrl: calls.recordingUrl,
      createdAt: calls.createdAt,
      endedAt: calls.endedAt,
      updatedAt: calls.updatedAt,
      webhookSecret: users.webhookSecret,
      assistantId: assistants.id,
      isWebhookActive: assistants.isWebhookActive,
      webhookUrl: assistants.webhookUrl,
      inboundWebhookUrl: assistants.inboundWebhookUrl,
      sendWebhookOnlyOnCompleted: assistants.sendWebhookOnlyOnCompleted,
      includeRecordingInWebhook: assistants.includeRecordingInWebhook,
      assistantDeleted: sql<boolean>`${assistants.deletedAt} is not null`,
      leadId: leads.id,
      leadCampaignId: leads.campaignId,
      leadPhoneNumber: leads.phoneNumber,
      leadVariables: leads.variables,
      campaignId: campaigns.id,
      campaignName: campaigns.name,
    })
    .from(calls)
    .innerJoin(users, eq(users.id, calls.userId))
    .leftJoin(assistants, eq(assistants.id, calls.assistantId))
    .leftJoin(leads, eq(leads.id, calls.leadId))
    .leftJoin(campaigns, eq(campaigns.id, calls.campaignId))
    .where(inArray(calls.id, callIds));
  for (const r of rows) {
    out.set(r.callId, {
      callId: r.callId,
      userId: r.userId,
      type: r.type,
      status: r.status,
      duration: r.duration,
      assistantPhoneNumber: r.assistantPhoneNumber,
      clientPhoneNumber: r.clientPhoneNumber,
      transcript: r.transcript,
      variables: r.variables,
      evaluation: r.evaluation,
      // A kept recording is linked with a fresh signed link when the payload is built.
      recordingUrl: publicRecordingUrl(r.recordingUrl, links),
      createdAt: r.createdAt,
      endedAt: r.endedAt,
      updatedAt: r.updatedAt,
      webhookSecret: r.webhookSecret,
      assistant: r.assistantId === null
        ? null
        : {
            isWebhookActive: r.isWebhookActive!,
            webhookUrl: r.webhookUrl,
            inboundWebhookUrl: r.inboundWebhookUrl,
            sendWebhookOnlyOnCompleted: r.sendWebhookOnlyOnCompleted!,
            includeRecordingInWebhook: r.includeRecordingInWebhook!,
            deleted: r.assistantDeleted,
          },
      lead: r.leadId === null
        ? null
        : { id: r.leadId, campaignId: r.leadCampaignId!, phoneNumber: r.leadPhoneNumber!, variables: r.leadVariables! },
      campaign: r.campaignId === null ? null : { id: r.campaignId, name: r.campaignName! },
    });
  }
  return out;
}
