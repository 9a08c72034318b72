/**
 * `recording_url`: a link to the service itself, `{PUBLIC_BASE_URL}/recordings/{callId}.wav`,
 * signed with the deployment key's `links` key and valid until `expires` (Unix seconds).
 * Links are made when a record is read or a webhook is built, so a stored call never holds a
 * link that has expired; anyone holding a valid link can download until it expires, no
 * token needed (a webhook receiver, a browser).
 */
import { sign, verifySignature } from '../lib/secrets.js';

export const RECORDING_PATH_PREFIX = '/recordings/';

function payload(callId: number, expires: number): string {
  return `recording:${callId}:${expires}`;
}

export class RecordingLinks {
  /**
   * @param key the `links` key derived from SECRET_KEY (src/lib/secrets.ts)
   * @param ttlSeconds how long a link made now stays valid
   */
  constructor(
    private readonly baseUrl: string,
    private readonly key: Buffer,
    private readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A link valid for `ttlSeconds` from now. */
  linkFor(callId: number): string {
    const expires = Math.floor(this.now() / 1000) + this.ttlSeconds;
    return `${this.baseUrl}${RECORDING_PATH_PREFIX}${callId}.wav?expires=${expires}&signature=${sign(payload(callId, expires), this.key)}`;
  }

  /** Why a link does not open, or null when it does. */
  check(callId: number, expires: unknown, signature: unknown): 'invalid' | 'expired' | null {
    if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires) || typeof signature !== 'string' || signature.length > 100) return 'invalid';
    // The signature first: an altered expiry is "invalid", never "expired".
    if (!verifySignature(payload(callId, Number(expires)), signature, this.key)) return 'invalid';
    if (Number(expires) * 1000 <= this.now()) return 'expired';
    return null;
  }
}

/** What a call record stores as `recording_url` when the service keeps the recording: the path, turned into a signed link when read. */
export function storedRecordingPath(callId: number): string {
  return `${RECORDING_PATH_PREFIX}${callId}.wav`;
}

const STORED = /^\/recordings\/(\d{1,10})\.wav$/;

/**
 * The `recording_url` a reader gets: a fresh signed link for a recording the service keeps
 * (stored as its path), anything else as stored, null as null.
 */
export function publicRecordingUrl(stored: string | null | undefined, links: RecordingLinks | null): string | null {
  if (!stored) return null;
  const m = STORED.exec(stored);
  if (!m || !links) return stored;
  return links.linkFor(Number(m[1]));
}
