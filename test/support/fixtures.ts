/**
 * Direct-to-database fixtures, for tests of one resource that need rows of another
 * (e.g. a campaign needs an assistant) without going through that resource's API.
 */
import type { TestService } from './service.js';
import { assistants, campaigns, leads, phoneNumbers, secondaryContacts } from '../../src/db/schema.js';

type AssistantInsert = typeof assistants.$inferInsert;
type CampaignInsert = typeof campaigns.$inferInsert;
type LeadInsert = typeof leads.$inferInsert;

export async function insertPhoneNumber(t: TestService, userId: number, phone = `+49301${Math.floor(1e6 + Math.random() * 8e6)}`) {
  const [row] = await t.service.ctx.database.db
    .insert(phoneNumbers)
    .values({ userId, phoneNumber: phone, countryCode: 'DE', typeLabel: 'Normal' })
    .returning();
  return row;
}

/** An active outbound pipeline assistant (voice 1 = a public pipeline voice, language English). */
export async function insertAssistant(t: TestService, userId: number, overrides: Partial<AssistantInsert> = {}) {
  const [row] = await t.service.ctx.database.db
    .insert(assistants)
    .values({
      userId,
      name: 'Test assistant',
      type: 'outbound',
      voiceId: 1,
      language: 'English',
      languageId: 1,
      llmModelId: 1,
      initialMessage: 'Hello {{customer_name}}, this is Switchboard.',
      systemPrompt: 'You are a helpful assistant.',
      ...overrides,
    })
    .returning();
  return row;
}

export async function insertCampaign(t: TestService, userId: number, assistantId: number, overrides: Partial<CampaignInsert> = {}) {
  const [row] = await t.service.ctx.database.db
    .insert(campaigns)
    .values({ userId, assistantId, name: 'Test campaign', timezone: 'UTC', ...overrides })
    .returning();
  return row;
}

export async function insertLead(
  t: TestService,
  userId: number,
  campaignId: number,
  overrides: Partial<LeadInsert> = {},
  secondary: { phoneNumber: string; variables?: Record<string, unknown> }[] = [],
) {
  const { db } = t.service.ctx.database;
  const [row] = await db
    .insert(leads)
    .values({ userId, campaignId, phoneNumber: '+4915123456789', ...overrides })
    .returning();
  for (const [i, s] of secondary.entries()) {
    await db.insert(secondaryContacts).values({ leadId: row.id, position: i, phoneNumber: s.phoneNumber, variables: s.variables ?? {} });
  }
  return row;
}
