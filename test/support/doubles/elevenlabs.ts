/**
 * A local ElevenLabs stream-input server (VOICE.md A3):
 * `/v1/text-to-speech/{voice}/stream-input?model_id=…&output_format=pcm_16000|ulaw_8000|…`, key in
 * the `xi-api-key` header or as `xi_api_key` in the first message.
 *
 *   ← {"text":" ", "voice_settings":{…}, "generation_config":{…}}   (init, exactly one space)
 *   ← {"text":"A sentence. ", "flush": true}                         (text, synthesised on flush,
 *                                                                      at a sentence end, or at the end)
 *   ← {"text":""}                                                    (end of input)
 *   → {"audio":"<base64>", "isFinal":null, "normalizedAlignment":{chars, charStartTimesMs,
 *      charDurationsMs}, "alignment":{…}}   per ~100 ms chunk, times from the chunk's start
 *   → {"isFinal":true}, then the close
 *
 * The audio is real: the double's `voice` (voices.ts: the speech-like synthesizer or eSpeak), so tests can match what a caller
 * heard back to the sentence with a ClipBook; every synthesised text is also registered in the
 * double's `clips`. Knobs: time to first audio, pacing between chunks, closing mid-stream,
 * refusing the key.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { mulaw } from '../../../src/audio/g711.js';
import { int16ToBytes } from '../../../src/audio/pcm.js';
import { ClipBook } from './clips.js';
import { speechLikeVoice, type DoubleVoice } from './voices.js';
import { ProtocolDouble, refuseUpgrade, sleep } from './server.js';

export interface ElevenLabsKnobs {
  apiKey: string;
  /** Wait before the first audio of each synthesis. */
  firstAudioDelayMs: number;
  /** Wait between audio chunks. */
  chunkDelayMs: number;
  /** Audio per chunk (ms). */
  chunkMs: number;
  /** Close the socket (1011) after sending this many audio chunks; null: never. */
  failAfterChunks: number | null;
}

/** One stream as the double saw it. */
export interface ElevenLabsStreamRecord {
  voice: string;
  query: URLSearchParams;
  /** The messages received, parsed. */
  received: Record<string, any>[];
  /** Texts synthesised, in order. */
  spoken: string[];
  audioChunks: number;
  closedByClient: boolean;
}

const FORMATS: Record<string, { rate: number; ulaw: boolean }> = {
  ulaw_8000: { rate: 8000, ulaw: true },
  ...Object.fromEntries([8000, 16000, 22050, 24000, 32000, 44100, 48000].map((r) => [`pcm_${r}`, { rate: r, ulaw: false }])),
};

export class ElevenLabsDouble extends ProtocolDouble {
  readonly knobs: ElevenLabsKnobs = { apiKey: 'el-test-key', firstAudioDelayMs: 0, chunkDelayMs: 0, chunkMs: 100, failAfterChunks: null };
  readonly streams: ElevenLabsStreamRecord[] = [];

  /** What the double speaks with (voices.ts); the speech-like synthesizer unless told otherwise. */
  voice: DoubleVoice = speechLikeVoice;

  constructor(readonly clips = new ClipBook(), knobs: Partial<ElevenLabsKnobs> = {}) {
    super();
    Object.assign(this.knobs, knobs);
  }

  /** ELEVENLABS_URL for this double. */
  get url(): string {
    return this.server.origin('ws');
  }

