import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';

/**
 * The credentials a route may name in its `security`. Most routes take the bearer token;
 * the routes other parties call carry their own proof (Twilio's signature, a signed link,
 * a call's one-time media token), so the document says which one each route checks.
 */
const securitySchemes = {
  bearer: { type: 'http', scheme: 'bearer' },
  twilioSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Twilio-Signature',
    description:
      "Twilio's request signature: HMAC-SHA1 over the callback's full URL and its form fields, keyed with the auth token of the account the callback concerns (the account's own Twilio credentials, else the deployment's). A request that does not verify, or whose AccountSid is another account's, is answered 403.",
  },
  recordingLink: {
    type: 'apiKey',
    in: 'query',
    name: 'signature',
    description: 'The signature of a recording link, valid with its `expires` until then: take the whole `recording_url` of a call as given, it needs no token.',
  },
  mediaToken: {
    type: 'apiKey',
    in: 'query',
    name: 'token',
    description: "A call's one-time media token, from the `media_path` of POST /api/user/web-calls or POST /widget/calls; spent by the first socket that opens with it.",
  },
} as const;

/** OpenAPI 3.1 generated from the routes' Zod schemas: /openapi.json, interactive docs at /docs. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Switchboard API',
        version: '0.1.0',
        description: 'AI voice assistants that place and receive phone calls: tools, assistants, leads, campaigns, calls, webhooks.',
      },
      components: { securitySchemes },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
  // The UI's own routes (/docs, its assets, its copies of the document) are hidden by the plugin.
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', {
    schema: {
      tags: ['operations'],
      summary: 'This OpenAPI document',
      description: 'The routes this instance serves: GET /recordings/{file} only where there is a deployment key (SECRET_KEY, or the embedded setup’s generated one).',
      security: [],
      response: { 200: z.record(z.string(), z.unknown()).describe('An OpenAPI 3.1 document') },
    },
    config: { auth: 'none' },
  }, async () => app.swagger());
}
