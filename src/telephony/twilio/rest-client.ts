/**
 * The part of Twilio's REST API (2010-04-01) that places, steers and ends calls.
 *
 * Requests are form-encoded with HTTP Basic auth (account SID + auth token, or an API key
 * SID + secret); answers are JSON. The base URL is configuration (`TWILIO_API_URL`), so
 * production and tests differ only in URLs and keys.
 */

export interface TwilioCredentials {
  /** `AC…`: names the account in every path. */
  accountSid: string;
  /** The account's auth token; also what Twilio signs its callbacks with. */
  authToken: string;
  /** `SK…` and its secret: used for REST requests instead of the auth token when set. */
  apiKeySid?: string;
  apiKeySecret?: string;
}

export type StatusCallbackEvent = 'initiated' | 'ringing' | 'answered' | 'completed';

export interface CreateCallRequest {
  to: string;
  from: string;
  /** The TwiML to run once the call is answered (ours: `<Connect><Stream>`). */
  twiml: string;
  statusCallback?: string;
  statusCallbackEvents?: StatusCallbackEvent[];
  /** Seconds to let it ring before giving up (`no-answer`); Twilio's default is 60. */
  timeout?: number;
  /** Seconds after which Twilio ends the call whatever happens. */
  timeLimit?: number;
  /** `Enable` reports human/machine; `DetectMessageEnd` waits for the greeting's end. */
  machineDetection?: 'Enable' | 'DetectMessageEnd';
  /** With asynchronous detection the call connects at once and the verdict comes later, here. */
  asyncAmdStatusCallback?: string;
  machineDetectionTimeout?: number;
  /** Record the call, both parties on their own channel (caller left, our side right). */
  record?: boolean;
}

/** The fields of Twilio's Recording resource we read. */
export interface TwilioRecording {
  sid: string;
  call_sid?: string;
  status?: string;
  duration?: string | null;
  channels?: number;
}

/** The fields of Twilio's Call resource we read. */
export interface TwilioCall {
  sid: string;
  status: string;
  direction?: string;
  duration?: string | null;
  /** Negative decimal string in `price_unit` (e.g. "-0.01300"), null until Twilio has rated the call. */
  price?: string | null;
  price_unit?: string | null;
  answered_by?: string | null;
}

/** An error answer of the API: HTTP status, Twilio's numeric code and message. */
export class TwilioApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | undefined,
    message: string,
    readonly moreInfo?: string,
  ) {
    super(`Twilio API ${status}${code ? ` (${code})` : ''}: ${message}`);
  }
}

/** Twilio's longest call (seconds): the time limit of a call handed from the assistant to a person (transfer, conference). */
export const TWILIO_MAX_TIME_LIMIT_SECONDS = 4 * 60 * 60;

/** Twilio's code for "the resource was not found", e.g. ending a call that has already ended. */
export const TWILIO_NOT_FOUND = 20404;

export interface TwilioRestClientOptions {
  /** API base, `https://api.twilio.com` in production. */
  apiUrl: string;
  credentials: TwilioCredentials;
  /** Per request; default 10 s. */
  timeoutMs?: number;
}

export class TwilioRestClient {
  private readonly base: string;
  private readonly authorization: string;
  private readonly timeoutMs: number;

