/**
 * A local Deepgram live server (`/v1/listen`, VOICE.md A2): settings in the query string, key as
 * `Authorization: Token <key>` (or the `["token", key]` subprotocols), raw audio in binary
 * frames, `KeepAlive` / `Finalize` / `CloseStream` as text, and back the real message shapes:
 * `Results` (interim, `is_final`, `speech_final`, words with times, `from_finalize`),
 * `SpeechStarted` (vad_events), `UtteranceEnd` (utterance_end_ms), `Metadata` before the close.
 *
 * Recognition is clip matching (clips.ts): utterances are cut by energy, an utterance ends after
 * `endpointing` ms of quiet (at least `minGapMs`; with `endpointing=false` after `minGapMs`, and
 * then without `speech_final`). All timing is audio time, so results do not depend on pacing.
 * Interim results name the registered clip the utterance so far begins like, with the share of
 * its words heard.
 *
 * Knobs: a delay before each final, dropping `speech_final` or `UtteranceEnd`, refusing every
 * key, closing mid-stream after some audio, the idle close (Deepgram: ~10 s without data).
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { alaw, mulaw } from '../../../src/audio/g711.js';
import { bytesToInt16 } from '../../../src/audio/pcm.js';
import { ClipBook, EnergySegmenter, type Utterance } from './clips.js';
import { ProtocolDouble, refuseUpgrade } from './server.js';

export interface DeepgramKnobs {
  /** The key clients must present. */
  apiKey: string;
  /** Refuse every handshake with 401. */
  failAuth: boolean;
  /** Wait this long (wall time) before sending each final result. */
  finalDelayMs: number;
  /** Never set speech_final (forces the UtteranceEnd fallback). */
  dropSpeechFinal: boolean;
  /** Never send UtteranceEnd. */
  dropUtteranceEnd: boolean;
  /** Close the socket (1011) once this much audio (ms) has arrived; null: never. */
  closeAfterAudioMs: number | null;
  /** Close (1011, NET-0001) after this long without audio or a text message. */
  idleCloseMs: number;
  /** Shortest quiet (ms) that ends an utterance, whatever `endpointing` says. */
  minGapMs: number;
  /** An interim result after every this much audio within an utterance. */
  interimEveryMs: number;
  /** Text of an utterance no clip matches. */
  unknownText: string;
}

/** One connection as the double saw it. */
export interface DeepgramConnection {
  query: URLSearchParams;
  /** Text messages received (parsed). */
  controls: { type: string }[];
  /** Audio received, ms (at the connection's rate). */
  audioMs: number;
  /** Bytes of each binary message, and the text messages (`control:<type>`), in arrival order (the client's chunking). */
  chunks: (number | string)[];
  /** Every message sent to the client. */
  sent: Record<string, any>[];
  /** Utterances recognised, with the match score (0 when none matched). */
  heard: { text: string; score: number; startMs: number; endMs: number }[];
  closed: boolean;
}

const ENCODINGS = new Set(['linear16', 'mulaw', 'alaw']);

export class DeepgramDouble extends ProtocolDouble {
  readonly knobs: DeepgramKnobs = {
    apiKey: 'dg-test-key',
    failAuth: false,
    finalDelayMs: 0,
    dropSpeechFinal: false,
    dropUtteranceEnd: false,
    closeAfterAudioMs: null,
    idleCloseMs: 10_000,
    minGapMs: 150,
    interimEveryMs: 250,
    unknownText: '',
  };
  readonly connections: DeepgramConnection[] = [];

  constructor(readonly clips = new ClipBook(), knobs: Partial<DeepgramKnobs> = {}) {
    super();
    Object.assign(this.knobs, knobs);
  }

  /** DEEPGRAM_URL for this double. */
  get url(): string {
    return `${this.server.origin('ws')}/v1/listen`;
  }

