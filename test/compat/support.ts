/**
 * Helpers of the client-compatibility tests (issue 9): a local HTTP receiver that stands in
 * for the customer's tool endpoint and webhook (127.0.0.1 only), and bounded polling the way
 * a client waits for a call or a lead to settle.
 */
import { expect } from 'vitest';
import type { Client, Response } from '../support/service.js';

export { startReceiver, type Received, type Receiver } from '../support/receiver.js';

/** The statuses of CONTRACT §6 a call can end in. */
export const END_STATUSES = ['busy', 'no-answer', 'failed', 'completed', 'ended_by_customer', 'ended_by_assistant', 'ended'];

/** Polls `probe` every 100 ms until it returns a value other than undefined, or fails after `ms`. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Asserts a 2xx answer, naming the step and showing the body when it is not. */
export function ok<T>(step: string, res: Response<T>, status?: number): Response<T> {
  const detail = `${step}: ${res.status} ${JSON.stringify(res.body)}`;
  if (status !== undefined) expect(res.status, detail).toBe(status);
  else {
    expect(res.status, detail).toBeGreaterThanOrEqual(200);
    expect(res.status, detail).toBeLessThan(300);
  }
  return res;
}

/** Reads a call back (as a client polls) until it has reached an end state. */
export function callEnded(client: Client, callId: number, ms?: number) {
  return eventually(`call ${callId} to end`, async () => {
    const res = await client.get(`/api/user/calls/${callId}`);
    ok(`read call ${callId}`, res, 200);
    return END_STATUSES.includes(res.body.status) ? res.body : undefined;
  }, ms);
}

/**
 * A client over a real socket, sending requests the way the existing clients do (the MCP
 * server's HTTP client: `fetch` with `Authorization`, `Content-Type: application/json` and
 * `Accept: application/json` on every request, also on a GET or DELETE without a body).
 */
export function fetchClient(baseUrl: string, token: string): Client {
  const request = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${baseUrl}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: parsed as any, headers: Object.fromEntries(res.headers.entries()) };
  };
  return {
    token,
    request,
    get: (url) => request('GET', url),
    post: (url, body) => request('POST', url, body),
    put: (url, body) => request('PUT', url, body),
    delete: (url, body) => request('DELETE', url, body),
  };
}

/** Fields the existing clients send that Switchboard does not implement (issue 9 item 4). */
export const UNKNOWN_CLIENT_FIELDS = {
  folder_id: 7,
  label_ids: [1, 2],
  tts_emotion_enabled: true,
  ringing_time: 30,
} as const;
