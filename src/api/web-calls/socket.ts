/**
 * Adapts a `ws` WebSocket to the web carrier's BrowserSocket. Listeners are attached at
 * once, so nothing the page sends while the token is checked is lost: messages wait until
 * the leg listens.
 */
import type { WebSocket } from 'ws';
import type { BrowserSocket } from '../../telephony/web/carrier.js';

/** 20 s of the page's 20 ms audio frames: what a caller says while a busy service starts the call. */
const QUEUED_MAX = 1000;

export function browserSocket(ws: WebSocket): BrowserSocket {
  const queued: { data: string | Uint8Array; binary: boolean }[] = [];
  let onMessage: ((data: string | Uint8Array, binary: boolean) => void) | null = null;
  const closeListeners: (() => void)[] = [];
  let closed = false;
  ws.on('message', (raw, isBinary) => {
    const buf = Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw as ArrayBuffer);
    const item = { data: isBinary ? new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength) : buf.toString('utf8'), binary: isBinary };
    if (onMessage) onMessage(item.data, item.binary);
    else if (queued.length < QUEUED_MAX) queued.push(item);
  });
  ws.on('close', () => {
    closed = true;
    for (const l of closeListeners.splice(0)) l();
  });
  ws.on('error', () => ws.terminate());
  return {
    send(data) {
      if (ws.readyState === ws.OPEN) ws.send(data);
    },
    close(code, reason) {
      ws.close(code, reason);
    },
    onMessage(listener) {
      onMessage = listener;
      for (const item of queued.splice(0)) listener(item.data, item.binary);
    },
    onClose(listener) {
      if (closed) queueMicrotask(listener);
      else closeListeners.push(listener);
    },
  };
}