  /** The management API's `GET /v1/projects` (what trying a key asks for), with Deepgram's 401 body. */
  protected override onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (req.method !== 'GET' || new URL(req.url ?? '/', 'http://x').pathname !== '/v1/projects') return void res.writeHead(404).end();
    const json = (status: number, body: unknown) => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (this.knobs.failAuth || req.headers.authorization !== `Token ${this.knobs.apiKey}`) {
      return json(401, { err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.', request_id: 'double-request' });
    }
    json(200, { projects: [{ project_id: 'double-project', name: 'Double project' }] });
  }

  protected override onUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/v1/listen') return refuseUpgrade(socket, 404, 'Not Found');
    const auth = req.headers.authorization;
    const protocols = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
    const key = auth?.startsWith('Token ') ? auth.slice(6) : protocols[0] === 'token' ? protocols[1] : undefined;
    if (this.knobs.failAuth || key !== this.knobs.apiKey) {
      return refuseUpgrade(socket, 401, 'Unauthorized', { 'dg-error': 'Invalid credentials.' });
    }
    const q = url.searchParams;
    const encoding = q.get('encoding') ?? 'linear16';
    const rate = Number(q.get('sample_rate'));
    if (!ENCODINGS.has(encoding) || !Number.isInteger(rate) || rate < 8000 || rate > 48_000) {
      return refuseUpgrade(socket, 400, 'Bad Request', { 'dg-error': 'Bad Request: encoding and sample_rate must describe raw audio.' });
    }
    if (q.has('utterance_end_ms') && (Number(q.get('utterance_end_ms')) < 1000 || q.get('interim_results') !== 'true')) {
      return refuseUpgrade(socket, 400, 'Bad Request', { 'dg-error': 'utterance_end_ms needs interim_results=true and at least 1000.' });
    }
    void this.server.accept(req, socket, head).then((ws) => this.serve(ws, q, encoding, rate));
  }