  /** `GET /v1/user` (what trying a key asks for), with ElevenLabs' 401 body for a wrong key. */
  protected override onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (req.method !== 'GET' || new URL(req.url ?? '/', 'http://x').pathname !== '/v1/user') return void res.writeHead(404).end();
    const json = (status: number, body: unknown) => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.headers['xi-api-key'] !== this.knobs.apiKey) {
      return json(401, { detail: { status: 'invalid_api_key', message: 'Invalid API key' } });
    }
    json(200, { user_id: 'double-user', subscription: { tier: 'free', character_count: 0, character_limit: 10000 } });
  }

  protected override onUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const m = /^\/v1\/text-to-speech\/([^/]+)\/stream-input$/.exec(url.pathname);
    if (!m) return refuseUpgrade(socket, 404, 'Not Found');
    const headerKey = req.headers['xi-api-key'];
    if (headerKey !== undefined && headerKey !== this.knobs.apiKey) return refuseUpgrade(socket, 401, 'Unauthorized');
    const format = FORMATS[url.searchParams.get('output_format') ?? 'mp3_44100_128'];
    if (!format || !url.searchParams.get('model_id')) return refuseUpgrade(socket, 400, 'Bad Request');
    void this.server.accept(req, socket, head).then((ws) =>
      this.serve(ws, { voice: decodeURIComponent(m[1]), query: url.searchParams, received: [], spoken: [], audioChunks: 0, closedByClient: false }, format, headerKey !== undefined),
    );
  }

  private serve(ws: WebSocket, record: ElevenLabsStreamRecord, format: { rate: number; ulaw: boolean }, keyChecked: boolean): void {
    this.streams.push(record);
    const knobs = this.knobs;
    let buffer = '';
    let started = false;
    let ended = false;
    let gone = false;
    let work = Promise.resolve();
    const inactivity = Number(record.query.get('inactivity_timeout') ?? 20) * 1000;
    let idle: NodeJS.Timeout | undefined;
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => refuse(1008, 'Have not received a new text input within the timeout. Closing the connection.'), inactivity);
    };
    const send = (msg: Record<string, any>) => {
      if (!gone && ws.readyState === ws.OPEN) ws.send(JSON.stringify(msg));
    };
    const refuse = (code: number, message: string) => {
      send({ message, error: code === 1008 ? 'policy_violation' : 'internal_error', code });
      gone = true;
      if (ws.readyState === ws.OPEN) ws.close(code, message.slice(0, 120));
    };
    const synthesize = (text: string) => {
      if (!text.trim()) return;
      work = work.then(async () => {
        if (gone) return;
        const speech = await this.voice(text, format.rate, Number(record.received[0]?.voice_settings?.speed) || 1);
        if (gone) return;
        this.clips.add(text.trim(), speech.samples, format.rate);
        record.spoken.push(text);
        if (knobs.firstAudioDelayMs) await sleep(knobs.firstAudioDelayMs);
        const per = Math.round((format.rate * knobs.chunkMs) / 1000);
        for (let at = 0; at < speech.samples.length; at += per) {
          if (gone) return;
          if (knobs.failAfterChunks !== null && record.audioChunks >= knobs.failAfterChunks) return refuse(1011, 'An internal server error occurred.');
          const chunk = speech.samples.subarray(at, at + per);
          const fromMs = (at / format.rate) * 1000;
          const toMs = ((at + chunk.length) / format.rate) * 1000;
          const inChunk = speech.chars.flatMap((c, i) => (speech.startMs[i] >= fromMs && speech.startMs[i] < toMs ? [i] : []));
          const alignment = {
            chars: inChunk.map((i) => speech.chars[i]),
            charStartTimesMs: inChunk.map((i) => Math.round(speech.startMs[i] - fromMs)),
            charDurationsMs: inChunk.map((i) => Math.round(speech.durationMs[i])),
          };
          const bytes = format.ulaw ? Buffer.from(mulaw.encode(chunk)) : int16ToBytes(chunk);
          send({ audio: bytes.toString('base64'), isFinal: null, normalizedAlignment: alignment, alignment });
          record.audioChunks++;
          if (knobs.chunkDelayMs) await sleep(knobs.chunkDelayMs);
        }
      });
    };
    touch();
    ws.on('message', (data, isBinary) => {
      if (gone || ended) return;
      touch();
      let msg: Record<string, any>;
      try {
        msg = JSON.parse(Buffer.isBuffer(data) && !isBinary ? data.toString('utf8') : String(data));
      } catch {
        return refuse(1008, 'Invalid message: expected JSON.');
      }
      record.received.push(msg);
      if (typeof msg.text !== 'string') return refuse(1008, 'Invalid message: "text" is required.');
      if (!started) {
        if (msg.text !== ' ') return refuse(1008, 'The first message must have the text " " (a single space).');
        if (!keyChecked && msg.xi_api_key !== knobs.apiKey) return refuse(1008, 'Invalid API key');
        started = true;
        return;
      }
      if (msg.text === '') {
        ended = true;
        synthesize(buffer);
        buffer = '';
        void work.then(() => {
          if (gone) return;
          send({ isFinal: true });
          gone = true;
          clearTimeout(idle);
          if (ws.readyState === ws.OPEN) ws.close(1000);
        });
        return;
      }
      buffer += msg.text;
      // ElevenLabs starts on flush or, by its chunk schedule, once a sentence is complete.
      if (msg.flush === true || /[.!?]\s*$/.test(buffer)) {
        synthesize(buffer);
        buffer = '';
      }
    });
    ws.on('close', () => {
      if (!gone) record.closedByClient = true;
      gone = true;
      clearTimeout(idle);
    });
  }
}
