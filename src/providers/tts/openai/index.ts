/**
 * Text-to-speech against any OpenAI-compatible `POST /v1/audio/speech` server (OpenAI,
 * Kokoro-FastAPI, openedai-speech, LocalAI): `{model, input, voice, response_format: "pcm",
 * speed}` answered with raw s16le mono at 24 kHz, streamed as it is synthesised.
 *
 * One request per pushed piece, each started at once (so the second sentence is being
 * synthesised while the first plays), audio delivered strictly in push order: a later piece's
 * audio waits in memory until every earlier piece is complete. `cancel()` aborts them all.
 */
import { bytesToInt16 } from '../../../audio/pcm.js';
import { audioBudgetMs, pacer } from '../../bounded.js';
import { failureDetail, openAiEndpoint } from '../../openai-url.js';
import type { TtsEvent, TtsProvider, TtsStream, TtsStreamOptions } from '../types.js';

export interface OpenAiTtsOptions {
  /** TTS_BASE_URL: `http://host:8880/v1` or `http://host:8880`. */
  baseUrl: string;
  apiKey?: string;
  /** TTS_MODEL, e.g. `tts-1`, `gpt-4o-mini-tts`, `kokoro`. */
  model: string;
  /** Rate of the server's `pcm` output (OpenAI and Kokoro: 24 000). */
  sampleRate?: number;
  /** Limit per piece, from request to last byte (default 30 000 ms). */
  timeoutMs?: number;
}

export class OpenAiTts implements TtsProvider {
  readonly name = 'openai';
  readonly url: string;

  constructor(private readonly opts: OpenAiTtsOptions) {
    this.url = openAiEndpoint(opts.baseUrl, 'audio/speech');
  }

  open(options: TtsStreamOptions, onEvent: (event: TtsEvent) => void): TtsStream {
    return new SpeechStream(this, options, onEvent);
  }

  get sampleRate(): number {
    return this.opts.sampleRate ?? 24_000;
  }

  /** Starts one piece's request; the response body streams the audio. */
  request(text: string, options: TtsStreamOptions, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    const body: Record<string, unknown> = { model: this.opts.model, input: text, voice: options.voice, response_format: 'pcm' };
    // The API takes 0.25–4.0.
    if (options.speed !== undefined) body.speed = Math.min(4, Math.max(0.25, options.speed));
    const timeout = AbortSignal.timeout(this.opts.timeoutMs ?? 30_000);
    return fetch(this.url, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.any([signal, timeout]) });
  }
}

interface Piece {
  text: string;
  /** Audio received but not yet delivered (a later piece waiting its turn). */
  held: Int16Array[];
  complete: boolean;
}

class SpeechStream implements TtsStream {
  private readonly abort = new AbortController();
  private readonly pieces: Piece[] = [];
  /** Index of the piece whose audio is being delivered. */
  private current = 0;
  private ended = false;
  private stopped = false;

  constructor(private readonly provider: OpenAiTts, private readonly options: TtsStreamOptions, private readonly emit: (e: TtsEvent) => void) {}

  push(text: string): void {
    if (this.stopped || this.ended) return;
    const piece: Piece = { text, held: [], complete: false };
    this.pieces.push(piece);
    if (!text.trim()) {
      piece.complete = true;
      this.advance();
      return;
    }
    void this.fetchPiece(piece);
  }

  end(): void {
    if (this.stopped || this.ended) return;
    this.ended = true;
    this.advance();
  }

  cancel(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.abort.abort();
  }

  private async fetchPiece(piece: Piece): Promise<void> {
    try {
      const res = await this.provider.request(piece.text, this.options, this.abort.signal);
      if (!res.ok) throw new Error(`speech request failed with status ${res.status}: ${await failureDetail(res)}`);
      if (!res.body) throw new Error('speech answer has no body');
      let carry: Uint8Array | null = null;
      let received = 0;
      const budgetMs = audioBudgetMs(piece.text.length);
      const budgetBytes = (budgetMs / 1000) * this.provider.sampleRate * 2;
      const pace = pacer();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        if (this.stopped) return;
        received += chunk.length;
        if (received > budgetBytes) throw new Error(`the server sent more than ${Math.round(budgetMs / 1000)} s of audio for ${piece.text.length} characters`);
        let bytes = chunk;
        if (carry) {
          bytes = new Uint8Array(carry.length + chunk.length);
          bytes.set(carry);
          bytes.set(chunk, carry.length);
        }
        // A chunk may end inside a sample; keep the odd byte for the next one.
        carry = bytes.length % 2 ? bytes.slice(bytes.length - 1) : null;
        const samples = bytesToInt16(bytes);
        if (samples.length) this.deliver(piece, samples);
        await pace();
      }
      piece.complete = true;
      this.advance();
    } catch (err) {
      if (this.stopped) return;
      this.stopped = true;
      this.abort.abort();
      const reason = (err as Error).name === 'TimeoutError' ? 'speech request timed out' : (err as Error).message;
      this.emit({ type: 'error', message: `OpenAI-compatible TTS: ${reason}` });
    }
  }

  private deliver(piece: Piece, samples: Int16Array): void {
    if (this.pieces[this.current] === piece) this.emit({ type: 'audio', samples, sampleRate: this.provider.sampleRate });
    else piece.held.push(samples);
  }

  /** Reports finished pieces in order and releases the next one's held audio. */
  private advance(): void {
    while (!this.stopped && this.current < this.pieces.length && this.pieces[this.current].complete) {
      this.emit({ type: 'spoken', text: this.pieces[this.current].text });
      this.current++;
      const next = this.pieces[this.current];
      if (next) {
        for (const samples of next.held) this.emit({ type: 'audio', samples, sampleRate: this.provider.sampleRate });
        next.held = [];
      }
    }
    if (!this.stopped && this.ended && this.current === this.pieces.length) {
      this.stopped = true;
      this.emit({ type: 'done' });
    }
  }
}