  private serve(ws: WebSocket, q: URLSearchParams, encoding: string, rate: number): void {
    const conn: DeepgramConnection = { query: q, controls: [], audioMs: 0, chunks: [], sent: [], heard: [], closed: false };
    this.connections.push(conn);
    const knobs = this.knobs;
    const endpointing = q.get('endpointing');
    const endpointingMs = endpointing === null ? 10 : endpointing === 'false' ? null : Number(endpointing);
    const utteranceEndMs = q.has('utterance_end_ms') ? Number(q.get('utterance_end_ms')) : null;
    const interim = q.get('interim_results') === 'true';
    const vadEvents = q.get('vad_events') === 'true';
    const segmenter = new EnergySegmenter(rate, Math.max(knobs.minGapMs, endpointingMs ?? 0), this.clips.level);
    const requestId = crypto.randomUUID();
    let lastInterimMs = 0;
    /** Audio time of the last word's end still waiting for its UtteranceEnd. */
    let pendingWordEnd: number | null = null;
    let closing = false;
    /** Finals are sent in order even when delayed. */
    let outbox = Promise.resolve();

    const send = (msg: Record<string, any>) => {
      if (ws.readyState !== ws.OPEN) return;
      conn.sent.push(msg);
      ws.send(JSON.stringify(msg));
    };
    const later = (msg: () => Record<string, any>, delay: number) => {
      outbox = outbox.then(() => (delay > 0 ? new Promise((r) => setTimeout(r, delay)) : undefined)).then(() => send(msg()));
      return outbox;
    };
    const results = (text: string, startMs: number, endMs: number, extra: Record<string, any>) => ({
      type: 'Results',
      channel_index: [0, 1],
      start: startMs / 1000,
      duration: (endMs - startMs) / 1000,
      is_final: false,
      speech_final: false,
      channel: { alternatives: [{ transcript: text, confidence: text ? 0.98 : 0, words: words(text, startMs, endMs) }] },
      metadata: { request_id: requestId, model_info: { name: q.get('model') ?? 'nova-3', version: 'double', arch: 'double' }, model_uuid: '00000000-0000-0000-0000-000000000000' },
      ...extra,
    });
    /**
     * A Finalize inside a clip (the service ending a turn in the caller's pause after "Yes,"):
     * Deepgram transcribes the words heard so far, and the next results carry on with the rest.
     * The double names the cut piece by the clip whose beginning it matches, and keeps its
     * envelope so the audio after the cut is matched as that clip's continuation.
     */
    let carried: { env: Float32Array; endMs: number; text: string; sent: number } | null = null;
    /** The carried piece, the quiet between, then `env`: one envelope of the clip so far. */
    const withCarried = (env: Float32Array, startMs: number) => {
      const c = carried!;
      const gap = Math.max(0, Math.round((startMs - c.endMs) / 10));
      const joined = new Float32Array(c.env.length + gap + env.length);
      joined.set(c.env);
      joined.set(env, c.env.length + gap);
      return joined;
    };
    /** What an utterance is heard as: a whole clip, the rest of a carried one, or (cut by a Finalize) a clip's beginning. */
    const recognise = (u: Utterance, how: 'endpoint' | 'finalize' | 'close'): { text: string; score: number } | null => {
      if (carried) {
        const c = carried;
        const joined = withCarried(u.env, u.startMs);
        const whole = this.clips.match(joined);
        if (whole) {
          // Named as a whole at last (possibly another clip than the cut piece's guess): its words after those already sent.
          carried = null;
          return { text: whole.text.split(/\s+/).slice(c.sent).join(' '), score: whole.score };
        }
        const prefix = how === 'finalize' ? this.clips.matchPrefix(joined) : null;
        if (prefix && prefix.text === c.text) {
          const all = c.text.split(/\s+/);
          const upTo = Math.max(c.sent, Math.min(all.length - 1, Math.round(all.length * prefix.fraction)));
          carried = { env: joined, endMs: u.endMs, text: c.text, sent: upTo };
          return { text: all.slice(c.sent, upTo).join(' '), score: prefix.score };
        }
        carried = null;
      }
      const match = this.clips.match(u.env);
      if (match || how !== 'finalize') return match;
      const prefix = this.clips.matchPrefix(u.env);
      if (!prefix || prefix.fraction >= 1) return null;
      const all = prefix.text.split(/\s+/);
      const upTo = Math.max(1, Math.min(all.length - 1, Math.round(all.length * prefix.fraction)));
      if (upTo >= all.length) return null;
      carried = { env: u.env, endMs: u.endMs, text: prefix.text, sent: upTo };
      return { text: all.slice(0, upTo).join(' '), score: prefix.score };
    };
    const final = (u: Utterance, how: 'endpoint' | 'finalize' | 'close') => {
      const match = recognise(u, how);
      const text = match?.text ?? knobs.unknownText;
      conn.heard.push({ text, score: match?.score ?? 0, startMs: u.startMs, endMs: u.endMs });
      const speechFinal = how === 'endpoint' && endpointingMs !== null && !knobs.dropSpeechFinal;
      if (text) pendingWordEnd = u.endMs;
      return later(() => results(text, u.startMs, u.endMs, { is_final: true, speech_final: speechFinal, ...(how === 'finalize' ? { from_finalize: true } : {}) }), knobs.finalDelayMs);
    };

    let idle: NodeJS.Timeout;
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        if (ws.readyState === ws.OPEN) ws.close(1011, 'Deepgram did not receive audio data or a text message within the timeout window. See https://dpgr.am/net0001');
      }, knobs.idleCloseMs);
    };
    touch();

    const closeStream = async () => {
      if (closing) return;
      closing = true;
      const u = segmenter.flush();
      if (u) await final(u, 'close');
      await outbox;
      send({ type: 'Metadata', transaction_key: 'deprecated', request_id: requestId, sha256: '0'.repeat(64), created: new Date().toISOString(), duration: segmenter.timeMs / 1000, channels: 1, models: [], model_info: {} });
      if (ws.readyState === ws.OPEN) ws.close(1000);
    };

    ws.on('message', (data, isBinary) => {
      if (closing) return;
      touch();
      const buf = Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]);
      if (!isBinary) {
        let msg: { type?: string };
        try {
          msg = JSON.parse(buf.toString('utf8'));
        } catch {
          return send({ type: 'Error', description: 'Text messages must be JSON.', message: 'Bad message' });
        }
        conn.controls.push({ type: String(msg.type) });
        conn.chunks.push(`control:${String(msg.type)}`);
        if (msg.type === 'CloseStream') void closeStream();
        else if (msg.type === 'Finalize') {
          const u = segmenter.flush();
          if (u) void final(u, 'finalize');
          else void later(() => results('', segmenter.timeMs, segmenter.timeMs, { is_final: true, from_finalize: true }), 0);
        }
        return;
      }
      const samples = encoding === 'mulaw' ? mulaw.decode(buf) : encoding === 'alaw' ? alaw.decode(buf) : bytesToInt16(buf.length % 2 ? buf.subarray(0, buf.length - 1) : buf);
      conn.audioMs += (samples.length / rate) * 1000;
      conn.chunks.push(buf.length);
      for (const event of segmenter.push(samples)) {
        if (event.type === 'start') {
          lastInterimMs = event.atMs;
          if (vadEvents) send({ type: 'SpeechStarted', channel: [0, 1], timestamp: event.atMs / 1000 });
        } else void final(event.utterance, 'endpoint');
      }
      const partial = segmenter.partial;
      if (interim && partial && segmenter.timeMs - lastInterimMs >= knobs.interimEveryMs) {
        lastInterimMs = segmenter.timeMs;
        const start = segmenter.timeMs - partial.length * 10;
        // After a cut inside a clip, interims carry on with that clip's words.
        const c = carried;
        const joinedPrefix = c ? this.clips.matchPrefix(withCarried(partial, segmenter.partialStartMs ?? start)) : null;
        if (c && joinedPrefix && joinedPrefix.text === c.text) {
          const all = c.text.split(/\s+/);
          const upTo = Math.round(all.length * joinedPrefix.fraction);
          if (upTo > c.sent) send(results(all.slice(c.sent, upTo).join(' '), start, segmenter.timeMs, {}));
        } else {
          const prefix = this.clips.matchPrefix(partial);
          if (prefix) {
            const all = prefix.text.split(/\s+/);
            send(results(all.slice(0, Math.max(1, Math.round(all.length * prefix.fraction))).join(' '), start, segmenter.timeMs, {}));
          }
        }
      }
      if (utteranceEndMs !== null && pendingWordEnd !== null && !segmenter.speaking && segmenter.timeMs - pendingWordEnd >= utteranceEndMs) {
        const lastWordEnd = pendingWordEnd;
        pendingWordEnd = null;
        if (!knobs.dropUtteranceEnd) void later(() => ({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: lastWordEnd / 1000 }), 0);
      }
      if (knobs.closeAfterAudioMs !== null && conn.audioMs >= knobs.closeAfterAudioMs) ws.close(1011, 'Deepgram encountered an internal error.');
    });
    ws.on('close', () => {
      conn.closed = true;
      clearTimeout(idle);
    });
  }
}

/** Words of `text` spread over the utterance by character count, Deepgram's word shape. */
function words(text: string, startMs: number, endMs: number) {
  const list = text.split(/\s+/).filter(Boolean);
  const total = list.reduce((s, w) => s + w.length, 0) || 1;
  let at = startMs;
  return list.map((w) => {
    const ms = ((endMs - startMs) * w.length) / total;
    const word = { word: w.toLowerCase().replace(/[^\p{L}\p{N}']/gu, ''), start: at / 1000, end: (at + ms) / 1000, confidence: 0.98, punctuated_word: w };
    at += ms;
    return word;
  });
}
