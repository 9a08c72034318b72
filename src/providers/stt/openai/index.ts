/**
 * Batch speech-to-text against any OpenAI-compatible `POST /v1/audio/transcriptions` server
 * (OpenAI, whisper.cpp server, faster-whisper/speaches, LocalAI): the caller's audio since the
 * last `finalize()` goes up as one WAV file when the core's VAD says the caller stopped, and
 * the answer comes back as one final transcript (`speechFinal`) and an `utterance-end`.
 *
 * Utterances are transcribed concurrently but reported in the order they were finalized. A
 * failed request is a non-fatal `error` (the stream stays usable for the next utterance) and,
 * so the core does not wait for words that will never come, an empty final transcript.
 */
import { writeWav } from '../../../audio/wav.js';
import { concat } from '../../../audio/pcm.js';
import { readBodyJson } from '../../bounded.js';
import { failureDetail, openAiEndpoint } from '../../openai-url.js';
import type { SttEvent, SttProvider, SttStream, SttStreamOptions } from '../types.js';

export interface OpenAiSttOptions {
  /** STT_BASE_URL: `http://host:8000/v1` or `http://host:8000`. */
  baseUrl: string;
  apiKey?: string;
  /** STT_MODEL, e.g. `whisper-1`, `Systran/faster-whisper-small`. */
  model: string;
  /** Limit per request (default 30 000 ms). */
  timeoutMs?: number;
  /** Longest utterance kept (default 120 s); older audio is dropped, as no server takes hours. */
  maxUtteranceMs?: number;
}

export class OpenAiStt implements SttProvider {
  readonly name = 'openai';
  readonly endpointing = false;
  readonly url: string;

  constructor(private readonly opts: OpenAiSttOptions) {
    this.url = openAiEndpoint(opts.baseUrl, 'audio/transcriptions');
  }

  async open(options: SttStreamOptions, onEvent: (event: SttEvent) => void): Promise<SttStream> {
    return new BatchStream(this, options, onEvent);
  }

  /** One transcription request: the text the server heard in `samples`. */
  async transcribe(samples: Int16Array, options: SttStreamOptions, signal: AbortSignal): Promise<string> {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(writeWav(options.sampleRate, samples))], { type: 'audio/wav' }), 'utterance.wav');
    form.append('model', this.opts.model);
    form.append('language', options.language);
    form.append('response_format', 'json');
    if (options.keywords?.length) form.append('prompt', options.keywords.join(', '));
    const headers: Record<string, string> = {};
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    const timeout = AbortSignal.timeout(this.opts.timeoutMs ?? 30_000);
    const res = await fetch(this.url, { method: 'POST', headers, body: form, signal: AbortSignal.any([signal, timeout]) });
    if (!res.ok) {
      const detail = await failureDetail(res);
      throw new Error(`transcription failed with status ${res.status}${detail ? `: ${detail}` : ''}`);
    }
    // A transcript is a few KiB: 1 MiB is read at most.
    const json = (await readBodyJson(res, 1024 * 1024, 'transcription answer')) as { text?: unknown } | null;
    if (!json || typeof json.text !== 'string') throw new Error('transcription answer has no text');
    return json.text.trim();
  }

  get maxUtteranceMs(): number {
    return this.opts.maxUtteranceMs ?? 120_000;
  }
}

class BatchStream implements SttStream {
  private chunks: Int16Array[] = [];
  private samples = 0;
  private readonly maxSamples: number;
  /** Reports happen in finalize order: each waits for the one before. */
  private reported: Promise<void> = Promise.resolve();
  private readonly abort = new AbortController();
  private closed = false;

  constructor(private readonly provider: OpenAiStt, private readonly options: SttStreamOptions, private readonly emit: (e: SttEvent) => void) {
    this.maxSamples = Math.round((provider.maxUtteranceMs / 1000) * options.sampleRate);
  }

  write(samples: Int16Array): void {
    if (this.closed || samples.length === 0) return;
    this.chunks.push(samples.slice());
    this.samples += samples.length;
    while (this.samples - this.chunks[0].length >= this.maxSamples) this.samples -= this.chunks.shift()!.length;
  }

  finalize(): void {
    if (this.closed) return;
    const audio = concat(this.chunks);
    this.chunks = [];
    this.samples = 0;
    const text = audio.length ? this.provider.transcribe(audio, this.options, this.abort.signal) : Promise.resolve('');
    text.catch(() => undefined); // reported below, in order
    this.reported = this.reported.then(async () => {
      let heard = '';
      try {
        heard = await text;
      } catch (err) {
        if (this.abort.signal.aborted) return;
        this.emit({ type: 'error', message: (err as Error).message, fatal: false });
      }
      if (this.abort.signal.aborted) return;
      this.emit({ type: 'transcript', text: heard, isFinal: true, speechFinal: true });
      this.emit({ type: 'utterance-end' });
    });
  }

  /** Waits for the utterances already finalized (up to the request timeout), then stops. */
  async close(): Promise<void> {
    this.closed = true;
    this.chunks = [];
    await this.reported;
    this.abort.abort();
  }
}
