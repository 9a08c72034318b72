/**
 * Over 400 lines because it stands in for Twilio's REST API, the phone network and the person
 * at the other end together.
 *
 * A Twilio double: a local server speaking Twilio's REST API (2010-04-01 Calls) and, for each
 * call, the phone network and the person at the other end.
 *
 * - REST: `POST …/Calls.json` (create; Basic auth checked against the account's auth token or
 *   an API key), `POST …/Calls/{sid}.json` (`Status=completed|canceled` hangs up, `Twiml`
 *   redirects), `GET …/Calls/{sid}.json` (with `price` once rated). Every request is recorded.
 * - Status callbacks to `StatusCallback`, signed (`X-Twilio-Signature`) with the auth token:
 *   initiated, ringing, in-progress, then the final status (completed, busy, no-answer,
 *   failed, canceled); asynchronous AMD verdicts to `AsyncAmdStatusCallback`.
 * - The callee: the outcome per number is scripted (`script(number, …)`); an answered call
 *   runs the call's TwiML, and `<Connect><Stream>` opens the media WebSocket as Twilio does
 *   (see twilio-media.ts for the person's side).
 * - Inbound: `inboundCall(…)` posts Twilio's signed voice webhook and follows the TwiML.
 *
 * URLs our service hands out are public (`https://sb.example/…`); `route` maps each to the
 * local instance that should receive it (tests with two instances pick one per request).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeWav } from '../../../src/audio/wav.js';
import { twilioSignature } from '../../../src/telephony/twilio/signature.js';
import { FrameClock, StreamPerson, type PersonStep } from './twilio-media.js';
import { readTwiml, type ConferenceSpec } from './twiml-reader.js';

export { readTwiml } from './twiml-reader.js';

export type Outcome = 'answer' | 'busy' | 'no-answer' | 'failed';
export type AnsweredBy = 'human' | 'machine_start' | 'machine_end_beep' | 'machine_end_silence' | 'machine_end_other' | 'fax' | 'unknown';

export interface CalleeScript {
  /** What the network does with the call (default `answer`). */
  outcome?: Outcome;
  /** Call time from `initiated` to ringing, and from ringing to the answer / the final status. */
  connectMs?: number;
  ringMs?: number;
  /** The verdict of answering-machine detection, when the call asked for it (default `human`). */
  answeredBy?: AnsweredBy;
  /** Call time after the answer when the asynchronous AMD verdict is posted. */
  amdMs?: number;
  /** What the person does on the line. */
  steps?: PersonStep[];
  /** In a conference room (a warm transfer): this person hangs up after talking this long (default: stays until the room ends). */
  conferenceMs?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** The Basic-auth user name (account SID or API key SID); null when none or wrong. */
  user: string | null;
  form: URLSearchParams;
  status: number;
}

export interface Callback {
  kind: 'status' | 'amd' | 'voice';
  url: string;
  /** Where it was actually sent (after `route`). */
  target: string;
  params: Record<string, string>;
  status: number;
  body: string;
}

export type CallStatus = 'queued' | 'initiated' | 'ringing' | 'in-progress' | 'completed' | 'busy' | 'no-answer' | 'failed' | 'canceled';
const FINAL: ReadonlySet<CallStatus> = new Set(['completed', 'busy', 'no-answer', 'failed', 'canceled']);

