/** An account's results over a period (the dashboard's home page): calls by outcome per day, answer rate, durations, cost, turn latency. */
import type { FastifyInstance } from 'fastify';
import { fieldError } from '../toolkit/errors.js';
import { typed, validationSchema } from '../toolkit/route.js';
import { resultsQuery, resultsSchema, MAX_PERIOD_DAYS } from './schemas.js';
import { accountResults } from './service.js';

const tags = ['results'];

export async function resultsRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const { db } = app.ctx.database;

  r.get('/api/user/results', {
    schema: {
      tags,
      summary: "The caller's call results over a period: per day by outcome, answer rate, durations, cost, turn latency, per assistant and campaign",
      description:
        'The period is whole days (date_from to date_to, inclusive) in `timezone` (default UTC); without dates, the last 30 days up to today. ' +
        `At most ${MAX_PERIOD_DAYS} days. Filters: assistant_id, campaign_id. Costs are in \`currency\` (COST_CURRENCY). ` +
        "Turn latency: percentiles of the replies' time from the caller's end of speech to the assistant's first audio.",
      querystring: resultsQuery,
      response: { 200: resultsSchema, 422: validationSchema },
    },
  }, async (req) => {
    try {
      return await accountResults(db, req.user.id, req.query, app.ctx.config.COST_CURRENCY);
    } catch (err) {
      // A zone the browser knows but this PostgreSQL does not (its zone database is older).
      if ((err as { cause?: { code?: string }; code?: string }).cause?.code === '22023' || (err as { code?: string }).code === '22023') {
        throw fieldError('timezone', 'The timezone field must be a valid timezone.');
      }
      throw err;
    }
  });
}