  constructor(opts: TwilioRestClientOptions) {
    const { credentials } = opts;
    this.base = `${opts.apiUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(credentials.accountSid)}`;
    const user = credentials.apiKeySid && credentials.apiKeySecret ? credentials.apiKeySid : credentials.accountSid;
    const password = credentials.apiKeySid && credentials.apiKeySecret ? credentials.apiKeySecret : credentials.authToken;
    this.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  /** The account itself (`doctor`: whether Twilio accepts these credentials, and the account's status). */
  async fetchAccount(): Promise<{ sid: string; status?: string }> {
    return this.request<{ sid: string; status?: string }>('GET', '.json');
  }

  /** Places a call; Twilio answers with its `CA…` sid at once (status `queued`). */
  async createCall(req: CreateCallRequest): Promise<TwilioCall> {
    const form = new URLSearchParams({ To: req.to, From: req.from, Twiml: req.twiml });
    if (req.statusCallback) {
      form.set('StatusCallback', req.statusCallback);
      form.set('StatusCallbackMethod', 'POST');
      for (const event of req.statusCallbackEvents ?? []) form.append('StatusCallbackEvent', event);
    }
    if (req.timeout !== undefined) form.set('Timeout', String(req.timeout));
    if (req.timeLimit !== undefined) form.set('TimeLimit', String(req.timeLimit));
    if (req.machineDetection) {
      form.set('MachineDetection', req.machineDetection);
      if (req.machineDetectionTimeout !== undefined) form.set('MachineDetectionTimeout', String(req.machineDetectionTimeout));
      if (req.asyncAmdStatusCallback) {
        form.set('AsyncAmd', 'true');
        form.set('AsyncAmdStatusCallback', req.asyncAmdStatusCallback);
        form.set('AsyncAmdStatusCallbackMethod', 'POST');
      }
    }
    if (req.record) {
      form.set('Record', 'true');
      form.set('RecordingChannels', 'dual');
    }
    return this.request<TwilioCall>('POST', '/Calls.json', form);
  }

  /** The recordings of a call (Twilio lists a finished recording once it has processed it). */
  async listRecordings(callSid: string): Promise<TwilioRecording[]> {
    const page = await this.request<{ recordings?: TwilioRecording[] }>('GET', `/Calls/${encodeURIComponent(callSid)}/Recordings.json`);
    return page.recordings ?? [];
  }

  /** A recording's audio as a WAV file (PCM16; dual-channel recordings have two channels). */
  async downloadRecording(recordingSid: string): Promise<Buffer> {
    const res = await fetch(`${this.base}/Recordings/${encodeURIComponent(recordingSid)}.wav`, {
      headers: { authorization: this.authorization },
      signal: AbortSignal.timeout(Math.max(this.timeoutMs, 60_000)),
    });
    if (!res.ok) throw new TwilioApiError(res.status, undefined, `recording ${recordingSid} could not be downloaded`);
    return Buffer.from(await res.arrayBuffer());
  }

  async fetchCall(callSid: string): Promise<TwilioCall> {
    return this.request<TwilioCall>('GET', `/Calls/${encodeURIComponent(callSid)}.json`);
  }

  /**
   * Ends a call in any state (ringing calls are canceled, live ones completed). Resolves
   * `already-ended` when Twilio says the call is gone (20404), which is not a failure.
   */
  async hangUp(callSid: string): Promise<'ended' | 'already-ended'> {
    try {
      await this.request('POST', `/Calls/${encodeURIComponent(callSid)}.json`, new URLSearchParams({ Status: 'completed' }));
      return 'ended';
    } catch (err) {
      if (err instanceof TwilioApiError && (err.code === TWILIO_NOT_FOUND || err.status === 404)) return 'already-ended';
      throw err;
    }
  }

  /**
   * Replaces what a live call is doing with new TwiML (e.g. a transfer's `<Dial>`); `timeLimit`
   * replaces the call's time limit (seconds) from then on.
   */
  async redirect(callSid: string, twiml: string, opts: { timeLimit?: number } = {}): Promise<TwilioCall> {
    const form = new URLSearchParams({ Twiml: twiml });
    if (opts.timeLimit !== undefined) form.set('TimeLimit', String(opts.timeLimit));
    return this.request<TwilioCall>('POST', `/Calls/${encodeURIComponent(callSid)}.json`, form);
  }

  private async request<T>(method: 'GET' | 'POST', path: string, form?: URLSearchParams): Promise<T> {
    const res = await fetch(this.base + path, {
      method,
      headers: {
        authorization: this.authorization,
        accept: 'application/json',
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form?.toString(),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await res.text();
    let body: any = undefined;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON (a proxy's error page): reported below with the status.
    }
    if (!res.ok) {
      const message = typeof body?.message === 'string' ? body.message : text.slice(0, 200) || res.statusText;
      throw new TwilioApiError(res.status, typeof body?.code === 'number' ? body.code : undefined, message, body?.more_info);
    }
    if (body === undefined) throw new TwilioApiError(res.status, undefined, 'answer is not JSON');
    return body as T;
  }
}
