/**
 * Twilio as a carrier of the engine. Unlike the sandbox, a Twilio call is not run where it is
 * placed: `place` asks Twilio to call (REST, `<Connect><Stream>` TwiML carrying the call id and
 * a one-time media token as stream `<Parameter>`s), Twilio reports progress to the status
 * callback on any instance, and once answered opens the media WebSocket to whichever instance
 * the load balancer picks; that instance builds the leg (`legForStream`) and runs the session.
 * Nothing here is kept in memory between those steps.
 *
 * A leaf: it knows nothing of accounts or the database. Credentials come per call from the
 * engine (the account's own, or the deployment's, see `credentialsFor`).
 */
import type { AnsweredBy, CarrierLeg, DialRequest, PlaceLegOptions, PlaceRequest, RemoteCarrier } from '../types.js';
import { TwilioLeg } from './leg.js';
import { TwilioRestLeg } from './rest-leg.js';
import type { StartInfo } from './media-protocol.js';
import { TwilioMediaStream, type MediaSocket } from './media-stream.js';
import { TWILIO_MAX_TIME_LIMIT_SECONDS, TwilioRestClient, type TwilioCall, type TwilioCredentials } from './rest-client.js';
import { isValidTwilioSignature, type SignedParams } from './signature.js';
import { connectStreamTwiml, sayAndHangUpTwiml } from './twiml.js';

export const TWILIO_CARRIER = 'twilio';

/** The routes Twilio reaches us on (the operator pastes the voice URL into Twilio's console). */
export const TWILIO_ROUTES = {
  voice: '/carriers/twilio/voice',
  status: '/carriers/twilio/status',
  media: '/carriers/twilio/media',
} as const;

/** How long Twilio lets an outbound call ring before reporting `no-answer`. */
export const RING_TIMEOUT_SECONDS = 45;

export interface TwilioCarrierOptions {
  /** `TWILIO_API_URL`. */
  apiUrl: string;
  /** `PUBLIC_BASE_URL`: what Twilio calls back (https in production). */
  publicBaseUrl: string;
  /** The deployment's credentials (TWILIO_ACCOUNT_SID/TWILIO_AUTH_TOKEN), when set. */
  credentials?: TwilioCredentials;
  /** An account's own credentials, looked up per call (null: use the deployment's). */
  accountCredentials?: (userId: number) => Promise<TwilioCredentials | null>;
}

export class TwilioCredentialsMissingError extends Error {
  constructor(userId: number) {
    super(`no Twilio credentials for user ${userId}: store the account's (admin API) or set TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN`);
  }
}

export class TwilioCarrier implements RemoteCarrier {
  readonly name = TWILIO_CARRIER;
  readonly placesRemotely = true;
  private readonly clients = new Map<string, TwilioRestClient>();

  constructor(private readonly opts: TwilioCarrierOptions) {}

  /** Twilio calls never run where they are dialed: see `place` and `legForStream`. */
  dial(_request: DialRequest): CarrierLeg {
    throw new Error('Twilio calls are placed with place() and run when their media stream arrives');
  }

  /** The credentials for one account's calls: its own, else the deployment's, else null. */
  async credentialsFor(userId: number): Promise<TwilioCredentials | null> {
    const own = this.opts.accountCredentials ? await this.opts.accountCredentials(userId) : null;
    return own ?? this.deploymentCredentials;
  }

  /** The deployment's credentials (TWILIO_ACCOUNT_SID/TWILIO_AUTH_TOKEN), when set: for callbacks no account owns. */
  get deploymentCredentials(): TwilioCredentials | null {
    return this.opts.credentials ?? null;
  }

  /** Whether a signed callback verifies with `authToken` (our public URL with and without explicit port). */
  verify(authToken: string, signature: string | undefined, path: string, params: SignedParams): boolean {
    return isValidTwilioSignature(authToken, signature, this.publicUrl(path), params);
  }

  publicUrl(path: string): string {
    return `${this.opts.publicBaseUrl}${path}`;
  }

  /** The media WebSocket's public address (`wss://` for an `https://` base). */
  mediaUrl(): string {
    return this.publicUrl(TWILIO_ROUTES.media).replace(/^http/, 'ws');
  }

  statusUrl(callId: number): string {
    return this.publicUrl(`${TWILIO_ROUTES.status}?call=${callId}`);
  }

  /** The TwiML that connects an answered call to our media endpoint. */
  streamTwiml(callId: number, mediaToken: string): string {
    return connectStreamTwiml({
      url: this.mediaUrl(),
      name: `call-${callId}`,
      parameters: { call: String(callId), token: mediaToken },
    });
  }

  refusalTwiml(text: string): string {
    return sayAndHangUpTwiml(text);
  }