export interface DoubleCall {
  sid: string;
  direction: 'outbound-api' | 'inbound';
  to: string;
  from: string;
  status: CallStatus;
  /** The create request (outbound) or the voice webhook's answer (inbound). */
  twiml: string | null;
  form: URLSearchParams;
  script: CalleeScript;
  /** Call time of the answer and of the end, in ms of the double's clock. */
  answeredAt: number | null;
  endedAt: number | null;
  /** Who ended it: the person, our service (closed the stream / REST), the network (time limit, ring timeout). */
  endedBy: 'person' | 'service' | 'rest' | 'network' | null;
  person: StreamPerson | null;
  /** `<Say>` texts of TwiML that was not a stream (an inbound refusal). */
  said: string[];
  /** Numbers the call was connected to by `<Dial>` (a transfer), in order. */
  dialed: string[];
  /** `language` of each `<Say>` (undefined: Twilio's default). */
  sayLanguages: (string | undefined)[];
  /** The conference room the call is in (or was in last). */
  conference: string | null;
  /** TwiML documents run so far; a redirect starts the next (and abandons the one running). */
  runs: number;
  /** The call's time limit in seconds from the answer (`TimeLimit` at creation, replaced by an update's). */
  timeLimitSec: number | null;
  callbacks: Callback[];
  /** Resolves when the call reached a final status and its last callback was answered. */
  done: Promise<DoubleCall>;
}

export interface TwilioDoubleOptions {
  accountSid?: string;
  authToken?: string;
  /** Extra credentials for REST: API key SID → secret. */
  apiKeys?: Record<string, string>;
  /**
   * Other accounts Twilio knows, by account SID: the auth tokens it accepts for each (Twilio
   * keeps a primary and a secondary) and its API keys. Only their own account resource
   * (`GET /2010-04-01/Accounts/{sid}.json`) is served for them; calls run on the main account.
   */
  accounts?: Record<string, { authTokens: string[]; apiKeys?: Record<string, string>; status?: string }>;
  /** Call time runs this many times faster than the wall clock (default 1: real pace). */
  speed?: number;
  /** Maps a public URL our service gave out to where it is really served. */
  route?: (url: string, kind: 'status' | 'amd' | 'voice' | 'media') => string;
  /** The callee for numbers without their own script. */
  defaultScript?: CalleeScript;
  /** Price per started minute, reported as a negative `price` (default 0.014). */
  pricePerMinute?: number;
  /** Keep what each person heard (default true). */
  keepAudio?: boolean;
  /** When set, `From` must be one of these (the account's numbers, verified caller ids); others are refused with 21210, as Twilio does. */
  verifiedCallerIds?: string[];
}

/** A conference room (`<Dial><Conference>`): who joined and left when, in call time. */
export interface DoubleConference {
  room: string;
  participants: { sid: string; spec: ConferenceSpec; joinedAt: number; leftAt: number | null }[];
  /** When a participant with `startConferenceOnEnter` joined (until then the others wait). */
  startedAt: number | null;
  endedAt: number | null;
}

const sid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;

export class TwilioDouble {
  readonly accountSid: string;
  readonly authToken: string;
  readonly speed: number;
  readonly requests: RecordedRequest[] = [];
  readonly calls = new Map<string, DoubleCall>();
  readonly conferences = new Map<string, DoubleConference>();
  /** Recordings of calls made with `Record=true`: dual channel, the person left, what they heard right. */
  readonly recordings = new Map<string, { sid: string; callSid: string; wav: Buffer; durationSec: number }>();
  url = '';
  private readonly server: http.Server;
  private readonly scripts = new Map<string, CalleeScript>();
  private readonly clock: FrameClock;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly resolvers = new Map<string, (call: DoubleCall) => void>();
  private readonly t0 = performance.now();

  constructor(private readonly opts: TwilioDoubleOptions = {}) {
    this.accountSid = opts.accountSid ?? sid('AC');
    this.authToken = opts.authToken ?? randomBytes(16).toString('hex');
    this.speed = opts.speed ?? 1;
    this.clock = new FrameClock(this.speed);
    this.server = http.createServer((req, res) => this.handle(req, res));
    this.server.keepAliveTimeout = 1000;
  }

  static async start(opts: TwilioDoubleOptions = {}): Promise<TwilioDouble> {
    const double = new TwilioDouble(opts);
    await new Promise<void>((resolve) => double.server.listen(0, '127.0.0.1', resolve));
    double.url = `http://127.0.0.1:${(double.server.address() as AddressInfo).port}`;
    return double;
  }

