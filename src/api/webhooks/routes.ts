import type { FastifyInstance } from 'fastify';

export async function webhookRoutes(_app: FastifyInstance): Promise<void> {
  // routes of this resource are added by its issue
}
