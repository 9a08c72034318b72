/**
 * Trying a speech-provider key: ONE cheap, read-only request to the vendor, at the address the
 * deployment sends that vendor's traffic to, and an answer for people saying what happened.
 *
 * - OpenAI: `GET {OPENAI_API_URL}/models` (Bearer): lists models, costs nothing.
 * - Deepgram: `GET /v1/projects` on DEEPGRAM_URL's host (`Authorization: Token …`).
 * - ElevenLabs: `GET /v1/user` on ELEVENLABS_URL's host (`xi-api-key`).
 * - LLM (an OpenAI-compatible chat server at the account's base URL, else OPENAI_API_URL):
 *   `GET {base}/models` (Bearer); a server without that route (404/405) is asked instead for
 *   one token: `POST {base}/chat/completions` with `max_tokens: 1`. The base URL is the user's:
 *   it goes through the outbound guard first (private addresses only with ALLOW_PRIVATE_TARGETS).
 *
 * The key is only ever put in the request's header: never in a message, never logged; a vendor
 * message that quotes it has it replaced by its hint.
 */
import { STATUS_CODES } from 'node:http';
import type { Config } from '../config.js';
import { BlockedTargetError, checkTarget } from '../lib/outbound.js';
import type { KeyProvider } from './speech.js';

export type KeyCheckConfig = Pick<Config, 'OPENAI_API_URL' | 'DEEPGRAM_URL' | 'ELEVENLABS_URL'>;

export interface KeyCheck {
  ok: boolean;
  provider: KeyProvider;
  /** What was requested, e.g. `GET https://api.openai.com/v1/models`. */
  checked: string;
  /** The vendor's HTTP status, when it answered. */
  status?: number;
  /** For people: what worked or what failed. */
  message: string;
  latencyMs: number;
}

export const KEY_CHECK_TIMEOUT_MS = 10_000;

const VENDOR: Record<KeyProvider, string> = { openai: 'OpenAI', deepgram: 'Deepgram', elevenlabs: 'ElevenLabs', llm: 'The LLM server' };

/** What an `llm` key is tried against: its base URL, the outbound guard's switch, the model of the one-token fallback. */
export interface LlmCheckOptions {
  baseUrl: string;
  allowPrivate: boolean;
  model: string;
}

/** The HTTP origin of a WebSocket address (`wss://api.deepgram.com/v1/listen` -> `https://api.deepgram.com`). */
function httpOrigin(url: string): string {
  const u = new URL(url);
  if (u.protocol === 'wss:') u.protocol = 'https:';
  else if (u.protocol === 'ws:') u.protocol = 'http:';
  return u.origin;
}

/** The request that tries a key of this vendor. */
export function keyCheckRequest(provider: KeyProvider, config: KeyCheckConfig, key: string, llmBase?: string): { url: string; headers: Record<string, string> } {
  switch (provider) {
    case 'openai':
    case 'llm':
      return { url: `${(provider === 'llm' && llmBase ? llmBase : config.OPENAI_API_URL).replace(/\/+$/, '')}/models`, headers: { authorization: `Bearer ${key}` } };
    case 'deepgram':
      return { url: `${httpOrigin(config.DEEPGRAM_URL)}/v1/projects`, headers: { authorization: `Token ${key}` } };
    case 'elevenlabs':
      return { url: `${httpOrigin(config.ELEVENLABS_URL)}/v1/user`, headers: { 'xi-api-key': key } };
  }
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'connection closed',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate could not be verified',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is for another host',
};

function networkReason(err: unknown): string {
  let e: any = err;
  for (let i = 0; i < 3 && e; i++) {
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (code) return NETWORK_REASONS[code] ?? code;
    e = e.cause;
  }
  return (err as Error)?.message || 'network error';
}

/** The vendor's own words from an error body (OpenAI `error.message`, Deepgram `err_msg`, ElevenLabs `detail`). */
function vendorDetail(text: string): string | null {
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  const found = body?.error?.message ?? body?.err_msg ?? body?.detail?.message ?? (typeof body?.detail === 'string' ? body.detail : null) ?? body?.message;
  return typeof found === 'string' && found.trim() !== '' ? found.trim().slice(0, 200) : null;
}

/** Reads at most `limit` bytes of a body (an error page may be large), then lets the rest go. */
async function readSome(res: Response, limit = 16_384): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, limit);
}

const hint = (key: string) => `••••${key.slice(-4)}`;

/**
 * Makes the one request and says how it went; never throws. An `llm` key needs `llm` (its
 * base URL); its server may be asked a second time, for one token, when it has no `/models`.
 */
export async function checkProviderKey(
  provider: KeyProvider,
  key: string,
  config: KeyCheckConfig,
  opts: { timeoutMs?: number; llm?: LlmCheckOptions } = {},
): Promise<KeyCheck> {
  const timeoutMs = opts.timeoutMs ?? KEY_CHECK_TIMEOUT_MS;
  const vendor = VENDOR[provider];
  const { url, headers } = keyCheckRequest(provider, config, key, opts.llm?.baseUrl);
  let checked = `GET ${url}`;
  const started = performance.now();
  const done = (rest: Omit<KeyCheck, 'provider' | 'checked' | 'latencyMs'>): KeyCheck => ({ provider, checked, ...rest, latencyMs: Math.round(performance.now() - started) });
  let target = url;
  try {
    if (opts.llm) await checkTarget(url, opts.llm.allowPrivate);
    let res = await fetch(url, { headers: { ...headers, accept: 'application/json' }, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    if (opts.llm && (res.status === 404 || res.status === 405)) {
      // No model list here (some OpenAI-compatible servers have none): one token of a completion.
      void res.body?.cancel().catch(() => {});
      target = url.replace(/\/models$/, '/chat/completions');
      checked = `POST ${target}`;
      const body = JSON.stringify({ model: opts.llm.model, messages: [{ role: 'user', content: 'Say OK.' }], max_tokens: 1, stream: false });
      res = await fetch(target, { method: 'POST', headers: { ...headers, accept: 'application/json', 'content-type': 'application/json' }, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    }
    const text = await readSome(res);
    const statusLine = `${res.status} ${res.statusText || STATUS_CODES[res.status] || ''}`.trim();
    if (res.ok) return done({ ok: true, status: res.status, message: `${vendor} accepted the key (${statusLine}).` });
    const detail = vendorDetail(text)?.split(key).join(hint(key));
    const words = res.status === 401 || res.status === 403 ? `${vendor} refused the key (${statusLine})` : `${vendor} answered ${statusLine}`;
    return done({ ok: false, status: res.status, message: detail ? `${words}: ${detail}` : `${words}.` });
  } catch (err) {
    if (err instanceof BlockedTargetError) return done({ ok: false, message: `${err.message} (this deployment does not call private or internal addresses).` });
    const name = (err as Error)?.name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      const seconds = Math.round(timeoutMs / 100) / 10;
      return done({ ok: false, message: `No answer from ${target}: timed out after ${seconds} s.` });
    }
    return done({ ok: false, message: `Could not reach ${target} (${networkReason(err)}).` });
  }
}
