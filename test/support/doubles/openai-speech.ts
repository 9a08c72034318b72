/**
 * A local OpenAI-compatible `POST /v1/audio/speech` server (VOICE.md A3; OpenAI, Kokoro-FastAPI,
 * openedai-speech): JSON `{model, input, voice, response_format, speed}`, answered with audio
 * bytes in chunked transfer as they are "synthesised": `pcm` is raw s16le mono at 24 kHz, `wav`
 * the same with a WAV header. The audio is real (the double's `voice`, voices.ts) and each
 * input is registered in `clips`, so tests can name what they received.
 *
 * Knobs: time to first byte, pacing between chunks, chunk size (odd sizes split samples, as
 * TCP does), dropping the connection after N chunks, an error status, the required key.
 */
import type http from 'node:http';
import { writeWav } from '../../../src/audio/wav.js';
import { int16ToBytes } from '../../../src/audio/pcm.js';
import { ClipBook } from './clips.js';
import { speechLikeVoice, type DoubleVoice } from './voices.js';
import { OpenAiEndpointDouble, readBody, sleep } from './server.js';

export interface OpenAiSpeechKnobs {
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey: string | null;
  firstByteDelayMs: number;
  chunkDelayMs: number;
  /** Bytes per chunk (an odd number splits samples across chunks). */
  chunkBytes: number;
  /** Destroy the connection after this many chunks; null: never. */
  dropAfterChunks: number | null;
  /** Answer every request with this status and an OpenAI error body. */
  failWith: number | null;
}

export interface SpeechRequest {
  headers: http.IncomingHttpHeaders;
  body: Record<string, any>;
}

const FORMATS = new Set(['pcm', 'wav']);
export const SPEECH_RATE = 24_000;

export class OpenAiSpeechDouble extends OpenAiEndpointDouble {
  protected readonly path = 'audio/speech';
  readonly knobs: OpenAiSpeechKnobs = { apiKey: 'tts-test-key', firstByteDelayMs: 0, chunkDelayMs: 0, chunkBytes: 4801, dropAfterChunks: null, failWith: null };
  readonly received: SpeechRequest[] = [];

  /** What the double speaks with (voices.ts); the speech-like synthesizer unless told otherwise. */
  voice: DoubleVoice = speechLikeVoice;

  constructor(readonly clips = new ClipBook(), knobs: Partial<OpenAiSpeechKnobs> = {}) {
    super();
    Object.assign(this.knobs, knobs);
  }

  protected async answer(req: http.IncomingMessage, res: http.ServerResponse, fail: (status: number, message: string, type?: string) => void): Promise<void> {
    const raw = (await readBody(req)).toString('utf8');
    let body: Record<string, any>;
    try {
      body = JSON.parse(raw);
    } catch {
      return fail(400, 'We could not parse the JSON body of your request.');
    }
    this.received.push({ headers: req.headers, body });
    const k = this.knobs;
    if (k.apiKey !== null && req.headers.authorization !== `Bearer ${k.apiKey}`) return fail(401, 'Incorrect API key provided.', 'invalid_api_key');
    if (k.failWith !== null) return fail(k.failWith, 'The server had an error while processing your request.', 'server_error');
    if (typeof body.model !== 'string' || !body.model) return fail(400, "Missing required parameter: 'model'.");
    if (typeof body.voice !== 'string' || !body.voice) return fail(400, "Missing required parameter: 'voice'.");
    if (typeof body.input !== 'string' || !body.input.trim()) return fail(400, "Missing required parameter: 'input'.");
    if (body.input.length > 4096) return fail(400, "'input' is too long: at most 4096 characters.");
    const format = body.response_format ?? 'mp3';
    if (!FORMATS.has(format)) return fail(400, `The double speaks pcm and wav, not '${format}'.`);
    const speed = body.speed ?? 1;
    if (typeof speed !== 'number' || speed < 0.25 || speed > 4) return fail(400, "'speed' must be between 0.25 and 4.0.");

    const speech = await this.voice(body.input, SPEECH_RATE, speed);
    this.clips.add(body.input.trim(), speech.samples, SPEECH_RATE);
    const bytes = format === 'wav' ? writeWav(SPEECH_RATE, speech.samples) : int16ToBytes(speech.samples);
    res.writeHead(200, { 'content-type': format === 'wav' ? 'audio/wav' : 'audio/pcm', 'transfer-encoding': 'chunked' });
    if (k.firstByteDelayMs) await sleep(k.firstByteDelayMs);
    let chunks = 0;
    for (let at = 0; at < bytes.length; at += k.chunkBytes) {
      if (res.destroyed) return;
      if (k.dropAfterChunks !== null && chunks >= k.dropAfterChunks) return void res.socket?.destroy();
      res.write(bytes.subarray(at, at + k.chunkBytes));
      chunks++;
      if (k.chunkDelayMs) await sleep(k.chunkDelayMs);
    }
    res.end();
  }
}
