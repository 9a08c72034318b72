import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { typed } from '../toolkit/route.js';

export async function accountRoutes(app: FastifyInstance): Promise<void> {
  typed(app).get('/api/user/me', {
    schema: {
      tags: ['account'],
      summary: 'The authenticated user',
      response: {
        200: z.object({ id: z.number().int(), name: z.string(), email: z.string(), max_tools: z.number().int(), max_calls_in_parallel: z.number().int() }),
      },
    },
  }, async (req) => ({
    id: req.user.id,
    name: req.user.name,
    email: req.user.email,
    max_tools: req.user.maxTools,
    max_calls_in_parallel: req.user.maxCallsInParallel,
  }));
}