  /** Scripts the callee of a number (E.164). */
  script(number: string, script: CalleeScript): void {
    this.scripts.set(number, script);
  }

  /** The first call to `number` (or the only call), once it exists. */
  async callTo(number: string, timeoutMs = 30_000): Promise<DoubleCall> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const call = [...this.calls.values()].find((c) => c.to === number);
      if (call) return call;
      if (Date.now() > deadline) throw new Error(`no call to ${number} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Milliseconds of call time since the double started. */
  now(): number {
    return (performance.now() - this.t0) * this.speed;
  }

  /**
   * An inbound call: Twilio posts the number's voice webhook (signed) and follows the TwiML it
   * gets back. `statusCallback` is the number's "call status changes" URL, when configured.
   */
  inboundCall(input: { from: string; to: string; voiceUrl: string; statusCallback?: string; steps?: PersonStep[] }): DoubleCall {
    const call = this.newCall('inbound', input.to, input.from, new URLSearchParams(), { outcome: 'answer', steps: input.steps });
    if (input.statusCallback) call.form.set('StatusCallback', input.statusCallback);
    void (async () => {
      const answer = await this.post(call, 'voice', input.voiceUrl, { CallStatus: 'ringing' });
      if (answer.status !== 200) {
        // Twilio plays "an application error has occurred" and hangs up.
        return this.finish(call, 'failed', 'network');
      }
      call.twiml = answer.body;
      this.setStatus(call, 'in-progress');
      call.answeredAt = this.now();
      await this.runTwiml(call);
    })().catch(() => this.finish(call, 'failed', 'network'));
    return call;
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    for (const call of this.calls.values()) call.person?.endFromNetwork();
    this.clock.stop();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  // ---- REST -----------------------------------------------------------------------------

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const path = (req.url ?? '/').split('?')[0];
      const user = this.authenticate(req.headers.authorization);
      const answer = (status: number, body: object) => {
        this.requests.push({ method: req.method ?? '', path, user, form, status });
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const base = `/2010-04-01/Accounts/${this.accountSid}`;
      if (!user) return answer(401, { code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 });
      const other = this.otherAccount(req.headers.authorization);
      if (other) {
        // Credentials of another account reach that account's resource only; elsewhere Twilio answers 20003.
        if (req.method === 'GET' && path === `/2010-04-01/Accounts/${other.sid}.json`) return answer(200, { sid: other.sid, status: other.status, friendly_name: 'Another test account' });
        return answer(401, { code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 });
      }
      if (req.method === 'GET' && path === `${base}.json`) return answer(200, { sid: this.accountSid, status: 'active', friendly_name: 'Switchboard test account' });
      if (!path.startsWith(base + '/')) return answer(404, notFound(path));
      const rest = path.slice(base.length);
      if (req.method === 'POST' && rest === '/Calls.json') return this.createCall(form, answer);
      const listing = /^\/Calls\/(CA[0-9a-f]{32})\/Recordings\.json$/.exec(rest);
      if (req.method === 'GET' && listing) {
        const recordings = [...this.recordings.values()]
          .filter((r) => r.callSid === listing[1])
          .map((r) => ({ sid: r.sid, call_sid: r.callSid, status: 'completed', channels: 2, duration: String(r.durationSec) }));
        return answer(200, { recordings });
      }
      const media = /^\/Recordings\/(RE[0-9a-f]{32})\.wav$/.exec(rest);
      if (req.method === 'GET' && media) {
        const recording = this.recordings.get(media[1]);
        if (!recording) return answer(404, notFound(path));
        this.requests.push({ method: 'GET', path, user, form, status: 200 });
        res.writeHead(200, { 'content-type': 'audio/x-wav', 'content-length': recording.wav.length });
        res.end(recording.wav);
        return;
      }
      const m = /^\/Calls\/(CA[0-9a-f]{32})\.json$/.exec(rest);
      const call = m ? this.calls.get(m[1]) : undefined;
      if (!call) return answer(404, notFound(path));
      if (req.method === 'GET') return answer(200, this.resource(call));
      if (req.method === 'POST') return this.updateCall(call, form, answer);
      return answer(405, { code: 20004, message: 'Method not allowed', status: 405 });
    });
  }

  private authenticate(header: string | undefined): string | null {
    const m = /^Basic (.+)$/.exec(header ?? '');
    if (!m) return null;
    const decoded = Buffer.from(m[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const user = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    if (user === this.accountSid && password === this.authToken) return user;
    if (this.opts.apiKeys?.[user] !== undefined && this.opts.apiKeys[user] === password) return user;
    return this.otherAccount(header)?.user ?? null;
  }

  /** The other account (`accounts`) these Basic credentials belong to, if any. */
  private otherAccount(header: string | undefined): { sid: string; user: string; status: string } | null {
    const m = /^Basic (.+)$/.exec(header ?? '');
    if (!m) return null;
    const decoded = Buffer.from(m[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const user = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    for (const [sid, account] of Object.entries(this.opts.accounts ?? {})) {
      const status = account.status ?? 'active';
      if (user === sid && account.authTokens.includes(password)) return { sid, user, status };
      if (account.apiKeys?.[user] !== undefined && account.apiKeys[user] === password) return { sid, user, status };
    }
    return null;
  }

  private createCall(form: URLSearchParams, answer: (status: number, body: object) => void): void {
    const to = form.get('To');
    const from = form.get('From');
    if (!to) return answer(400, { code: 21201, message: "No 'To' number is specified", status: 400 });
    if (!from) return answer(400, { code: 21213, message: "No 'From' number is specified", status: 400 });
    if (!form.get('Twiml') && !form.get('Url')) return answer(400, { code: 21205, message: 'Url parameter is required.', status: 400 });
    const verified = this.opts.verifiedCallerIds;
    if (verified && !verified.includes(from)) {
      return answer(400, { code: 21210, message: `The source phone number provided, ${from}, is not yet verified for your account.`, status: 400 });
    }
    const script = this.scripts.get(to) ?? this.opts.defaultScript ?? {};
    const call = this.newCall('outbound-api', to, from, form, script);
    call.twiml = form.get('Twiml');
    answer(201, this.resource(call));
    void this.runOutbound(call).catch(() => this.finish(call, 'failed', 'network'));
  }

  private updateCall(call: DoubleCall, form: URLSearchParams, answer: (status: number, body: object) => void): void {
    const status = form.get('Status');
    if (status === 'completed' || status === 'canceled') {
      if (!FINAL.has(call.status)) {
        const ringing = call.status !== 'in-progress';
        // Twilio: a call not yet answered is canceled, a live one completed.
        this.finish(call, ringing ? 'canceled' : 'completed', 'rest');
      }
      return answer(200, this.resource(call));
    }
    const twiml = form.get('Twiml');
    if (twiml) {
      if (call.status !== 'in-progress') {
        return answer(400, { code: 21220, message: 'Call is not in-progress. Cannot redirect.', status: 400 });
      }
      call.twiml = twiml;
      const limit = form.get('TimeLimit');
      if (limit) this.limitTime(call, Number(limit));
      const person = call.person;
      // The new document starts first, so the old stream's end is the redirect's, not the call's.
      void this.runTwiml(call);
      person?.endFromNetwork();
      return answer(200, this.resource(call));
    }
    answer(400, { code: 20001, message: 'Nothing to update', status: 400 });
  }

  private resource(call: DoubleCall): object {
    const duration = call.answeredAt !== null && call.endedAt !== null ? Math.round((call.endedAt - call.answeredAt) / 1000) : null;
    const perMinute = this.opts.pricePerMinute ?? 0.014;
    // Twilio bills a connected call by started minute; an unanswered one costs nothing.
    const minutes = call.answeredAt !== null && call.endedAt !== null ? Math.max(1, Math.ceil((call.endedAt - call.answeredAt) / 60_000)) : 0;
    const price = FINAL.has(call.status) ? (minutes === 0 ? '0.00000' : (-minutes * perMinute).toFixed(5)) : null;
    return {
      sid: call.sid,
      account_sid: this.accountSid,
      to: call.to,
      from: call.from,
      status: call.status,
      direction: call.direction,
      duration: duration === null ? null : String(duration),
      price,
      price_unit: 'USD',
      answered_by: null,
      api_version: '2010-04-01',
      uri: `/2010-04-01/Accounts/${this.accountSid}/Calls/${call.sid}.json`,
    };
  }

  // ---- the network ----------------------------------------------------------------------

  private newCall(direction: DoubleCall['direction'], to: string, from: string, form: URLSearchParams, script: CalleeScript): DoubleCall {
    const call: DoubleCall = {
      sid: sid('CA'),
      direction,
      to,
      from,
      status: 'queued',
      twiml: null,
      form,
      script,
      answeredAt: null,
      endedAt: null,
      endedBy: null,
      person: null,
      said: [],
      dialed: [],
      sayLanguages: [],
      conference: null,
      runs: 0,
      timeLimitSec: null,
      callbacks: [],
      done: undefined as unknown as Promise<DoubleCall>,
    };
    call.done = new Promise((resolve) => this.resolvers.set(call.sid, resolve));
    this.calls.set(call.sid, call);
    return call;
  }

  private wait(callMs: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, callMs / this.speed);
      this.timers.add(t);
    });
  }

  private async runOutbound(call: DoubleCall): Promise<void> {
    const s = call.script;
    this.setStatus(call, 'initiated');
    await this.wait(s.connectMs ?? 100);
    if (FINAL.has(call.status)) return;
    if (s.outcome === 'failed') return this.finish(call, 'failed', 'network');
    if (s.outcome === 'busy') return this.finish(call, 'busy', 'network');
    this.setStatus(call, 'ringing');
    const timeoutMs = Number(call.form.get('Timeout') ?? 60) * 1000;
    const ringMs = s.ringMs ?? 1000;
    await this.wait(Math.min(ringMs, timeoutMs));
    if (FINAL.has(call.status)) return;
    if (s.outcome === 'no-answer' || ringMs > timeoutMs) return this.finish(call, 'no-answer', 'network');
    call.answeredAt = this.now();
    this.setStatus(call, 'in-progress');
    const limit = call.form.get('TimeLimit');
    if (limit) this.limitTime(call, Number(limit));
    if (call.form.get('MachineDetection') && call.form.get('AsyncAmd') === 'true') {
      void this.wait(s.amdMs ?? 1500).then(() => {
        if (FINAL.has(call.status)) return;
        void this.post(call, 'amd', call.form.get('AsyncAmdStatusCallback')!, {
          AnsweredBy: s.answeredBy ?? 'human',
          MachineDetectionDuration: String(s.amdMs ?? 1500),
        });
      });
    }
    await this.runTwiml(call);
  }

  /**
   * Follows the call's TwiML: a stream is opened; a conference is joined (after any `<Say>`);
   * otherwise `<Say>`/`<Pause>` take their time and the call ends — unless a redirect replaced
   * the document meanwhile.
   */
  private async runTwiml(call: DoubleCall): Promise<void> {
    const run = ++call.runs;
    const { stream, said, sayLanguages, pauseSeconds, hangup, dialed, conference } = readTwiml(call.twiml ?? '<Response/>');
    call.said.push(...said);
    call.sayLanguages.push(...sayLanguages);
    call.dialed.push(...dialed);
    if (!stream) {
      // About a second per sentence said, and the pauses.
      await this.wait(1000 * (said.length + (conference ? 0 : pauseSeconds)));
      if (call.runs !== run || FINAL.has(call.status)) return;
      if (conference) return this.join(call, conference);
      this.finish(call, 'completed', hangup ? 'service' : 'network');
      return;
    }
    const url = this.route(stream.url, 'media');
    const person = new StreamPerson({
      url,
      headers: { 'x-twilio-signature': twilioSignature(this.authToken, stream.url, {}) },
      accountSid: this.accountSid,
      callSid: call.sid,
      customParameters: stream.parameters,
      steps: call.script.steps ?? [],
      keepAudio: this.opts.keepAudio,
      onEnd: (by) => {
        this.clock.remove(person);
        if (FINAL.has(call.status) || call.runs !== run) return;
        // The service closing the socket ends `<Connect>`; no verb follows, so the call ends.
        this.finish(call, 'completed', by === 'person' ? 'person' : by === 'network' ? 'network' : 'service');
      },
    });
    call.person = person;
    await person.opened.then(
      () => this.clock.add(person),
      () => undefined,
    );
  }

  /** Ends the answered call `seconds` after its answer, unless a later update replaced the limit. */
  private limitTime(call: DoubleCall, seconds: number): void {
    call.timeLimitSec = seconds;
    const left = seconds * 1000 - (this.now() - (call.answeredAt ?? this.now()));
    void this.wait(Math.max(0, left)).then(() => {
      if (call.timeLimitSec === seconds && !FINAL.has(call.status)) this.finish(call, 'completed', 'network');
    });
  }

  private join(call: DoubleCall, spec: ConferenceSpec): void {
    let room = this.conferences.get(spec.room);
    if (!room || room.endedAt !== null) {
      room = { room: spec.room, participants: [], startedAt: null, endedAt: null };
      this.conferences.set(spec.room, room);
    }
    call.conference = spec.room;
    room.participants.push({ sid: call.sid, spec, joinedAt: this.now(), leftAt: null });
    if (spec.startConferenceOnEnter && room.startedAt === null) room.startedAt = this.now();
    const talk = call.script.conferenceMs;
    if (talk !== undefined) {
      void this.wait(talk).then(() => {
        if (call.conference === spec.room && !FINAL.has(call.status)) this.finish(call, 'completed', 'person');
      });
    }
  }

  /** A participant's call ended: it leaves its room, which ends for everyone if it said so (`endConferenceOnExit`). */
  private leave(call: DoubleCall): void {
    const room = call.conference ? this.conferences.get(call.conference) : undefined;
    const me = room?.participants.find((p) => p.sid === call.sid && p.leftAt === null);
    if (!room || !me) return;
    me.leftAt = this.now();
    if (!me.spec.endConferenceOnExit || room.endedAt !== null) return;
    room.endedAt = this.now();
    for (const p of room.participants) {
      const other = this.calls.get(p.sid);
      if (p.leftAt === null && other) this.finish(other, 'completed', 'network');
    }
  }

  private setStatus(call: DoubleCall, status: CallStatus): void {
    call.status = status;
    const events = call.form.getAll('StatusCallbackEvent');
    const event = status === 'in-progress' ? 'answered' : FINAL.has(status) ? 'completed' : status;
    const url = call.form.get('StatusCallback');
    // Twilio posts `completed` alone when no events were asked for.
    const wanted = events.length > 0 ? events.includes(event) : event === 'completed';
    if (url && wanted && status !== 'queued') this.queueCallback(call, 'status', url, { CallStatus: status });
  }

  private finish(call: DoubleCall, status: CallStatus, by: NonNullable<DoubleCall['endedBy']>): void {
    if (FINAL.has(call.status)) return;
    call.status = status;
    call.endedAt = this.now();
    call.endedBy = by;
    this.leave(call);
    // Twilio tells the stream it is over (`stop`) and closes it, unless it is closed already.
    if (call.person && !call.person.ended) call.person.endFromNetwork();
    if (call.form.get('Record') === 'true' && call.answeredAt !== null) this.record(call);
    const duration = call.answeredAt !== null ? Math.round((call.endedAt - call.answeredAt) / 1000) : 0;
    const url = call.form.get('StatusCallback');
    const final = url
      ? this.queueCallback(call, 'status', url, {
          CallStatus: status,
          CallDuration: String(duration),
          Duration: String(Math.ceil(duration / 60)),
          SipResponseCode: status === 'busy' ? '486' : status === 'no-answer' ? '487' : status === 'failed' ? '500' : '200',
        })
      : Promise.resolve();
    void final.then(() => this.resolvers.get(call.sid)?.(call));
  }

  /** The call's dual-channel recording: the person's stream timeline, or silence as long as the call when there was no stream. */
  private record(call: DoubleCall): void {
    const person = call.person;
    const samples = Math.round((((call.endedAt ?? this.now()) - call.answeredAt!) / 1000) * 8000);
    const left = person ? person.saidTimeline() : new Int16Array(samples);
    const right = person ? person.heardTimeline() : new Int16Array(samples);
    const recording = { sid: sid('RE'), callSid: call.sid, wav: writeWav(8000, left, right), durationSec: Math.round(left.length / 8000) };
    this.recordings.set(recording.sid, recording);
  }

  private readonly chains = new Map<string, Promise<void>>();
  private readonly sequences = new Map<string, number>();

  /** Callbacks of one call go out one after another, in order, as Twilio's do. */
  private queueCallback(call: DoubleCall, kind: Callback['kind'], url: string, extra: Record<string, string>): Promise<void> {
    const sequence = this.sequences.get(call.sid) ?? 0;
    this.sequences.set(call.sid, sequence + 1);
    const params = { ...extra, SequenceNumber: String(sequence), CallbackSource: 'call-progress-events' };
    const next = (this.chains.get(call.sid) ?? Promise.resolve()).then(() =>
      this.post(call, kind, url, params).then(
        () => undefined,
        () => undefined,
      ),
    );
    this.chains.set(call.sid, next);
    return next;
  }

  private route(url: string, kind: 'status' | 'amd' | 'voice' | 'media'): string {
    return this.opts.route ? this.opts.route(url, kind) : url;
  }

  /** A signed form POST to our service, as Twilio sends it. */
  private async post(call: DoubleCall, kind: Callback['kind'], url: string, extra: Record<string, string>): Promise<{ status: number; body: string }> {
    const params: Record<string, string> = {
      AccountSid: this.accountSid,
      ApiVersion: '2010-04-01',
      CallSid: call.sid,
      From: call.from,
      To: call.to,
      Called: call.to,
      Caller: call.from,
      Direction: call.direction,
      Timestamp: new Date().toUTCString().replace('GMT', '+0000'),
      ...extra,
    };
    if (kind === 'amd') {
      for (const k of ['From', 'To', 'Called', 'Caller', 'Direction', 'ApiVersion', 'Timestamp']) delete params[k];
    }
    const target = this.route(url, kind);
    const record: Callback = { kind, url, target, params, status: 0, body: '' };
    call.callbacks.push(record);
    const res = await fetch(target, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilioSignature(this.authToken, url, params),
        'user-agent': 'TwilioProxy/1.1',
        'i-twilio-idempotency-token': randomBytes(8).toString('hex'),
      },
      body: new URLSearchParams(params).toString(),
      signal: AbortSignal.timeout(15_000),
    });
    record.status = res.status;
    record.body = await res.text();
    return record;
  }
}

function notFound(path: string): object {
  return {
    code: 20404,
    message: `The requested resource ${path} was not found`,
    more_info: 'https://www.twilio.com/docs/errors/20404',
    status: 404,
  };
}
