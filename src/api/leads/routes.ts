import type { FastifyInstance } from 'fastify';

export async function leadRoutes(_app: FastifyInstance): Promise<void> {
  // routes of this resource are added by its issue
}
