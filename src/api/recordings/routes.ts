/**
 * `GET /recordings/{call id}.wav?expires=…&signature=…`: a call's recording, for whoever holds
 * a valid link (a webhook receiver, a browser): no token, the signature is the permission.
 * An altered or expired link answers 403 and reveals nothing about the call.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { recordingLinksFor } from '../../recordings/service.js';
import { HttpError, notFound } from '../toolkit/errors.js';
import { documentedNotValidated, messageSchema } from '../toolkit/route.js';

export async function recordingRoutes(app: FastifyInstance): Promise<void> {
  const links = recordingLinksFor(app.ctx.config);
  if (!links) return; // no deployment key: no links are made, none can be served
  const store = app.ctx.recordings;

  // The link's parts are checked by the handler (documentedNotValidated): whatever is wrong
  // with a link answers 403 or 404 and says nothing about the call, never a 422.
  app.get('/recordings/:file', {
    schema: {
      tags: ['recordings'],
      summary: "A call's recording (signed link)",
      description:
        "The `recording_url` of a call, as the API and webhooks give it: a link signed with the deployment's key, valid until `expires`, needing no token. Answers the recording as a WAV file. Served only where there is a deployment key (SECRET_KEY, or the embedded setup's generated one).",
      params: z.object({ file: z.string().regex(/^\d{1,10}\.wav$/).describe('`{call id}.wav`') }),
      querystring: z.object({
        expires: z.string().regex(/^\d{1,12}$/).describe('Until when the link is valid (Unix seconds)'),
        signature: z.string().max(100),
      }),
      security: [{ recordingLink: [] }],
      response: {
        200: { description: 'The recording', content: { 'audio/wav': { schema: z.string().meta({ format: 'binary' }) } } },
        403: messageSchema.describe('The link is altered or has expired'),
        404: messageSchema.describe('No such recording (or its call was deleted)'),
      },
    },
    validatorCompiler: documentedNotValidated,
  }, async (req, reply) => {
    const { file } = req.params as { file: string };
    const query = req.query as Record<string, unknown>;
    const m = /^(\d{1,10})\.wav$/.exec(file);
    if (!m) throw notFound('Recording not found.');
    const callId = Number(m[1]);
    const refused = links.check(callId, query.expires, query.signature);
    if (refused === 'expired') throw new HttpError(403, 'This recording link has expired.');
    if (refused) throw new HttpError(403, 'This recording link is not valid.');
    const recording = await store.open(callId);
    if (!recording) throw notFound('Recording not found.');
    return reply
      .type('audio/wav')
      .header('content-length', recording.size)
      .header('cache-control', 'private, max-age=300')
      .send(recording.body);
  });
}
