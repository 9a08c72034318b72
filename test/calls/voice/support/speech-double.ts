/**
 * A minimal OpenAI-compatible speech server (`POST /v1/audio/speech`, response_format pcm:
 * raw s16le mono at 24 kHz, streamed) for the voice core's tests until the shared doubles
 * (test/support/doubles) carry one: each word becomes `msPerWord` of a voiced sound whose
 * pitch follows the word, so a sentence's audio is recognisable by its length and shape.
 */
import type http from 'node:http';
import { readBody } from '../../../support/doubles/server.js';
import { ProtocolDouble } from '../../../support/doubles/server.js';

export const SPEECH_RATE = 24_000;

export function wordAudio(word: string, ms: number, rate = SPEECH_RATE): Int16Array {
  const n = Math.round((ms / 1000) * rate);
  let hash = 0;
  for (const ch of word) hash = (hash * 31 + ch.charCodeAt(0)) % 997;
  const f0 = 110 + (hash % 120);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    // A short fade at both ends, as between spoken words.
    const env = Math.min(1, i / (0.01 * rate), (n - i) / (0.01 * rate));
    out[i] = Math.round(env * (6000 * Math.sin(2 * Math.PI * f0 * t) + 2500 * Math.sin(2 * Math.PI * 2 * f0 * t)));
  }
  return out;
}

export function sentenceAudio(text: string, msPerWord: number, rate = SPEECH_RATE): Int16Array {
  const words = text.split(/\s+/).filter(Boolean);
  const parts = words.map((w) => wordAudio(w, msPerWord, rate));
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export class SpeechDouble extends ProtocolDouble {
  readonly inputs: string[] = [];
  /** Requests whose client went away before the audio was complete (cancelled streams). */
  aborted = 0;

  constructor(
    readonly msPerWord = 150,
    readonly firstByteDelayMs = 30,
  ) {
    super();
  }

  get baseUrl(): string {
    return `${this.server.origin('http')}/v1`;
  }

  protected override onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    void (async () => {
      const body = JSON.parse((await readBody(req)).toString('utf8') || '{}');
      if (req.url !== '/v1/audio/speech' || typeof body.input !== 'string' || body.response_format !== 'pcm') {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'bad request' } }));
        return;
      }
      this.inputs.push(body.input);
      const audio = sentenceAudio(body.input, this.msPerWord);
      const bytes = Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength);
      res.writeHead(200, { 'content-type': 'audio/pcm' });
      let closed = false;
      res.on('close', () => {
        if (!res.writableFinished) {
          closed = true;
          this.aborted++;
        }
      });
      await new Promise((r) => setTimeout(r, this.firstByteDelayMs));
      // Streamed in pieces of 100 ms, faster than real time, as synthesis servers do.
      const piece = (SPEECH_RATE / 10) * 2;
      for (let o = 0; o < bytes.length && !closed; o += piece) {
        res.write(bytes.subarray(o, o + piece));
        await new Promise((r) => setTimeout(r, 10));
      }
      if (!closed) res.end();
    })();
  }
}
