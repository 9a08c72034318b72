/**
 * The plumbing every protocol double shares: an HTTP server on 127.0.0.1 with a random port,
 * WebSocket upgrades through `ws`, and a close that ends every connection at once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

export type UpgradeHandler = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void;

export class LocalServer {
  readonly http: http.Server;
  readonly ws = new WebSocketServer({ noServer: true });
  port = 0;

  constructor(onRequest?: http.RequestListener, onUpgrade?: UpgradeHandler) {
    this.http = http.createServer(onRequest ?? ((_req, res) => res.writeHead(404).end()));
    this.http.on('upgrade', (req, socket, head) => {
      if (onUpgrade) onUpgrade(req, socket, head);
      else refuseUpgrade(socket, 404, 'Not Found');
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.http.listen(0, '127.0.0.1', resolve));
    this.port = (this.http.address() as AddressInfo).port;
  }

  origin(scheme: 'http' | 'ws'): string {
    return `${scheme}://127.0.0.1:${this.port}`;
  }

  /** Completes a WebSocket upgrade. */
  accept(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<WebSocket> {
    return new Promise((resolve) => this.ws.handleUpgrade(req, socket, head, resolve));
  }

  async close(): Promise<void> {
    for (const client of this.ws.clients) client.terminate();
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }
}

/**
 * A protocol double: a LocalServer whose requests and upgrades go to the subclass's
 * `onRequest` / `onUpgrade`, started with `start()` and ended with `close()`.
 */
export abstract class ProtocolDouble {
  protected readonly server = new LocalServer(
    (req, res) => this.onRequest(req, res),
    (req, socket, head) => this.onUpgrade(req, socket, head),
  );

  async start(): Promise<this> {
    await this.server.listen();
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  protected onRequest(_req: http.IncomingMessage, res: http.ServerResponse): void {
    res.writeHead(404).end();
  }

  protected onUpgrade(_req: http.IncomingMessage, socket: Duplex, _head: Buffer): void {
    refuseUpgrade(socket, 404, 'Not Found');
  }
}

/**
 * An OpenAI-compatible HTTP endpoint (`POST /v1/<path>`): the base URL to configure (with `/v1`),
 * 404 for anything else, and `answer()` with an OpenAI-style `fail` for the subclass.
 */
export abstract class OpenAiEndpointDouble extends ProtocolDouble {
  protected abstract readonly path: string;

  /** The base URL to configure (`TTS_BASE_URL`, `STT_BASE_URL`, …), with `/v1`. */
  get baseUrl(): string {
    return `${this.server.origin('http')}/v1`;
  }

  protected override onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const fail = (status: number, message: string, type?: string) => openAiError(res, status, message, type);
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== `/v1/${this.path}`) return fail(404, 'Not found');
    void this.answer(req, res, fail);
  }

  protected abstract answer(req: http.IncomingMessage, res: http.ServerResponse, fail: (status: number, message: string, type?: string) => void): Promise<void>;
}

/** Answers an upgrade request with a plain HTTP error, as vendors do for bad keys or parameters. */
export function refuseUpgrade(socket: Duplex, status: number, reason: string, headers: Record<string, string> = {}): void {
  const lines = [`HTTP/1.1 ${status} ${reason}`, 'Connection: close', 'Content-Length: 0', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  socket.end(lines.join('\r\n') + '\r\n\r\n');
}

/** An OpenAI-style error answer (`{error: {message, type, param, code}}`), as OpenAI-compatible servers send. */
export function openAiError(res: http.ServerResponse, status: number, message: string, type = 'invalid_request_error'): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message, type, param: null, code: null } }));
}

/** Reads a request body as text. */
export function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
