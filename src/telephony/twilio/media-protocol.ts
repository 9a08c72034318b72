/**
 * Twilio Media Streams, bidirectional (`<Connect><Stream>`): the JSON text messages on the
 * WebSocket. Twilio sends `connected`, `start`, then `media` every 20 ms (160 bytes of
 * G.711 μ-law, 8 kHz mono, base64), `dtmf`, `mark` echoes, and `stop`; we send `media`,
 * `mark` and `clear`.
 *
 * Parsing is by hand rather than by schema: `media` arrives 50 times a second per call, and
 * only a few fields matter. Unknown events are ignored (Twilio may add some); a known event
 * missing what we need is a protocol error.
 */

export interface StartInfo {
  streamSid: string;
  accountSid: string;
  callSid: string;
  tracks: string[];
  /** The `<Parameter>`s of the TwiML, as strings. */
  customParameters: Record<string, string>;
  mediaFormat: { encoding: string; sampleRate: number; channels: number };
}

export type TwilioMediaMessage =
  | { event: 'connected'; protocol: string; version: string }
  | { event: 'start'; sequenceNumber: number; start: StartInfo }
  | { event: 'media'; sequenceNumber: number; track: string; chunk: number; timestamp: number; payload: string }
  | { event: 'dtmf'; sequenceNumber: number; digit: string }
  | { event: 'mark'; sequenceNumber: number; name: string }
  | { event: 'stop'; sequenceNumber: number; callSid: string };

export class MediaProtocolError extends Error {}

/** The format a bidirectional stream carries: what `start.mediaFormat` must say. */
export const STREAM_ENCODING = 'audio/x-mulaw';
export const STREAM_SAMPLE_RATE = 8000;
/** Samples (= μ-law bytes) in one 20 ms frame. */
export const FRAME_SAMPLES = 160;

function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new MediaProtocolError(`${what} is missing`);
  return value;
}

/** Twilio writes numbers as strings ("1", "20"); accept either. */
function count(value: unknown, what: string): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n)) throw new MediaProtocolError(`${what} is not a number`);
  return n;
}

/**
 * Reads one text frame. Returns null for an event we do not know; throws MediaProtocolError
 * for something that is not a Media Streams message at all.
 */
export function parseMediaMessage(data: string): TwilioMediaMessage | null {
  let msg: unknown;
  try {
    msg = JSON.parse(data);
  } catch {
    throw new MediaProtocolError('not JSON');
  }
  if (!isObject(msg) || typeof msg.event !== 'string') throw new MediaProtocolError('no event');
  switch (msg.event) {
    case 'media': {
      const media = msg.media;
      if (!isObject(media)) throw new MediaProtocolError('media is missing');
      return {
        event: 'media',
        sequenceNumber: count(msg.sequenceNumber, 'sequenceNumber'),
        track: typeof media.track === 'string' ? media.track : 'inbound',
        chunk: count(media.chunk, 'media.chunk'),
        timestamp: count(media.timestamp, 'media.timestamp'),
        payload: text(media.payload, 'media.payload'),
      };
    }
    case 'connected':
      return { event: 'connected', protocol: String(msg.protocol ?? ''), version: String(msg.version ?? '') };
    case 'start': {
      const start = msg.start;
      if (!isObject(start)) throw new MediaProtocolError('start is missing');
      const format = isObject(start.mediaFormat) ? start.mediaFormat : {};
      const custom: Record<string, string> = {};
      if (isObject(start.customParameters)) {
        for (const [k, v] of Object.entries(start.customParameters)) if (typeof v === 'string') custom[k] = v;
      }
      return {
        event: 'start',
        sequenceNumber: count(msg.sequenceNumber, 'sequenceNumber'),
        start: {
          streamSid: text(start.streamSid ?? msg.streamSid, 'start.streamSid'),
          accountSid: text(start.accountSid, 'start.accountSid'),
          callSid: text(start.callSid, 'start.callSid'),
          tracks: Array.isArray(start.tracks) ? start.tracks.filter((t: unknown): t is string => typeof t === 'string') : [],
          customParameters: custom,
          mediaFormat: {
            encoding: String(format.encoding ?? ''),
            sampleRate: Number(format.sampleRate ?? 0),
            channels: Number(format.channels ?? 0),
          },
        },
      };
    }
    case 'dtmf': {
      const dtmf = msg.dtmf;
      if (!isObject(dtmf)) throw new MediaProtocolError('dtmf is missing');
      return { event: 'dtmf', sequenceNumber: count(msg.sequenceNumber, 'sequenceNumber'), digit: text(dtmf.digit, 'dtmf.digit') };
    }
    case 'mark': {
      const mark = msg.mark;
      if (!isObject(mark)) throw new MediaProtocolError('mark is missing');
      return { event: 'mark', sequenceNumber: count(msg.sequenceNumber, 'sequenceNumber'), name: text(mark.name, 'mark.name') };
    }
    case 'stop': {
      const stop = isObject(msg.stop) ? msg.stop : {};
      return { event: 'stop', sequenceNumber: count(msg.sequenceNumber, 'sequenceNumber'), callSid: String(stop.callSid ?? '') };
    }
    default:
      return null;
  }
}

/** Outbound audio: base64 of raw μ-law bytes, no WAV header. */
export function mediaMessage(streamSid: string, mulaw: Uint8Array): string {
  return `{"event":"media","streamSid":${JSON.stringify(streamSid)},"media":{"payload":"${Buffer.from(mulaw.buffer, mulaw.byteOffset, mulaw.byteLength).toString('base64')}"}}`;
}

/** A mark after the audio sent so far; Twilio echoes it when that audio has played (or was cleared). */
export function markMessage(streamSid: string, name: string): string {
  return JSON.stringify({ event: 'mark', streamSid, mark: { name } });
}

/** Drops the audio Twilio still holds; pending marks come back at once. */
export function clearMessage(streamSid: string): string {
  return JSON.stringify({ event: 'clear', streamSid });
}
