/**
 * The web carrier: calls placed from a browser (the dashboard's "Talk to this assistant", the
 * embeddable widget). The browser's WebSocket is the line. The route that accepts the socket
 * checks who may open it, then `attach`es it here under the call's id and asks the engine to
 * start the call; the engine's `dial` then finds the socket waiting. The carrier never
 * reaches the network and knows nothing of assistants or the database.
 *
 * Two kinds of leg, chosen by the socket's `mode`:
 * - `audio`: an audio leg (`media`); the voice core runs on it (PCM16 mono, 16 kHz, both ways);
 * - `text`: a typed conversation on a text leg (no speech-to-text configured, or asked for).
 * The wire protocol is in ./protocol.ts.
 */
import type { Carrier, CarrierLeg, DialRequest } from '../types.js';
import { type BrowserSocket, WebLeg, type WebCallMode } from './leg.js';

export type { BrowserSocket, WebCallMode } from './leg.js';

interface Waiting {
  socket: BrowserSocket;
  mode: WebCallMode;
}

export class WebCarrier implements Carrier {
  readonly name = 'web';
  private readonly waiting = new Map<number, Waiting>();

  /** A browser's socket for call `callId`, picked up by the engine's `dial` for that call. */
  attach(callId: number, socket: BrowserSocket, mode: WebCallMode): void {
    this.waiting.set(callId, { socket, mode });
    // A socket that closes before the engine dials is forgotten.
    socket.onClose(() => {
      if (this.waiting.get(callId)?.socket === socket) this.waiting.delete(callId);
    });
  }

  /** Takes back a socket no call picked up; true when it was still waiting. */
  detach(callId: number, socket: BrowserSocket): boolean {
    if (this.waiting.get(callId)?.socket !== socket) return false;
    this.waiting.delete(callId);
    return true;
  }

  dial(request: DialRequest): CarrierLeg {
    const entry = request.callId === undefined ? undefined : this.waiting.get(request.callId);
    if (request.callId !== undefined) this.waiting.delete(request.callId);
    const leg = new WebLeg(entry?.socket ?? null, entry?.mode ?? 'text');
    if (request.callId !== undefined) leg.setCallId(request.callId);
    return leg;
  }
}
