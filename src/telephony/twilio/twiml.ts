/**
 * TwiML, the XML Twilio reads to know what to do with a call. The documents we need: open a
 * bidirectional media stream (`<Connect><Stream>`), say something and hang up (a polite
 * refusal), hang up, dial another number (a cold transfer), and for a warm transfer: wait, say
 * something and wait, and join a conference room. Every attribute value and text is XML-escaped here, so
 * a caller-controlled string can never add markup.
 */

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/** Characters XML 1.0 cannot carry at all (not even escaped): C0 controls other than tab, LF, CR; lone surrogates; U+FFFE/U+FFFF. */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function escapeXml(text: string): string {
  return text
    .replace(NOT_XML, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function attributes(attrs: Record<string, string | undefined>): string {
  return Object.entries(attrs)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => ` ${name}="${escapeXml(value as string)}"`)
    .join('');
}

function response(body: string): string {
  return `${XML_DECLARATION}<Response>${body}</Response>`;
}

export interface StreamTwimlOptions {
  /** The media WebSocket, `wss://…` (Twilio passes no query string on). */
  url: string;
  /** Come back in the `start` message's `customParameters` (call id, one-time token). */
  parameters?: Record<string, string>;
  /** A name for the stream, shown in Twilio's logs. */
  name?: string;
  /** Stream lifecycle callbacks (stream-started/stopped/error). */
  statusCallback?: string;
}

/**
 * Connects the call to a bidirectional media stream. `<Connect>` holds the call until our
 * side closes the socket; no verb follows, so closing it ends the call.
 */
export function connectStreamTwiml(opts: StreamTwimlOptions): string {
  const params = Object.entries(opts.parameters ?? {})
    .map(([name, value]) => `<Parameter${attributes({ name, value })}/>`)
    .join('');
  const stream = `<Stream${attributes({
    url: opts.url,
    name: opts.name,
    statusCallback: opts.statusCallback,
    statusCallbackMethod: opts.statusCallback ? 'POST' : undefined,
  })}>${params}</Stream>`;
  return response(`<Connect>${stream}</Connect>`);
}

export interface SayOptions {
  /** A Twilio `<Say>` language such as `en-US` or `de-DE`. */
  language?: string;
  /** A Twilio voice such as `alice` or `Polly.Joanna`. */
  voice?: string;
}

/** Says `text` and hangs up: how a call we cannot take is turned away politely. */
export function sayAndHangUpTwiml(text: string, opts: SayOptions = {}): string {
  return response(`<Say${attributes({ language: opts.language, voice: opts.voice })}>${escapeXml(text)}</Say><Hangup/>`);
}

export function hangUpTwiml(): string {
  return response('<Hangup/>');
}

/** A cold transfer: the call is connected to `number` (E.164); Twilio shows the call's own caller id. */
export function dialTwiml(number: string): string {
  return response(`<Dial><Number>${escapeXml(number)}</Number></Dial>`);
}

/** Keeps an answered call open and silent for `seconds` (a leg waiting for what we say next). */
export function waitTwiml(seconds: number): string {
  return response(`<Pause${attributes({ length: String(Math.max(1, Math.round(seconds))) })}/>`);
}

/** Says `text`, then keeps the call open and silent for `waitSeconds` (until we redirect it). */
export function sayAndWaitTwiml(text: string, waitSeconds: number, opts: SayOptions = {}): string {
  return response(
    `<Say${attributes({ language: opts.language, voice: opts.voice })}>${escapeXml(text)}</Say><Pause${attributes({ length: String(Math.max(1, Math.round(waitSeconds))) })}/>`,
  );
}

export interface ConferenceOptions {
  /** Whether this participant starts the conference (the others hear the wait music until one does). */
  startConferenceOnEnter: boolean;
  /** Whether the conference ends for everyone when this participant leaves (two-party calls: true). */
  endConferenceOnExit: boolean;
  /** What a participant hears while waiting: Twilio's default hold music (undefined), or silence (''). */
  waitUrl?: string;
}

/** Puts the call into the conference room `room` (a warm transfer's bridge), without a join beep. */
export function conferenceTwiml(room: string, opts: ConferenceOptions): string {
  const conference = `<Conference${attributes({
    beep: 'false',
    startConferenceOnEnter: String(opts.startConferenceOnEnter),
    endConferenceOnExit: String(opts.endConferenceOnExit),
    waitUrl: opts.waitUrl,
  })}>${escapeXml(room)}</Conference>`;
  return response(`<Dial>${conference}</Dial>`);
}
