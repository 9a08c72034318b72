/**
 * What Twilio calls on us (issue 16). No bearer token: every HTTP callback is checked against
 * `X-Twilio-Signature` with the auth token of the account it concerns (the call's account, or
 * the number's for the inbound webhook; the deployment's when that account stored none) and
 * refused with 403 when it does not verify; the media socket is taken only with the call's
 * one-time token.
 *
 *   POST /carriers/twilio/voice   inbound calls: TwiML opening a stream, or a polite refusal
 *   POST /carriers/twilio/status  call progress and answering-machine verdicts (?call=<id>)
 *   GET  /carriers/twilio/media   the media-stream WebSocket; the session runs on this instance
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { INBOUND_REFUSALS, type RemoteProgress } from '../../calls/remote-calls.js';
import type { CallEngine } from '../../calls/engine.js';
import { answeredByOf } from '../../telephony/twilio/leg.js';
import { TWILIO_CARRIER, TWILIO_ROUTES, type TwilioCarrier } from '../../telephony/twilio/carrier.js';
import { parseMediaMessage, type TwilioMediaMessage } from '../../telephony/twilio/media-protocol.js';
import type { TwilioLeg } from '../../telephony/twilio/leg.js';
import { z } from 'zod';
import { HttpError } from '../toolkit/errors.js';
import { documentedNotValidated, messageSchema, refusePlainGet, socketResponses } from '../toolkit/route.js';

/** What a caller hears when a number cannot take the call. */
export const INBOUND_REFUSAL_TEXT = 'We are sorry, but this number cannot take your call right now. Please try again later. Goodbye.';

const STATUS_PROGRESS: Record<string, RemoteProgress | undefined> = {
  ringing: 'ringing',
  'in-progress': 'answered',
  busy: 'busy',
  'no-answer': 'no-answer',
  failed: 'failed',
  canceled: 'canceled',
  completed: 'completed',
};

const forbidden = () => new HttpError(403, 'Forbidden.');
/** Twilio's callback forms are a few KiB; set on each route so its 413 names this limit. */
const BODY_LIMIT = 64 * 1024;

/*
 * What /openapi.json says of these routes. Twilio's forms are read field by field and
 * proven by the signature, not validated by shape (documentedNotValidated): a form that
 * does not verify is a 403, as before. Twilio sends more fields than these; the signature
 * covers them all.
 */
const tags = ['carrier callbacks'];
const callbackSecurity = [{ twilioSignature: [] }];
const FORM = 'application/x-www-form-urlencoded';
const accountSid = z.string().optional().describe('The Twilio account; when present it must be the account whose auth token verified the signature, else 403');
const voiceForm = z.looseObject({
  AccountSid: accountSid,
  CallSid: z.string().optional().describe("Twilio's id of the call (CA…), kept as the call's carrier id"),
  To: z.string().optional().describe('The number called (E.164): it must be a number of an account, with an assistant, for the call to be taken'),
  Called: z.string().optional().describe('Read when To is absent'),
  From: z.string().optional().describe("The caller's number"),
  Caller: z.string().optional().describe('Read when From is absent'),
});
const statusQuery = z.looseObject({
  call: z.string().describe('The id of our call, set by the service in the callback URL it gave Twilio; an unknown call is refused with 403'),
  amd: z.literal('1').optional().describe("Set on the asynchronous answering-machine callback; that callback's verdict is its AnsweredBy field"),
});
const statusForm = z.looseObject({
  AccountSid: accountSid,
  CallSid: z.string().optional().describe("Twilio's id of the call; once the call has one, another is refused with 403"),
  CallStatus: z
    .string()
    .optional()
    .describe('queued, initiated, ringing, in-progress, busy, no-answer, failed, canceled or completed; the first two are ignored'),
  AnsweredBy: z
    .string()
    .optional()
    .describe('The answering-machine verdict: human, machine_start, machine_end_beep, machine_end_silence, machine_end_other, fax or unknown'),
});
const twimlAnswer = (description: string) => ({ description, content: { 'text/xml': { schema: z.string() } } });

