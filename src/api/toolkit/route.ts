import type { FastifyInstance } from 'fastify';
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
