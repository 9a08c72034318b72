/**
 * A local Deepgram Flux server (`/v2/listen`, as Deepgram's Flux API reference and SDK types describe it): key as
 * `Authorization: Token <key>`, settings in the query string (`model` must be a Flux model;
 * `eot_threshold` 0.5–1, `eager_eot_threshold` 0.3–0.9 and ≤ eot, `eot_timeout_ms` 500–60000,
 * checked at the handshake like Deepgram's 400 with `dg-error`), raw audio in binary frames, the
 * text controls `ForceEndTurn`, `Configure`, `CloseStream`; and back Flux's messages, each with a
 * `sequence_id` counting from 0: `Connected`, `TurnInfo` (StartOfTurn, Update every 250 ms of
 * turn audio, EagerEndOfTurn, TurnResumed, EndOfTurn with `trigger`), `ConfigureSuccess` /
 * `ConfigureFailure`, `Error` then a close.
 *
 * Recognition is clip matching (clips.ts), as in the live double; turns follow audio time:
 * - speech starts → StartOfTurn; every `updateEveryMs` of it → Update with the turn's text so far;
 * - a pause (≥ `minGapMs`) → the segment's words join the turn's text; its end-of-turn confidence
 *   is `knobs.confidence(text)`; at or above `eager_eot_threshold` → EagerEndOfTurn at once;
 * - EndOfTurn (`trigger: model`) after `eotDelayMs` more of quiet when the confidence reaches
 *   `eot_threshold` (default 0.7), else after `eot_timeout_ms` (default 5000; `trigger: timeout`);
 * - speech again before that → TurnResumed (only after an EagerEndOfTurn, as Flux does) and the
 *   same turn goes on; `ForceEndTurn` → EndOfTurn now (`trigger: manual`); `turn_index` + 1 after
 *   each EndOfTurn.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { alaw, mulaw } from '../../../src/audio/g711.js';
import { bytesToInt16 } from '../../../src/audio/pcm.js';
import { ClipBook, EnergySegmenter } from './clips.js';
import { ProtocolDouble, refuseUpgrade } from './server.js';

export interface FluxKnobs {
  apiKey: string;
  failAuth: boolean;
  /** End-of-turn confidence of a turn's text (default 0.9: a finished turn). */
  confidence: (text: string) => number;
  /** Quiet after the pause that ends a segment before EndOfTurn (model trigger). */
  eotDelayMs: number;
  /** Shortest quiet that ends a segment (300 ms: the pauses at commas stay inside it). */
  minGapMs: number;
  updateEveryMs: number;
  /** Send `Error` and close (1011) once this much audio (ms) has arrived; null: never. */
  fatalAfterAudioMs: number | null;
  unknownText: string;
}

export interface FluxConnection {
  query: URLSearchParams;
  controls: Record<string, any>[];
  /** Bytes of each binary message (the client's chunking). */
  chunks: number[];
  audioMs: number;
  sent: Record<string, any>[];
  closed: boolean;
}

const ENCODINGS = new Set(['linear16', 'mulaw', 'alaw']);
const RATES = new Set([8000, 16_000, 24_000, 44_100, 48_000]);

interface Thresholds {
  eot_threshold: number;
  eager_eot_threshold: number | null;
  eot_timeout_ms: number;
}

/** Deepgram's limits, or the reason a value breaks them. */
function checkThresholds(t: Thresholds): string | null {
  if (!(t.eot_threshold >= 0.5 && t.eot_threshold <= 1)) return 'eot_threshold must be between 0.5 and 1.0';
  if (t.eager_eot_threshold !== null && !(t.eager_eot_threshold >= 0.3 && t.eager_eot_threshold <= 0.9)) return 'eager_eot_threshold must be between 0.3 and 0.9';
  if (t.eager_eot_threshold !== null && t.eager_eot_threshold > t.eot_threshold) return 'eager_eot_threshold must not exceed eot_threshold';
  if (!(t.eot_timeout_ms >= 500 && t.eot_timeout_ms <= 60_000)) return 'eot_timeout_ms must be between 500 and 60000';
  return null;
}