export async function twilioRoutes(app: FastifyInstance): Promise<void> {
  const carrier = app.ctx.carriers.get(TWILIO_CARRIER) as TwilioCarrier | undefined;
  if (!carrier) return; // no Twilio in this process: the paths answer 404
  const engine = () => {
    const e = app.ctx.services.callEngine as CallEngine | undefined;
    if (!e) throw new HttpError(503, 'Calls are not running on this instance.');
    return e;
  };

  // Twilio posts forms; the signature covers every field, repeated names included.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => {
    done(null, new URLSearchParams(String(body)));
  });
  const formOf = (req: FastifyRequest) => (req.body instanceof URLSearchParams ? req.body : new URLSearchParams());

  /** Verifies a callback with the credentials of `userId`'s account (or the deployment's). */
  const verified = async (req: FastifyRequest, userId: number | null): Promise<boolean> => {
    const credentials = userId === null ? carrier.deploymentCredentials : await carrier.credentialsFor(userId);
    if (!credentials) return false;
    const form = formOf(req);
    const signature = req.headers['x-twilio-signature'];
    if (!carrier.verify(credentials.authToken, typeof signature === 'string' ? signature : undefined, req.url, form)) return false;
    // A request signed for another account of the same operator is not this account's; Twilio
    // names the account in every callback, so one that does not is not Twilio's.
    return form.get('AccountSid') === credentials.accountSid;
  };

  app.post(TWILIO_ROUTES.voice, {
    bodyLimit: BODY_LIMIT,
    schema: {
      tags,
      summary: "Twilio's webhook for an incoming call",
      description:
        "Set as the Voice webhook (HTTP POST) of the Twilio numbers. Answers TwiML: `<Connect><Stream>` to this service's media socket (GET /carriers/twilio/media, with the call's id and one-time token as stream parameters) when the number's assistant takes the call, else a spoken apology and `<Hangup/>` (no assistant holds the number, the assistant is not active, the account's parallel-call limit is reached, the instance is shutting down).",
      consumes: [FORM],
      body: voiceForm,
      security: callbackSecurity,
      response: {
        200: twimlAnswer('TwiML: the call connected to the media stream, or a polite refusal'),
        403: messageSchema.describe('The signature does not verify with the account of the number called'),
        413: messageSchema.describe('A form over 64 KiB'),
        503: messageSchema.describe('Calls are not running on this instance'),
      },
    },
    validatorCompiler: documentedNotValidated,
  }, async (req, reply) => {
    const form = formOf(req);
    const to = form.get('To') ?? form.get('Called') ?? '';
    const from = form.get('From') ?? form.get('Caller') ?? '';
    const callSid = form.get('CallSid') ?? '';
    const e = engine();
    const remote = e.remote;
    const owner = await remote.numberOwner(TWILIO_CARRIER, to);
    if (!(await verified(req, owner))) throw forbidden();
    reply.type('text/xml');
    if (owner === null) {
      req.log.warn({ to }, `inbound Twilio call refused: ${INBOUND_REFUSALS.noAssistant}`);
      return carrier.refusalTwiml(INBOUND_REFUSAL_TEXT);
    }
    // A shutting-down instance answers politely (the caller hears the refusal, the account sees why).
    const decision = await remote.inbound({ carrier: TWILIO_CARRIER, to, from, carrierCallId: callSid, shuttingDown: !e.takesCalls });
    if (decision.callId !== null) req.callId = decision.callId;
    if (decision.kind === 'refused') {
      req.log.info({ to, callId: decision.callId, reason: decision.reason }, 'inbound Twilio call refused');
      return carrier.refusalTwiml(INBOUND_REFUSAL_TEXT);
    }
    return carrier.streamTwiml(decision.callId, decision.mediaToken);
  });

  app.post(TWILIO_ROUTES.status, {
    bodyLimit: BODY_LIMIT,
    schema: {
      tags,
      summary: "Twilio's status and answering-machine callbacks of a call",
      description:
        "The statusCallback (and asyncAmdStatusCallback) the service gives Twilio when it places a call: the call's progress (ringing, answered, busy, no-answer, failed, canceled, completed) and what answered it. Verified with the auth token of the call's account.",
      querystring: statusQuery,
      consumes: [FORM],
      body: statusForm,
      security: callbackSecurity,
      response: {
        204: z.null().describe('Taken'),
        403: messageSchema.describe("An unknown call, another call's CallSid, or a signature that does not verify with the call's account"),
        413: messageSchema.describe('A form over 64 KiB'),
        503: messageSchema.describe('Calls are not running on this instance'),
      },
    },
    validatorCompiler: documentedNotValidated,
  }, async (req, reply) => {
    const form = formOf(req);
    const query = req.query as Record<string, string | undefined>;
    const remote = engine().remote;
    const callId = Number(query.call);
    const call = Number.isSafeInteger(callId) ? await remote.callOwner(callId) : null;
    // An unknown call cannot be verified against its account: refused like a forged one.
    if (!call || call.carrier !== TWILIO_CARRIER) throw forbidden();
    if (!(await verified(req, call.userId))) throw forbidden();
    req.callId = callId;
    const sid = form.get('CallSid');
    if (call.carrierCallId && sid && sid !== call.carrierCallId) throw forbidden();
    const answeredBy = form.get('AnsweredBy');
    if (answeredBy) await remote.answeredBy(callId, answeredByOf(answeredBy));
    const progress = STATUS_PROGRESS[form.get('CallStatus') ?? ''];
    if (progress) await remote.progress(call, progress);
    return reply.code(204).send();
  });

  // `wsHandler`, not `websocket: true`: @fastify/websocket hides `websocket: true` routes
  // from /openapi.json. `handler` answers a plain GET as the plugin does for those (404).
  app.route({
    method: 'GET',
    url: TWILIO_ROUTES.media,
    schema: {
      tags,
      summary: "Twilio's media stream of a call (WebSocket)",
      description:
        "A WebSocket speaking Twilio's Media Streams protocol (connected, start, media, dtmf, mark, stop; the service sends media, mark and clear). Twilio opens it as the TwiML of a call tells it; the credential is in the `start` message, not the URL: its customParameters `call` (our call id) and `token` (the call's one-time media token), and its callSid must be the call's. The stream is then the call's on whichever instance it reached. Closed with 1008 when the first message is not `start`, no `start` arrived within WS_START_TIMEOUT (5 s), a message is malformed, or the token is wrong or used; 1011 on a server error. Pinged every WS_HEARTBEAT_INTERVAL (20 s): a socket that answered no ping by the next is dropped.",
      security: [],
      response: socketResponses,
    },
    handler: refusePlainGet,
    wsHandler: (socket: WebSocket, req) => {
      const log = req.log;
      // A stranger until its `start` claims a call (deadline, caps: src/api/toolkit/socket-guard.ts).
      const watched = app.socketGuard.watch(socket, req);
      let leg: TwilioLeg | null = null;
      let claiming = false;
      let closed = false;
      const early: TwilioMediaMessage[] = [];
      const refuse = (reason: string) => {
        log.warn({ reason }, 'media stream refused');
        socket.close(1008, reason);
      };
      socket.on('close', () => {
        closed = true;
        leg?.media.ended();
      });
      socket.on('message', (data) => {
        let msg: TwilioMediaMessage | null;
        try {
          msg = parseMediaMessage(data.toString());
        } catch {
          return refuse('malformed message');
        }
        if (!msg) return;
        if (leg) return leg.media.receive(msg);
        if (msg.event === 'connected') return;
        if (msg.event !== 'start') {
          if (!claiming) return refuse('the stream must start first');
          if (early.length < 500) early.push(msg);
          return;
        }
        if (claiming) return refuse('started twice');
        claiming = true;
        const start = msg.start;
        const callId = Number(start.customParameters.call);
        void (async () => {
          const e = app.ctx.services.callEngine as CallEngine | undefined;
          if (!e) return refuse('calls are not running on this instance');
          const claim = await e.remote.claimStream(callId, start.customParameters.token ?? '', { carrier: TWILIO_CARRIER, carrierCallId: start.callSid });
          if (!claim) return refuse('invalid or used media token, or the stream is not this call\'s');
          watched.authenticated();
          const callLog = log.child({ callId });
          leg = carrier.legForStream(socket, start, {
            userId: claim.userId,
            answeredBy: claim.answeredBy,
            onHangUpError: (err) => callLog.warn({ err }, 'ending the call at Twilio failed'),
          });
          const stopVerdicts = e.remote.onVerdict(callId, (by) => leg?.answeredBy(by));
          socket.once('close', stopVerdicts);
          for (const m of early.splice(0)) leg.media.receive(m);
          if (closed) leg.media.ended();
          await e.startCall(callId, { leg, carrierCallId: start.callSid });
          callLog.info({ streamSid: start.streamSid }, 'media stream claimed; the call runs on this instance');
        })().catch((err) => {
          log.error({ err }, 'taking a media stream failed');
          socket.close(1011, 'server error');
        });
      });
    },
  });
}
