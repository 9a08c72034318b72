import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';

/** The Fastify instance with Zod-typed requests; resources define routes on it. */
export function typed(app: FastifyInstance) {
  return app.withTypeProvider<ZodTypeProvider>();
}

const MAX_ID = 2_147_483_647;

/** A path segment that is a positive integer our id columns can hold; anything else is a 404. */
export const pathId = () =>
  z
    .string()
    .regex(/^[1-9]\d{0,9}$/)
    .transform(Number)
    .refine((n) => n <= MAX_ID);

/** A path id: a positive integer; anything else is answered 404 (CONTRACT §1). */
export const idParam = z.object({ id: pathId() });

/** Shared response shapes for OpenAPI. */
export const messageSchema = z.object({ message: z.string() });
export const validationSchema = z.object({ message: z.string(), errors: z.record(z.string(), z.array(z.string())) });
