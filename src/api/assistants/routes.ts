import type { FastifyInstance } from 'fastify';

export async function assistantRoutes(_app: FastifyInstance): Promise<void> {
  // routes of this resource are added by its issue
}
