import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';

/** The Fastify instance with Zod-typed requests; resources define routes on it. */
export function typed(app: FastifyInstance) {
  return app.withTypeProvider<ZodTypeProvider>();
}

/** A path id: a positive integer; anything else is answered 404 (CONTRACT §1). */
export const idParam = z.object({ id: z.string().regex(/^[1-9]\d{0,9}$/).transform(Number) });

/** Shared response shapes for OpenAPI. */
export const messageSchema = z.object({ message: z.string() });
export const validationSchema = z.object({ message: z.string(), errors: z.record(z.string(), z.array(z.string())) });
