/**
 * A local OpenAI-compatible `POST /v1/embeddings` server (`{model, input: string | string[]}` →
 * `{object: 'list', data: [{object: 'embedding', index, embedding}], model, usage}`), for the
 * knowledge-base tests and `npm run bench knowledge`. Its embedder is deterministic and
 * model-free: feature hashing of accent-folded words (with their first five letters, a crude
 * stem) and of character 4-grams (which carry compounds and inflections across EN/DE), into
 * DIMENSIONS signed buckets. It stands in for a real embedding model's wire protocol, not for
 * its quality.
 */
import type http from 'node:http';
import { OpenAiEndpointDouble, readBody } from './server.js';

export const DIMENSIONS = 512;

function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function hashEmbedding(text: string, dims = DIMENSIONS): number[] {
  const v = new Float64Array(dims);
  const add = (feature: string, weight: number) => {
    const h = hash(feature);
    v[h % dims] += h & 0x80000000 ? -weight : weight;
  };
  const words = text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const w of words) {
    add(`w:${w}`, 1);
    if (w.length > 5) add(`s:${w.slice(0, 5)}`, 0.7);
    const padded = `_${w}_`;
    for (let i = 0; i + 4 <= padded.length; i++) add(`g:${padded.slice(i, i + 4)}`, 0.35);
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  return Array.from(v, (x) => x / norm);
}

export class EmbeddingsDouble extends OpenAiEndpointDouble {
  protected readonly path = 'embeddings';
  /** Texts embedded so far (one entry per input string). */
  embedded = 0;
  requests = 0;

  constructor(readonly apiKey: string | null = 'embeddings-test-key') {
    super();
  }

  protected async answer(req: http.IncomingMessage, res: http.ServerResponse, fail: (status: number, message: string, type?: string) => void): Promise<void> {
    const raw = await readBody(req);
    if (this.apiKey !== null && req.headers.authorization !== `Bearer ${this.apiKey}`) return fail(401, 'Incorrect API key provided.', 'invalid_api_key');
    let body: { model?: unknown; input?: unknown };
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return fail(400, 'We could not parse the JSON body of your request.');
    }
    if (typeof body.model !== 'string') return fail(400, "Missing required parameter: 'model'.");
    const input = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(input) || input.length === 0 || input.some((x) => typeof x !== 'string')) return fail(400, "'input' must be a string or an array of strings.");
    this.requests++;
    this.embedded += input.length;
    const data = (input as string[]).map((text, index) => ({ object: 'embedding', index, embedding: hashEmbedding(text) }));
    const tokens = (input as string[]).reduce((n, s) => n + s.split(/\s+/).length, 0);
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } }),
    );
  }
}
