/**
 * The service's WebSockets (carriers' media streams, browser and widget calls) need no bearer
 * token: a socket proves itself by what it sends (Twilio's `start` with the call's one-time
 * token) or by its URL's one-time token. Until it has, it is a stranger holding a file
 * descriptor, and enough strangers lock every client out (issue 27: ~1,000 idle media sockets
 * under a 1,024-descriptor limit). So:
 *  - upgrades are admitted only while fewer than `maxPending` sockets of the process, and
 *    fewer than `maxPendingPerAddress` of the remote address, are still unproven; the others
 *    are answered 503 with Retry-After before the upgrade, and their descriptor is freed at once;
 *  - a socket must prove itself within `startTimeoutMs` of the upgrade, else it is closed;
 *  - every socket, proven or not, is pinged every `heartbeatMs` and dropped when the previous
 *    ping got no answer (a pong, or any message) — a dead peer frees its descriptor too.
 * In memory, per process: the descriptors it protects are the process's own.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';

export interface SocketGuardOptions {
  startTimeoutMs: number;
  heartbeatMs: number;
  maxPending: number;
  /** 0: no per-address cap (every client arrives through one proxy address). */
  maxPendingPerAddress: number;
}

/** The close code of a socket that did not prove itself in time (a policy violation). */
export const CLOSE_NOT_STARTED = 1008;
export const TOO_MANY_PENDING = 'Too many connections are waiting to start; please try again in a moment.';
const REFUSED_BODY = JSON.stringify({ message: TOO_MANY_PENDING });
const REFUSED_RESPONSE = [
  'HTTP/1.1 503 Service Unavailable',
  'Content-Type: application/json; charset=utf-8',
  `Content-Length: ${Buffer.byteLength(REFUSED_BODY)}`,
  'Retry-After: 5',
  'Connection: close',
  '',
  REFUSED_BODY,
].join('\r\n');
/** After a close frame, how long a peer may take to answer it before its socket is destroyed. */
const CLOSE_GRACE_MS = 1_000;

export interface WatchedSocket {
  /** The socket proved itself: it stops counting as a stranger and its start deadline is off. */
  authenticated(): void;
}

interface Reservation {
  address: string;
  released: boolean;
}

interface Watched {
  ws: WebSocket;
  alive: boolean;
}

export class SocketGuard {
  private pendingCount = 0;
  private readonly byAddress = new Map<string, number>();
  private readonly reservations = new WeakMap<object, Reservation>();
  private readonly watched = new Set<Watched>();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(readonly options: SocketGuardOptions) {
    this.heartbeat = setInterval(() => this.beat(), options.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Unproven sockets now (admitted upgrades that have not authenticated or closed). */
  get pending(): number {
    return this.pendingCount;
  }

  /** Whether an upgrade from `address` could be admitted now (the cheap check before any routing). */
  hasRoom(address: string): boolean {
    const { maxPending, maxPendingPerAddress } = this.options;
    return this.pendingCount < maxPending && (maxPendingPerAddress === 0 || (this.byAddress.get(address) ?? 0) < maxPendingPerAddress);
  }

  /**
   * Counts an upgrade request as a stranger until it authenticates or its connection closes;
   * false (count unchanged) when the process or its address already has as many as allowed.
   */
  admit(req: FastifyRequest): boolean {
    const address = req.ip;
    if (!this.hasRoom(address)) return false;
    const fromAddress = this.byAddress.get(address) ?? 0;
    const reservation: Reservation = { address, released: false };
    this.pendingCount++;
    this.byAddress.set(address, fromAddress + 1);
    this.reservations.set(req.raw, reservation);
    req.raw.socket.once('close', () => this.release(reservation));
    return true;
  }

  /** Starts the deadline and heartbeat of an upgraded socket (`req`: its upgrade request). */
  watch(ws: WebSocket, req: FastifyRequest): WatchedSocket {
    const reservation = this.reservations.get(req.raw);
    const entry: Watched = { ws, alive: true };
    this.watched.add(entry);
    const deadline = setTimeout(() => {
      ws.close(CLOSE_NOT_STARTED, 'not started in time');
      setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
    }, this.options.startTimeoutMs);
    deadline.unref();
    const alive = () => (entry.alive = true);
    ws.on('pong', alive);
    ws.on('message', alive);
    ws.once('close', () => {
      clearTimeout(deadline);
      this.watched.delete(entry);
      if (reservation) this.release(reservation);
    });
    return {
      authenticated: () => {
        clearTimeout(deadline);
        if (reservation) this.release(reservation);
      },
    };
  }

  close(): void {
    clearInterval(this.heartbeat);
  }

  private release(r: Reservation): void {
    if (r.released) return;
    r.released = true;
    this.pendingCount--;
    const left = (this.byAddress.get(r.address) ?? 1) - 1;
    if (left > 0) this.byAddress.set(r.address, left);
    else this.byAddress.delete(r.address);
  }

  private beat(): void {
    for (const entry of this.watched) {
      if (!entry.alive) {
        entry.ws.terminate();
        continue;
      }
      entry.alive = false;
      if (entry.ws.readyState === entry.ws.OPEN) entry.ws.ping();
    }
  }
}

/**
 * Installs the guard on `app` (after @fastify/websocket, whose onRequest hook marks upgrade
 * requests as `req.ws`): refused upgrades are answered 503 before they become sockets.
 */
export function installSocketGuard(app: FastifyInstance, options: SocketGuardOptions): SocketGuard {
  const guard = new SocketGuard(options);
  app.decorate('socketGuard', guard);
  let lastWarn = 0;
  let refused = 0;
  // Once per 10 s with the count: under a flood, a line per refusal would be a flood of its own.
  const refusedOne = (address: string | undefined) => {
    refused++;
    if (Date.now() - lastWarn < 10_000) return;
    app.log.warn({ pending: guard.pending, address, refused }, 'WebSockets refused: too many unproven sockets');
    lastWarn = Date.now();
    refused = 0;
  };
  // Under a flood most upgrades are refused: answered on the raw socket before routing, hooks and
  // logging, so that refusing costs the event loop next to nothing (the health checks and the API
  // share it). @fastify/websocket's own listener runs only for upgrades that may be admitted.
  const upgradeListeners = app.server.listeners('upgrade') as ((req: IncomingMessage, socket: Duplex, head: Buffer) => void)[];
  app.server.removeAllListeners('upgrade');
  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const address = req.socket?.remoteAddress; // absent on an injected upgrade (app.injectWS)
    if (address && !guard.hasRoom(address)) {
      refusedOne(address);
      socket.on('error', () => socket.destroy());
      socket.end(REFUSED_RESPONSE);
      return;
    }
    for (const listener of upgradeListeners) listener.call(app.server, req, socket, head);
  });
  // The authoritative check, which also counts the admitted (the two may differ by upgrades in flight).
  app.addHook('onRequest', async (req, reply) => {
    if (!req.ws || guard.admit(req)) return;
    refusedOne(req.ip);
    return reply.code(503).header('retry-after', '5').send({ message: TOO_MANY_PENDING });
  });
  app.addHook('onClose', async () => guard.close());
  return guard;
}
