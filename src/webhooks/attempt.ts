/**
 * One attempt of one webhook message: sign it (Standard Webhooks), POST it through the
 * outbound-request guard, and classify the answer — delivered, retry later, or stop for good
 * (410 Gone, a disabled webhook, a refused address). Recording the attempt is the caller's job
 * (src/webhooks/record.ts), so an attempt has no side effect on our database.
 */
import { Webhook } from 'standardwebhooks';
import { BlockedTargetError, OutboundTimeoutError, outboundRequest } from '../lib/outbound.js';
import { storableJson, storableText } from '../lib/storable.js';
import type { MessageJob } from './messages.js';
import { currentUrl, type CallContext } from './payload.js';

export interface AttemptOptions {
  attemptTimeoutMs: number;
  maxResponseBytes: number;
  storedBodyChars: number;
  /** ALLOW_PRIVATE_TARGETS: receivers on private addresses are allowed (development). */
  allowPrivate: boolean;
}

export type Outcome = 'delivered' | 'retry' | 'stop';

export interface AttemptResult {
  url: string;
  startedAt: Date;
  statusCode: number | null;
  durationMs: number | null;
  error: string | null;
  /** What goes into webhook_response, or null to leave it as it is. */
  response: Record<string, unknown> | null;
  outcome: Outcome;
}

/** One attempt of one message; the assistant's switches decide whether it is made at all. */
export async function attemptDelivery(msg: MessageJob, call: CallContext, options: AttemptOptions): Promise<AttemptResult> {
  const url = currentUrl(call, msg.kind);
  if (url) return send(url, msg, call.webhookSecret, options);
  return {
    url: msg.url,
    startedAt: new Date(),
    statusCode: null,
    durationMs: null,
    error: 'Not sent: the webhook has been disabled.',
    response: null,
    outcome: 'stop',
  };
}

async function send(url: string, msg: MessageJob, secret: string, options: AttemptOptions): Promise<AttemptResult> {
  const startedAt = new Date();
  const headers = {
    'content-type': 'application/json',
    'webhook-id': msg.messageId,
    'webhook-timestamp': String(Math.floor(startedAt.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(msg.messageId, startedAt, msg.body),
  };
  const base = { url, startedAt };
  const began = performance.now();
  try {
    const res = await outboundRequest({
      url,
      method: 'POST',
      headers,
      body: msg.body,
      timeoutMs: options.attemptTimeoutMs,
      maxResponseBytes: options.maxResponseBytes,
      allowPrivate: options.allowPrivate,
    });
    const response = storedResponse(res.status, res.body, res.truncated, options.storedBodyChars);
    const common = { ...base, statusCode: res.status, durationMs: res.durationMs, response };
    if (res.status >= 200 && res.status < 300) return { ...common, error: null, outcome: 'delivered' };
    if (res.status === 410) return { ...common, error: 'HTTP 410 Gone: the receiver asked not to be retried.', outcome: 'stop' };
    if (res.status >= 300 && res.status < 400) {
      const location = res.headers.location ? ` to ${res.headers.location.slice(0, 500)}` : '';
      return { ...common, error: `HTTP ${res.status}: redirect${location} not followed.`, outcome: 'retry' };
    }
    return { ...common, error: `HTTP ${res.status}`, outcome: 'retry' };
  } catch (err) {
    const durationMs = Math.round(performance.now() - began);
    if (err instanceof BlockedTargetError) {
      // A refused address stays refused; retrying would only repeat the refusal.
      return { ...base, statusCode: null, durationMs, response: null, error: err.message, outcome: 'stop' };
    }
    const error = err instanceof OutboundTimeoutError ? err.message : `Request failed: ${(err as Error).message}`;
    return { ...base, statusCode: null, durationMs, response: null, error, outcome: 'retry' };
  }
}

/**
 * The receiver's answer as stored: its JSON object, else `{status, body}` (body capped). Made
 * storable: it is written in the transaction that logs the attempt and completes its job, so a
 * NUL or a lone surrogate in it would fail that transaction on every try (the message sent again
 * and again, never logged, and at last dropped with its job).
 */
function storedResponse(status: number, body: string, truncated: boolean, cap: number): Record<string, unknown> {
  if (!truncated && body.trim() !== '') {
    try {
      const parsed: unknown = JSON.parse(body);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return storableJson(parsed) as Record<string, unknown>;
    } catch {
      /* not JSON: stored as text below */
    }
  }
  return { status, body: storableText(body.length > cap ? body.slice(0, cap) : body) };
}
