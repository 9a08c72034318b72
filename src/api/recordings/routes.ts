/**
 * `GET /recordings/{call id}.wav?expires=…&signature=…`: a call's recording, for whoever holds
 * a valid link (a webhook receiver, a browser): no token, the signature is the permission.
 * An altered or expired link answers 403 and reveals nothing about the call.
 */
import type { FastifyInstance } from 'fastify';
import { recordingLinksFor } from '../../recordings/service.js';
import { recordingStoreFor } from '../../recordings/store.js';
import { HttpError, notFound } from '../toolkit/errors.js';

export async function recordingRoutes(app: FastifyInstance): Promise<void> {
  const links = recordingLinksFor(app.ctx.config);
  if (!links) return; // no deployment key: no links are made, none can be served
  const store = recordingStoreFor(app.ctx.config);
  app.addHook('onClose', async () => (store as { close?: () => void }).close?.());

  app.get('/recordings/:file', { schema: { hide: true } }, async (req, reply) => {
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
