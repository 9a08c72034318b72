/**
 * A local OpenAI-compatible `POST /v1/audio/transcriptions` server (VOICE.md A2; OpenAI,
 * whisper.cpp server, faster-whisper/speaches): `multipart/form-data` with `file` (WAV here),
 * `model`, optional `language`, `prompt`, `response_format` (`json` → `{text}`, `text`,
 * `verbose_json` with segments). Recognition is clip matching (clips.ts): the file is cut into
 * utterances by energy and each is named after its registered clip; unknown ones are left out.
 *
 * Knobs: a delay before answering, an error status, the required key.
 */
import type http from 'node:http';
import { monoOf, readWav } from '../../../src/audio/wav.js';
import { detectSpeech } from '../../../src/audio/vad/detector.js';
import { SileroVad, sharedVadRunner } from '../../../src/audio/vad/silero.js';
import { ClipBook, EnergySegmenter, envelope } from './clips.js';
import { OpenAiEndpointDouble, readBody, sleep } from './server.js';

export interface OpenAiTranscriptionKnobs {
  apiKey: string | null;
  delayMs: number;
  failWith: number | null;
  /**
   * How the file is cut into utterances: by energy (default; works on any audio, including the
   * speech-like synthesizer's) or by Silero VAD (src/audio/vad; real speech only).
   */
  segmentation: 'energy' | 'silero';
}

export interface TranscriptionRequest {
  headers: http.IncomingHttpHeaders;
  /** Form fields other than the file. */
  fields: Record<string, string>;
  file: { name: string; type: string; sampleRate: number; durationMs: number } | null;
  /** What the double recognised. */
  text: string;
}

export class OpenAiTranscriptionDouble extends OpenAiEndpointDouble {
  protected readonly path = 'audio/transcriptions';
  readonly knobs: OpenAiTranscriptionKnobs = { apiKey: 'stt-test-key', delayMs: 0, failWith: null, segmentation: 'energy' };
  readonly received: TranscriptionRequest[] = [];

  constructor(readonly clips = new ClipBook(), knobs: Partial<OpenAiTranscriptionKnobs> = {}) {
    super();
    Object.assign(this.knobs, knobs);
  }

  protected async answer(req: http.IncomingMessage, res: http.ServerResponse, fail: (status: number, message: string, type?: string) => void): Promise<void> {
    const body = await readBody(req);
    const k = this.knobs;
    if (k.apiKey !== null && req.headers.authorization !== `Bearer ${k.apiKey}`) return fail(401, 'Incorrect API key provided.', 'invalid_api_key');
    if (!String(req.headers['content-type'] ?? '').startsWith('multipart/form-data')) return fail(400, 'Expected a multipart/form-data body.');
    let form: FormData;
    try {
      // The platform's multipart parser (undici), as a server framework would use one.
      form = await new Request('http://double/', { method: 'POST', headers: { 'content-type': String(req.headers['content-type']) }, body: new Uint8Array(body) }).formData();
    } catch {
      return fail(400, 'Could not parse multipart form.');
    }
    const fields: Record<string, string> = {};
    for (const [name, value] of form) if (typeof value === 'string') fields[name] = value;
    const file = form.get('file');
    const record: TranscriptionRequest = { headers: req.headers, fields, file: null, text: '' };
    this.received.push(record);
    if (k.failWith !== null) return fail(k.failWith, 'The server had an error while processing your request.', 'server_error');
    if (!fields.model) return fail(400, "Missing required parameter: 'model'.");
    if (!(file instanceof Blob)) return fail(400, "Missing required parameter: 'file'.");
    let wav;
    try {
      wav = readWav(new Uint8Array(await file.arrayBuffer()));
    } catch {
      return fail(400, 'Audio file might be corrupted or unsupported.');
    }
    const samples = monoOf(wav);
    record.file = { name: (file as File).name ?? '', type: file.type, sampleRate: wav.sampleRate, durationMs: (samples.length / wav.sampleRate) * 1000 };
    const utterances = k.segmentation === 'silero' ? await sileroUtterances(samples, wav.sampleRate) : energyUtterances(samples, wav.sampleRate, this.clips.level);
    const segments = utterances.flatMap((u) => {
      const match = this.clips.match(envelope(u.samples, wav.sampleRate));
      return match ? [{ start: u.startMs / 1000, end: u.endMs / 1000, text: match.text }] : [];
    });
    record.text = segments.map((s) => s.text).join(' ');
    if (k.delayMs) await sleep(k.delayMs);
    if (res.destroyed) return;
    const format = fields.response_format ?? 'json';
    if (format === 'text') return void res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(record.text);
    if (format === 'verbose_json') {
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          task: 'transcribe',
          language: fields.language ?? 'english',
          duration: record.file.durationMs / 1000,
          text: record.text,
          segments: segments.map((s, id) => ({ id, seek: 0, start: s.start, end: s.end, text: ` ${s.text}`, tokens: [], temperature: 0, avg_logprob: -0.1, compression_ratio: 1, no_speech_prob: 0.01 })),
        }),
      );
    }
    if (format !== 'json') return fail(400, `The double answers json, text and verbose_json, not '${format}'.`);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: record.text }));
  }
}

interface Cut {
  startMs: number;
  endMs: number;
  samples: Int16Array;
}

function energyUtterances(samples: Int16Array, sampleRate: number, level: number): Cut[] {
  const segmenter = new EnergySegmenter(sampleRate, 300, level);
  const cuts: Cut[] = segmenter.push(samples).flatMap((e) => (e.type === 'end' ? [e.utterance] : []));
  const last = segmenter.flush();
  if (last) cuts.push(last);
  return cuts;
}

async function sileroUtterances(samples: Int16Array, sampleRate: number): Promise<Cut[]> {
  const model = new SileroVad(await sharedVadRunner(), sampleRate === 8000 ? 8000 : 16_000);
  const segments = await detectSpeech(model, samples, sampleRate, { minSilenceMs: 300 });
  return segments.map((s) => ({ ...s, samples: samples.subarray(Math.floor((s.startMs / 1000) * sampleRate), Math.ceil((s.endMs / 1000) * sampleRate)) }));
}
