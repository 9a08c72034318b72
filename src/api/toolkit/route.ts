import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type {} from './fastify.js';
import { isDbId } from './validation.js';

/** The Fastify instance with Zod-typed requests; resources define routes on it. */
export function typed(app: FastifyInstance) {
  return app.withTypeProvider<ZodTypeProvider>();
}

/** A path segment that is a positive integer our id columns can hold; anything else is a 404. */
export const pathId = () =>
  z
    .string()
    .regex(/^[1-9]\d{0,9}$/)
    .transform(Number)
    .refine(isDbId);

/** A path id: a positive integer; anything else is answered 404 (CONTRACT §1). */
export const idParam = z.object({ id: pathId() });

/** Shared response shapes for OpenAPI. */
export const messageSchema = z.object({ message: z.string() });
export const validationSchema = z.object({ message: z.string(), errors: z.record(z.string(), z.array(z.string())) });

/**
 * The `validatorCompiler` of a route whose schema documents what it reads but whose handler
 * checks the request itself (the Twilio callbacks, recording links): every request passes
 * unchanged, so the answers to odd input stay the handler's (403, 404), never a 422.
 */
export const documentedNotValidated = () => () => true;

/** The answers of a WebSocket route before any frame: the upgrade, or a plain GET refused. */
export const socketResponses = {
  101: z.null().describe('Switching Protocols: the WebSocket is open (send `Connection: Upgrade`, `Upgrade: websocket`)'),
  426: messageSchema.describe('A plain GET, without the WebSocket upgrade'),
  503: messageSchema.describe('Too many sockets of this process or address have not proven themselves yet (Retry-After says when to try again)'),
};

export const SOCKET_ONLY_MESSAGE = 'This address takes WebSocket connections only (send Connection: Upgrade and Upgrade: websocket).';

/** The `handler` of a WebSocket route declared with `wsHandler`: a plain GET is told what the address wants (426, as every error, JSON). */
export function refusePlainGet(_req: FastifyRequest, reply: FastifyReply): void {
  void reply.code(426).header('upgrade', 'websocket').send({ message: SOCKET_ONLY_MESSAGE });
}
