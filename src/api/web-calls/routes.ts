/**
 * Browser calls: `POST /api/user/web-calls` creates a call of type `web` for one of the
 * user's assistants and answers the media socket's one-time path; `GET /web-calls/{id}/media`
 * is that WebSocket (protocol in src/telephony/web/protocol.ts). The socket needs no bearer
 * token (browsers cannot send one on a WebSocket): the one-time token is the credential.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { WebCarrier } from '../../telephony/web/carrier.js';
import { messageSchema, pathId, refusePlainGet, socketResponses, typed, validationSchema } from '../toolkit/route.js';
import { v } from '../toolkit/validation.js';
import { browserSocket } from './socket.js';
import { callCapabilities, spendMediaToken, startWebCall } from './service.js';

const tags = ['web calls'];

export const webCallStartedSchema = z.object({
  call_id: z.number().int(),
  mode: z.enum(['audio', 'text']),
  media_path: z.string(),
  expires_in: z.number().int(),
});

const startBody = z.object({
  assistant_id: v.id(),
  mode: v.enum(['audio', 'text']).optional(),
  variables: v.object().nullable().optional(),
});

/** WebSocket close codes the page can tell apart (4000–4999 are the application's). */
export const CLOSE_TOKEN_REFUSED = 4401;
export const CLOSE_NOT_WAITING = 4409;
/** The owner's calls (or, for a widget call, its key's share of them) fill max_calls_in_parallel: the token stays good until it expires. */
export const CLOSE_LIMIT_REACHED = 4429;

export async function webCallRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);

  r.get('/api/user/web-calls/capabilities', {
    schema: {
      tags,
      summary: 'Whether browser calls can be spoken here, and who answers',
      description:
        '`speech` is false when no speech-to-text provider is configured for the caller (the deployment\'s, or the account\'s own key): browser calls are then typed conversations with the same engine. `offline_llm` is true when no LLM is configured and the caller has stored no LLM key of their own (Provider keys): replies come from the offline stand-in (a few canned lines), not a model.',
      response: { 200: z.object({ speech: z.boolean(), offline_llm: z.boolean() }) },
    },
  }, async (req) => callCapabilities(app.ctx, req.user.id));

  r.post('/api/user/web-calls', {
    schema: {
      tags,
      summary: 'Start a browser call with an assistant',
      description:
        'Creates a call of type `web` and answers the path of its media WebSocket with a one-time token valid for `expires_in` seconds. `mode` `audio` (the default) is granted when speech is available, else the call is a typed conversation (`mode: text`). The call takes one of max_calls_in_parallel when the page connects (429 here when they are all taken already). A page that never connects ends the call as failed.',
      body: startBody,
      response: { 200: webCallStartedSchema, 404: messageSchema, 422: z.union([messageSchema, validationSchema]), 429: messageSchema, 503: messageSchema },
    },
  }, async (req) =>
    startWebCall(app.ctx, { userId: req.user.id, assistantId: req.body.assistant_id, mode: req.body.mode ?? 'audio', variables: req.body.variables ?? {} }),
  );

  // `wsHandler`, not `websocket: true`: @fastify/websocket hides `websocket: true` routes
  // from /openapi.json. `handler` answers a plain GET as the plugin does for those (404).
  r.route({
    method: 'GET',
    url: '/web-calls/:id/media',
    config: { auth: 'none' },
    schema: {
      tags,
      summary: 'The media WebSocket of a browser call',
      description:
        'A WebSocket: open it with the `media_path` from POST /api/user/web-calls or POST /widget/calls (protocol in src/telephony/web/protocol.ts). The one-time `token` is the credential, browsers cannot send a bearer token on a WebSocket. Closed with code 4401 when the token is wrong, used or expired, 4409 when the call is no longer waiting, 4429 when the owner’s calls (for a widget call: its key’s share, WIDGET_KEY_SHARE) fill max_calls_in_parallel — the slot is taken here, when the page connects, not when the call is created — 1008 when the token could not be checked within WS_START_TIMEOUT (5 s). Pinged every WS_HEARTBEAT_INTERVAL (20 s): a socket that answered no ping by the next is dropped.',
      params: z.object({ id: pathId() }),
      querystring: z.object({ token: z.string().max(100).optional() }),
      security: [{ mediaToken: [] }],
      response: socketResponses,
    },
    handler: refusePlainGet,
    wsHandler: async (ws, req) => {
      const watched = app.socketGuard.watch(ws, req);
      const socket = browserSocket(ws);
      const callId = req.params.id;
      const spent = await spendMediaToken(app.ctx, callId, req.query.token ?? '');
      const carrier = app.ctx.carriers.get('web');
      const engine = app.ctx.services.calls;
      if ('refused' in spent || !(carrier instanceof WebCarrier) || !engine) {
        if ('refused' in spent && spent.refused === 'busy') socket.close(CLOSE_LIMIT_REACHED, 'too many calls in parallel');
        else socket.close(CLOSE_TOKEN_REFUSED, 'token refused');
        return;
      }
      const { mode } = spent;
      watched.authenticated();
      carrier.attach(callId, socket, mode);
      await engine.startCall(callId);
      // Still waiting: the call was not this socket's to run (ended already, or another's).
      if (carrier.detach(callId, socket)) socket.close(CLOSE_NOT_WAITING, 'call is not waiting');
    },
  });
}
