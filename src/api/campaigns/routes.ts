import type { FastifyInstance } from 'fastify';

export async function campaignRoutes(_app: FastifyInstance): Promise<void> {
  // routes of this resource are added by its issue
}