export class DeepgramFluxDouble extends ProtocolDouble {
  readonly knobs: FluxKnobs = {
    apiKey: 'dg-test-key',
    failAuth: false,
    confidence: () => 0.9,
    eotDelayMs: 100,
    minGapMs: 300,
    updateEveryMs: 250,
    fatalAfterAudioMs: null,
    unknownText: '',
  };
  readonly connections: FluxConnection[] = [];

  constructor(readonly clips = new ClipBook(), knobs: Partial<FluxKnobs> = {}) {
    super();
    Object.assign(this.knobs, knobs);
  }

  /** The Flux URL (what `fluxUrl(DEEPGRAM_URL)` gives for `v1Url`). */
  get url(): string {
    return `${this.server.origin('ws')}/v2/listen`;
  }

  /** A DEEPGRAM_URL pointing at this double's live path (the service turns it into /v2/listen). */
  get v1Url(): string {
    return `${this.server.origin('ws')}/v1/listen`;
  }

  protected override onUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/v2/listen') return refuseUpgrade(socket, 404, 'Not Found');
    const auth = req.headers.authorization;
    const key = auth?.startsWith('Token ') ? auth.slice(6) : undefined;
    if (this.knobs.failAuth || key !== this.knobs.apiKey) return refuseUpgrade(socket, 401, 'Unauthorized', { 'dg-error': 'Invalid credentials.' });
    const q = url.searchParams;
    const bad = (why: string) => refuseUpgrade(socket, 400, 'Bad Request', { 'dg-error': why });
    if (!(q.get('model') ?? '').startsWith('flux')) return bad('Flux needs a Flux model on /v2/listen.');
    const encoding = q.get('encoding') ?? '';
    const rate = Number(q.get('sample_rate'));
    if (!ENCODINGS.has(encoding) || !RATES.has(rate)) return bad('encoding and sample_rate must describe raw audio.');
    const thresholds: Thresholds = {
      eot_threshold: q.has('eot_threshold') ? Number(q.get('eot_threshold')) : 0.7,
      eager_eot_threshold: q.has('eager_eot_threshold') ? Number(q.get('eager_eot_threshold')) : null,
      eot_timeout_ms: q.has('eot_timeout_ms') ? Number(q.get('eot_timeout_ms')) : 5000,
    };
    const wrong = checkThresholds(thresholds);
    if (wrong) return bad(wrong);
    void this.server.accept(req, socket, head).then((ws) => this.serve(ws, q, encoding, rate, thresholds));
  }

  private serve(ws: WebSocket, q: URLSearchParams, encoding: string, rate: number, thresholds: Thresholds): void {
    const conn: FluxConnection = { query: q, controls: [], chunks: [], audioMs: 0, sent: [], closed: false };
    this.connections.push(conn);
    const knobs = this.knobs;
    const segmenter = new EnergySegmenter(rate, knobs.minGapMs, this.clips.level);
    const requestId = crypto.randomUUID();
    let sequence = 0;
    let turnIndex = 0;
    let inTurn = false;
    let turnText = '';
    let turnStartMs = 0;
    let lastUpdateMs = 0;
    let eagerSent = false;
    let pending: { dueMs: number; trigger: 'model' | 'timeout'; confidence: number } | null = null;

    const send = (msg: Record<string, any>) => {
      if (ws.readyState !== ws.OPEN) return;
      const full = { ...msg, sequence_id: sequence++ };
      conn.sent.push(full);
      ws.send(JSON.stringify(full));
    };
    const turnInfo = (event: string, transcript: string, confidence: number, extra: Record<string, any> = {}) =>
      send({
        type: 'TurnInfo',
        request_id: requestId,
        event,
        turn_index: turnIndex,
        audio_window_start: turnStartMs / 1000,
        audio_window_end: segmenter.timeMs / 1000,
        transcript,
        words: transcript.split(/\s+/).filter(Boolean).map((word) => ({ word, confidence: 0.98 })),
        end_of_turn_confidence: confidence,
        ...extra,
      });
    const join = (a: string, b: string) => [a, b].filter(Boolean).join(' ');
    const endTurn = (trigger: 'model' | 'timeout' | 'manual', confidence: number) => {
      turnInfo('EndOfTurn', turnText, confidence, { trigger });
      turnIndex++;
      inTurn = false;
      turnText = '';
      eagerSent = false;
      pending = null;
    };

    send({ type: 'Connected', request_id: requestId });

    ws.on('message', (data, isBinary) => {
      const buf = Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]);
      if (!isBinary) {
        let msg: Record<string, any>;
        try {
          msg = JSON.parse(buf.toString('utf8'));
        } catch {
          return send({ type: 'Error', code: 'INVALID_MESSAGE', description: 'Text messages must be JSON.' });
        }
        conn.controls.push(msg);
        if (msg.type === 'CloseStream') {
          if (ws.readyState === ws.OPEN) ws.close(1000);
        } else if (msg.type === 'ForceEndTurn') {
          if (!inTurn) return;
          const u = segmenter.flush();
          if (u) turnText = join(turnText, this.clips.match(u.env)?.text ?? knobs.unknownText);
          endTurn('manual', knobs.confidence(turnText));
        } else if (msg.type === 'Configure') {
          const next: Thresholds = { ...thresholds, ...(msg.thresholds ?? {}) };
          const wrong = checkThresholds(next);
          if (wrong) return send({ type: 'ConfigureFailure', request_id: requestId, code: 'INVALID_CONFIGURE', description: wrong });
          Object.assign(thresholds, next);
          send({ type: 'ConfigureSuccess', request_id: requestId, thresholds: { ...thresholds }, keyterms: msg.keyterms ?? [] });
        } else send({ type: 'Error', code: 'UNKNOWN_MESSAGE', description: `Unknown message type ${String(msg.type)}.` });
        return;
      }
      conn.chunks.push(buf.length);
      const samples = encoding === 'mulaw' ? mulaw.decode(buf) : encoding === 'alaw' ? alaw.decode(buf) : bytesToInt16(buf.length % 2 ? buf.subarray(0, buf.length - 1) : buf);
      conn.audioMs += (samples.length / rate) * 1000;
      for (const event of segmenter.push(samples)) {
        if (event.type === 'start') {
          if (!inTurn) {
            inTurn = true;
            turnStartMs = event.atMs;
            turnInfo('StartOfTurn', '', 0);
          } else if (pending) {
            if (eagerSent) turnInfo('TurnResumed', turnText, 0.2);
            eagerSent = false;
            pending = null;
          }
          lastUpdateMs = event.atMs;
        } else {
          turnText = join(turnText, this.clips.match(event.utterance.env)?.text ?? knobs.unknownText);
          const confidence = knobs.confidence(turnText);
          if (thresholds.eager_eot_threshold !== null && confidence >= thresholds.eager_eot_threshold && turnText) {
            turnInfo('EagerEndOfTurn', turnText, confidence);
            eagerSent = true;
          }
          const byModel = confidence >= thresholds.eot_threshold && thresholds.eot_threshold < 1;
          pending = { dueMs: event.utterance.endMs + (byModel ? knobs.eotDelayMs : thresholds.eot_timeout_ms), trigger: byModel ? 'model' : 'timeout', confidence };
        }
      }
      if (inTurn && segmenter.speaking && segmenter.timeMs - lastUpdateMs >= knobs.updateEveryMs) {
        lastUpdateMs = segmenter.timeMs;
        const partial = segmenter.partial;
        const prefix = partial ? this.clips.matchPrefix(partial) : null;
        const heard = prefix ? prefix.text.split(/\s+/).slice(0, Math.max(1, Math.round(prefix.text.split(/\s+/).length * prefix.fraction))).join(' ') : '';
        turnInfo('Update', join(turnText, heard), 0.05);
      }
      if (pending && !segmenter.speaking && segmenter.timeMs >= pending.dueMs) endTurn(pending.trigger, pending.confidence);
      if (knobs.fatalAfterAudioMs !== null && conn.audioMs >= knobs.fatalAfterAudioMs && ws.readyState === ws.OPEN) {
        send({ type: 'Error', code: 'INTERNAL_SERVER_ERROR', description: 'The double failed on purpose.' });
        ws.close(1011, 'INTERNAL_SERVER_ERROR');
      }
    });
    ws.on('close', () => {
      conn.closed = true;
    });
  }
}
