/**
 * A bare media-stream endpoint for tests below the service: a `ws` server that wraps each
 * stream in TwilioMediaStream (as the Twilio carrier does) and keeps what arrived.
 * `prepare` may wrap the stream's media (a recorder) before listeners are attached.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { parseMediaMessage } from '../../../src/telephony/twilio/media-protocol.js';
import { TwilioMediaStream } from '../../../src/telephony/twilio/media-stream.js';
import type { LegMedia } from '../../../src/telephony/types.js';

export interface ServerSide {
  stream: TwilioMediaStream;
  /** The media the test talks to: the stream itself, or what `prepare` made of it. */
  media: LegMedia;
  heard: Int16Array[];
  digits: string[];
  marks: Array<[string, boolean]>;
  stopped: boolean;
}

export interface StreamServer {
  port: number;
  sides: ServerSide[];
  /** Maps the public `wss://sb.example` to this server. */
  route(url: string): string;
  close(): Promise<void>;
}

export async function startStreamServer(prepare: (stream: TwilioMediaStream) => LegMedia = (s) => s): Promise<StreamServer> {
  const sides: ServerSide[] = [];
  const server = http.createServer();
  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket) => {
    let side: ServerSide | null = null;
    socket.on('message', (data) => {
      const msg = parseMediaMessage(data.toString());
      if (!msg) return;
      if (msg.event === 'start') {
        const s = { heard: [], digits: [], marks: [], stopped: false } as unknown as ServerSide;
        s.stream = new TwilioMediaStream(socket, msg.start);
        s.stream.onDtmf((d) => s.digits.push(d));
        s.stream.onStop(() => (s.stopped = true));
        s.media = prepare(s.stream);
        s.media.onAudio((samples) => s.heard.push(samples));
        s.media.onMark((name, cleared) => s.marks.push([name, cleared]));
        side = s;
        sides.push(s);
      } else if (side) {
        side.stream.receive(msg);
      }
    });
    socket.on('close', () => side?.stream.ended());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    sides,
    route: (url) => url.replace('wss://sb.example', `ws://127.0.0.1:${port}`),
    async close() {
      wss.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A recognisable signal: a rising tone at 8 kHz. */
export function chirp(ms: number, from = 400, to = 1600): Int16Array {
  const n = (ms / 1000) * 8000;
  const out = new Int16Array(n);
  let phase = 0;
  for (let i = 0; i < n; i++) {
    phase += (2 * Math.PI * (from + ((to - from) * i) / n)) / 8000;
    out[i] = Math.round(8000 * Math.sin(phase));
  }
  return out;
}

/** Normalised correlation of two signals over their common length (1 = identical shape). */
export function correlation(a: Int16Array, b: Int16Array): number {
  const n = Math.min(a.length, b.length);
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < n; i++) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return aa && bb ? ab / Math.sqrt(aa * bb) : 0;
}

export async function until(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}