  /** Asks Twilio to place the call; resolves with Twilio's `CA…` sid. */
  async place(req: PlaceRequest): Promise<{ carrierCallId: string }> {
    if (!req.assistant) throw new Error('a Twilio call needs the assistant\'s Twilio number to call from');
    const client = await this.clientFor(req.userId);
    const statusCallback = this.statusUrl(req.callId);
    const call = await client.createCall({
      to: req.customer,
      from: req.assistant,
      twiml: this.streamTwiml(req.callId, req.mediaToken),
      statusCallback,
      statusCallbackEvents: ['initiated', 'ringing', 'answered', 'completed'],
      timeout: RING_TIMEOUT_SECONDS,
      // Ours ends the call at max_duration; Twilio's is the backstop if this side is gone.
      ...(req.maxDurationSec > 0 ? { timeLimit: req.maxDurationSec + 30 } : {}),
      record: req.record === true,
      ...(req.detectMachine ? { machineDetection: 'Enable' as const, asyncAmdStatusCallback: `${statusCallback}&amd=1` } : {}),
    });
    return { carrierCallId: call.sid };
  }

  /**
   * The call's dual-channel recording (caller left, our side right). Twilio lists a recording
   * once it has processed it, a few seconds after the call: asked every `pollMs` until
   * `waitMs` has passed.
   */
  async recordingOf(userId: number, callSid: string, opts: { waitMs?: number; pollMs?: number } = {}): Promise<Buffer | null> {
    const client = await this.clientFor(userId);
    const deadline = Date.now() + (opts.waitMs ?? 30_000);
    for (;;) {
      const done = (await client.listRecordings(callSid)).find((r) => !r.status || r.status === 'completed');
      if (done) return client.downloadRecording(done.sid);
      if (Date.now() >= deadline) return null;
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 500));
    }
  }

  /**
   * A warm transfer's supervisor leg, steered over REST (rest-leg.ts). `request.assistant` is the
   * caller id asked for; when Twilio refuses it (a customer's number that is not verified on the
   * account), `fallbackFrom` is shown instead.
   */
  placeLeg(userId: number, request: DialRequest, options: PlaceLegOptions = {}): TwilioRestLeg {
    return new TwilioRestLeg({
      client: () => this.clientFor(userId),
      to: request.customer,
      from: request.assistant,
      fallbackFrom: options.fallbackFrom,
      onCallerIdRefused: options.onCallerIdRefused,
      ringTimeoutSeconds: RING_TIMEOUT_SECONDS,
      language: options.language,
    });
  }

  async hangUp(userId: number, callSid: string): Promise<void> {
    await (await this.clientFor(userId)).hangUp(callSid);
  }

  async fetchCall(userId: number, callSid: string): Promise<TwilioCall> {
    return (await this.clientFor(userId)).fetchCall(callSid);
  }

  /** Twilio's price of a finished call (it reports a negative amount), or null until it has rated it. */
  async priceOf(userId: number, callSid: string): Promise<number | null> {
    const call = await this.fetchCall(userId, callSid);
    if (call.price === null || call.price === undefined || call.price === '') return null;
    const price = Math.abs(Number(call.price));
    return Number.isFinite(price) ? price : null;
  }

  /**
   * The leg of a call whose media stream reached this instance: audio through the socket,
   * hang-up by closing it and ending the call over REST.
   */
  legForStream(socket: MediaSocket, start: StartInfo, opts: { userId: number; answeredBy?: AnsweredBy; onHangUpError?: (err: unknown) => void }): TwilioLeg {
    const stream = new TwilioMediaStream(socket, start);
    return new TwilioLeg(stream, {
      answeredBy: opts.answeredBy,
      hangUpCall: async () => {
        try {
          await this.hangUp(opts.userId, start.callSid);
        } catch (err) {
          opts.onHangUpError?.(err);
        }
      },
      // The caller leaves the assistant for a person: the time limit set for the assistant's
      // max_duration no longer applies (Twilio's own ceiling, four hours, does).
      redirectCall: async (twiml) => {
        await (await this.clientFor(opts.userId)).redirect(start.callSid, twiml, { timeLimit: TWILIO_MAX_TIME_LIMIT_SECONDS });
      },
    });
  }

  private async clientFor(userId: number): Promise<TwilioRestClient> {
    const credentials = await this.credentialsFor(userId);
    if (!credentials) throw new TwilioCredentialsMissingError(userId);
    const key = `${credentials.accountSid}:${credentials.apiKeySid ?? ''}:${credentials.apiKeySecret ?? credentials.authToken}`;
    let client = this.clients.get(key);
    if (!client) {
      client = new TwilioRestClient({ apiUrl: this.opts.apiUrl, credentials });
      if (this.clients.size > 1000) this.clients.clear();
      this.clients.set(key, client);
    }
    return client;
  }
}
