/**
 * An OpenAI-compatible embeddings client (`POST {EMBEDDINGS_BASE_URL}/v1/embeddings`), used by
 * knowledge bases when an embeddings server is configured. Vectors come back normalised to unit
 * length so a dot product is their cosine similarity.
 */
import { readBodyJson } from '../bounded.js';
import { failureDetail, openAiEndpoint } from '../openai-url.js';

/** The largest embeddings answer read (a 64-text batch of 3,072-dimension vectors is about 4 MiB). */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

export interface EmbeddingsOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Texts per request. */
  batchSize?: number;
  timeoutMs?: number;
}

export class EmbeddingsError extends Error {}

export class OpenAiEmbeddings {
  private readonly url: string;
  constructor(private readonly opts: EmbeddingsOptions) {
    this.url = openAiEndpoint(opts.baseUrl, 'embeddings');
  }

  get model(): string {
    return this.opts.model;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    const size = this.opts.batchSize ?? 64;
    for (let i = 0; i < texts.length; i += size) out.push(...(await this.request(texts.slice(i, i + size), signal)));
    return out;
  }

  private async request(input: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const timeout = AbortSignal.timeout(this.opts.timeoutMs ?? 30_000);
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}) },
        body: JSON.stringify({ model: this.opts.model, input, encoding_format: 'float' }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      throw new EmbeddingsError(`The embeddings server could not be reached: ${(err as Error).message}`);
    }
    if (!res.ok) throw new EmbeddingsError(`The embeddings server answered HTTP ${res.status}: ${await failureDetail(res)}`);
    // A batch of 64 vectors of a few thousand numbers is a few MiB; an answer past the cap is no embedding.
    const body = (await readBodyJson(res, MAX_ANSWER_BYTES, 'embeddings answer').catch((err: Error) => {
      throw new EmbeddingsError(`The embeddings server's answer was refused: ${err.message}`);
    })) as { data?: { index?: number; embedding?: unknown }[] } | null;
    const data = body?.data;
    if (!Array.isArray(data) || data.length !== input.length) throw new EmbeddingsError('The embeddings server sent an unexpected answer.');
    const vectors: Float32Array[] = new Array(input.length);
    for (const [i, item] of data.entries()) {
      if (!Array.isArray(item.embedding) || item.embedding.some((x) => typeof x !== 'number')) {
        throw new EmbeddingsError('The embeddings server sent an embedding that is not a list of numbers.');
      }
      vectors[typeof item.index === 'number' ? item.index : i] = normalise(Float32Array.from(item.embedding as number[]));
    }
    return vectors;
  }
}

export function normalise(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum) || 1;
  for (let i = 0; i < v.length; i++) v[i] /= norm;
  return v;
}
