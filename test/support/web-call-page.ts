/** A browser page's side of a web call's media socket (typed calls): JSON messages in order, waiting for one of a type. */
import WebSocket from 'ws';
import type { TestService } from './service.js';

export interface BrowserPage {
  ws: WebSocket;
  messages: Record<string, unknown>[];
  next(type: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  closed: Promise<{ code: number; reason: string }>;
}

export function openBrowserPage(t: TestService, path: string): BrowserPage {
  const ws = new WebSocket(`${t.service.url!.replace(/^http/, 'ws')}${path}`);
  const messages: Record<string, unknown>[] = [];
  const waiters: { type: string; resolve: (m: Record<string, unknown>) => void }[] = [];
  let seen = 0;
  ws.on('message', (data, binary) => {
    if (binary) return;
    const m = JSON.parse(String(data)) as Record<string, unknown>;
    messages.push(m);
    const i = waiters.findIndex((w) => w.type === m.type);
    if (i >= 0) {
      seen = messages.length;
      waiters.splice(i, 1)[0]!.resolve(m);
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  return {
    ws,
    messages,
    closed,
    next(type, timeoutMs = 10_000) {
      const found = messages.slice(seen).find((m) => m.type === type);
      if (found) {
        seen = messages.indexOf(found) + 1;
        return Promise.resolve(found);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${type} message within ${timeoutMs} ms: ${JSON.stringify(messages)}`)), timeoutMs);
        waiters.push({ type, resolve: (m) => (clearTimeout(timer), resolve(m)) });
      });
    },
  };
}

