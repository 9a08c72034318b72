import type { FastifyInstance } from 'fastify';
import { accountRoutes } from './account/routes.js';
import { adminRoutes } from './admin/routes.js';
import { providerLookupRoutes } from './assistants/providers.js';
import { assistantRoutes } from './assistants/routes.js';
import { assistantVersionRoutes } from './assistants/version-routes.js';
import { assistantTestRoutes } from './assistant-tests/routes.js';
import { twilioRoutes } from './carriers/twilio.js';
import { recordingRoutes } from './recordings/routes.js';
import { callRoutes } from './calls/routes.js';
import { makeCallRoutes } from './calls/make-call.js';
import { callTurnRoutes } from './calls/turns.js';
import { campaignRoutes } from './campaigns/routes.js';
import { knowledgeBaseRoutes } from './knowledgebases/routes.js';
import { leadRoutes } from './leads/routes.js';
import { phoneNumberRoutes } from './phone-numbers/routes.js';
import { providerKeyRoutes } from './provider-keys/routes.js';
import { referenceRoutes } from './reference/routes.js';
import { resultsRoutes } from './results/routes.js';
import { sandboxRoutes } from './sandbox/routes.js';
import { toolRoutes } from './tools/routes.js';
import { webCallRoutes } from './web-calls/routes.js';
import { webhookRoutes } from './webhooks/routes.js';
import { widgetRoutes } from './widget/routes.js';

/** Every resource of the API, one plugin each (src/api/<resource>/routes.ts). */
export async function registerApi(app: FastifyInstance): Promise<void> {
  for (const plugin of [
    adminRoutes,
    accountRoutes,
    referenceRoutes,
    phoneNumberRoutes,
    toolRoutes,
    assistantRoutes,
    knowledgeBaseRoutes,
    assistantVersionRoutes,
    assistantTestRoutes,
    providerLookupRoutes,
    leadRoutes,
    campaignRoutes,
    callRoutes,
    resultsRoutes,
    callTurnRoutes,
    makeCallRoutes,
    sandboxRoutes,
    webhookRoutes,
    providerKeyRoutes,
    webCallRoutes,
    widgetRoutes,
    twilioRoutes,
    recordingRoutes,
  ]) {
    await app.register(plugin);
  }
}
