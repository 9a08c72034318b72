/**
 * A local OpenAI Realtime server (WebSocket, the GA event names the adapter speaks; the beta
 * names `response.audio.delta` / `response.audio_transcript.*` with the `betaNames` knob):
 *
 *   → session.created at connect; session.update → session.updated (the session echoed)
 *   ← input_audio_buffer.append {audio}: base64 PCM16 24 kHz (`audio/pcm`) or G.711 μ-law
 *     (`audio/pcmu`), as the session's input format says
 *   → server VAD by energy (clips.ts): input_audio_buffer.speech_started / speech_stopped /
 *     committed, conversation.item.added, then conversation.item.input_audio_transcription.completed
 *     {transcript} by clip matching; with `create_response` the model answers
 *   → response.created, response.output_item.added, response.output_audio.delta (real audio of the
 *     answer, ~100 ms chunks) and response.output_audio_transcript.delta, …done, response.output_item.done,
 *     response.done {response: {status}}; a tool call as response.function_call_arguments.delta/.done
 *   ← response.create (optionally `instructions: "Say exactly: …"`), conversation.item.create
 *     {function_call_output} (round N+1 of the script) or {message, role user, input_text} (the
 *     script answers its text like a transcript), response.cancel (→ response.done cancelled,
 *     or the error `response_cancel_not_active`), conversation.item.truncate → conversation.item.truncated
 *
 * Answers come from a ScriptBook keyed on the caller's last transcript or text message (`on(text, ...rounds)`).
 * Knobs: the key, refusing every key, pacing between audio chunks, time to the first delta,
 * closing mid-answer, an error instead of session.updated.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { mulaw } from '../../../src/audio/g711.js';
import { bytesToInt16, int16ToBytes } from '../../../src/audio/pcm.js';
import { ClipBook, EnergySegmenter } from './clips.js';
import { speechLikeVoice, type DoubleVoice } from './voices.js';
import { argsText, ScriptedDouble, type Reply } from './script.js';
import { refuseUpgrade, sleep } from './server.js';

export interface RealtimeKnobs {
  /** When set, clients must send `Authorization: Bearer <apiKey>`. */
  apiKey: string | null;
  failAuth: boolean;
  /** Wait before an answer's first delta. */
  firstDeltaDelayMs: number;
  /** Wait between audio chunks of an answer. */
  chunkDelayMs: number;
  /** Close the socket (1011) after this many audio deltas; null: never. */
  closeAfterDeltas: number | null;
  /** Answer session.update with this error (e.g. an unknown voice) instead of session.updated. */
  rejectSession: string | null;
  /** Send the beta event names (response.audio.delta, response.audio_transcript.*). */
  betaNames: boolean;
}

/** One session as the double saw it. */
export interface RealtimeSessionRecord {
  url: string;
  /** Every client event, parsed (audio appends counted, not kept). */
  received: Record<string, any>[];
  sent: Record<string, any>[];
  session: Record<string, any>;
  appendedMs: number;
  transcripts: string[];
  truncations: { item_id: string; audio_end_ms: number }[];
  closed: boolean;
}

export class RealtimeDouble extends ScriptedDouble {
  readonly knobs: RealtimeKnobs = { apiKey: 'rt-test-key', failAuth: false, firstDeltaDelayMs: 0, chunkDelayMs: 0, closeAfterDeltas: null, rejectSession: null, betaNames: false };
  readonly sessions: RealtimeSessionRecord[] = [];

  /** What the model speaks with (voices.ts); the speech-like synthesizer unless told otherwise. */
  voice: DoubleVoice = speechLikeVoice;

  constructor(readonly clips = new ClipBook(), knobs: Partial<RealtimeKnobs> = {}) {
    super();
    Object.assign(this.knobs, knobs);
  }

  /** REALTIME_URL for this double. */
  get url(): string {
    return `${this.server.origin('ws')}/v1/realtime?model=gpt-realtime`;
  }

  protected override onUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/v1/realtime') return refuseUpgrade(socket, 404, 'Not Found');
    if (this.knobs.failAuth || (this.knobs.apiKey !== null && req.headers.authorization !== `Bearer ${this.knobs.apiKey}`)) {
      return refuseUpgrade(socket, 401, 'Unauthorized');
    }
    if (!url.searchParams.get('model')) return refuseUpgrade(socket, 400, 'Bad Request');
    void this.server.accept(req, socket, head).then((ws) => new RealtimeConnection(this, ws, req.url ?? '').start());
  }

  /** @internal The script's answer for the caller's last words, round N. */
  replyFor(utterance: string, round: number): Reply | null {
    return this.script.replyFor(utterance, round);
  }
}

let ids = 0;
const id = (prefix: string) => `${prefix}_${(++ids).toString(36).padStart(6, '0')}`;

class RealtimeConnection {
  private readonly record: RealtimeSessionRecord;
  private session: Record<string, any> = { type: 'realtime', object: 'realtime.session', id: id('sess'), model: 'gpt-realtime', instructions: '', output_modalities: ['audio'], audio: { input: { format: { type: 'audio/pcm', rate: 24_000 }, turn_detection: { type: 'server_vad', silence_duration_ms: 500, create_response: true } }, output: { format: { type: 'audio/pcm', rate: 24_000 }, voice: 'alloy' } }, tools: [] };
  private segmenter: EnergySegmenter | null = null;
  private lastTranscript = '';
  private round = 0;
  private active: { id: string; cancelled: boolean } | null = null;
  private readonly audioItems = new Map<string, number>();
  private deltas = 0;
  private speechItem = '';

  constructor(private readonly double: RealtimeDouble, private readonly ws: WebSocket, url: string) {
    this.record = { url, received: [], sent: [], session: this.session, appendedMs: 0, transcripts: [], truncations: [], closed: false };
  }

  start(): void {
    this.double.sessions.push(this.record);
    this.ws.on('message', (data) => this.onMessage(String(data)));
    this.ws.on('close', () => {
      this.record.closed = true;
      if (this.active) this.active.cancelled = true;
    });
    this.send({ type: 'session.created', session: this.session });
  }

  private get names() {
    const beta = this.double.knobs.betaNames;
    return {
      audioDelta: beta ? 'response.audio.delta' : 'response.output_audio.delta',
      audioDone: beta ? 'response.audio.done' : 'response.output_audio.done',
      transcriptDelta: beta ? 'response.audio_transcript.delta' : 'response.output_audio_transcript.delta',
      transcriptDone: beta ? 'response.audio_transcript.done' : 'response.output_audio_transcript.done',
    };
  }

  private get rate(): number {
    return this.session.audio?.input?.format?.type === 'audio/pcmu' ? 8000 : 24_000;
  }

  private send(event: Record<string, any>): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    const full = { event_id: id('event'), ...event };
    this.record.sent.push(full);
    this.ws.send(JSON.stringify(full));
  }

  private error(message: string, code: string | null = null, eventId?: string): void {
    this.send({ type: 'error', error: { type: 'invalid_request_error', code, message, param: null, event_id: eventId ?? null } });
  }

  private onMessage(text: string): void {
    let event: Record<string, any>;
    try {
      event = JSON.parse(text);
    } catch {
      return this.error('Invalid JSON', 'invalid_json');
    }
    if (event.type === 'input_audio_buffer.append') this.record.received.push({ type: event.type });
    else this.record.received.push(event);
    switch (event.type) {
      case 'session.update':
        return this.updateSession(event);
      case 'input_audio_buffer.append':
        return this.append(String(event.audio ?? ''));
      case 'response.create':
        return void this.respond(event.response?.instructions);
      case 'conversation.item.create':
        if (event.item?.type === 'function_call_output') this.round++;
        // A user message in text (the caller's keys): the next answer is the script's for its text.
        if (event.item?.type === 'message' && event.item.role === 'user') {
          this.lastTranscript = (event.item.content ?? []).map((c: { text?: string }) => c.text ?? '').join('');
          this.round = 0;
        }
        return this.send({ type: 'conversation.item.added', previous_item_id: null, item: { id: id('item'), object: 'realtime.item', status: 'completed', ...event.item } });
      case 'response.cancel':
        if (!this.active) return this.error('Cancellation failed: no active response found', 'response_cancel_not_active', event.event_id);
        this.active.cancelled = true;
        return;
      case 'conversation.item.truncate': {
        const produced = this.audioItems.get(event.item_id);
        if (produced === undefined) return this.error(`Item with item_id not found: ${event.item_id}`, 'item_truncate_invalid_item_id', event.event_id);
        if (typeof event.audio_end_ms !== 'number' || event.audio_end_ms > produced) return this.error('audio_end_ms is longer than the audio', 'invalid_value', event.event_id);
        this.record.truncations.push({ item_id: event.item_id, audio_end_ms: event.audio_end_ms });
        return this.send({ type: 'conversation.item.truncated', item_id: event.item_id, content_index: event.content_index ?? 0, audio_end_ms: event.audio_end_ms });
      }
      default:
        return this.error(`Invalid value: '${event.type}'.`, 'invalid_value', event.event_id);
    }
  }

  private updateSession(event: Record<string, any>): void {
    if (this.double.knobs.rejectSession) return this.error(this.double.knobs.rejectSession, 'invalid_value', event.event_id);
    const s = event.session ?? {};
    if (s.type !== undefined && s.type !== 'realtime') return this.error("Invalid value: 'session.type'.", 'invalid_value');
    const format = s.audio?.input?.format?.type;
    if (format !== undefined && format !== 'audio/pcm' && format !== 'audio/pcmu') return this.error(`The double takes audio/pcm and audio/pcmu, not ${format}.`, 'invalid_value');
    this.session = {
      ...this.session,
      ...s,
      audio: { input: { ...this.session.audio.input, ...s.audio?.input }, output: { ...this.session.audio.output, ...s.audio?.output } },
    };
    this.record.session = this.session;
    const td = this.session.audio.input.turn_detection;
    this.segmenter = new EnergySegmenter(this.rate, td?.silence_duration_ms ?? 500, this.double.clips.level);
    this.send({ type: 'session.updated', session: this.session });
  }

  private append(b64: string): void {
    const bytes = Buffer.from(b64, 'base64');
    const samples = this.rate === 8000 ? mulaw.decode(bytes) : bytesToInt16(bytes);
    this.record.appendedMs += (samples.length / this.rate) * 1000;
    const td = this.session.audio.input.turn_detection;
    if (!td || !this.segmenter) return;
    for (const e of this.segmenter.push(samples)) {
      if (e.type === 'start') {
        this.speechItem = id('item');
        this.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: e.atMs, item_id: this.speechItem });
        continue;
      }
      const item = this.speechItem;
      this.send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: e.utterance.endMs, item_id: item });
      this.send({ type: 'input_audio_buffer.committed', previous_item_id: null, item_id: item });
      this.send({ type: 'conversation.item.added', previous_item_id: null, item: { id: item, object: 'realtime.item', type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_audio', transcript: null }] } });
      const transcript = this.double.clips.match(e.utterance.env)?.text ?? '';
      this.record.transcripts.push(transcript);
      this.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: item, content_index: 0, transcript });
      this.lastTranscript = transcript;
      this.round = 0;
      if (td.create_response !== false) void this.respond();
    }
  }

  private async respond(instructions?: string): Promise<void> {
    const knobs = this.double.knobs;
    if (this.active) return this.error('Conversation already has an active response in progress', 'conversation_already_has_active_response');
    const exact = typeof instructions === 'string' ? /^Say exactly:\s*([\s\S]*)$/i.exec(instructions)?.[1]?.trim() : undefined;
    const reply: Reply = exact !== undefined ? { text: exact } : (this.double.replyFor(this.lastTranscript, this.round) ?? { text: '' });
    const response = { id: id('resp'), cancelled: false };
    this.active = response;
    this.send({ type: 'response.created', response: { id: response.id, object: 'realtime.response', status: 'in_progress', output: [] } });
    const output: Record<string, any>[] = [];
    let status: 'completed' | 'cancelled' = 'completed';
    if (knobs.firstDeltaDelayMs) await sleep(knobs.firstDeltaDelayMs);
    try {
      if (reply.text) {
        const item = id('item');
        this.audioItems.set(item, 0);
        this.send({ type: 'response.output_item.added', response_id: response.id, output_index: 0, item: { id: item, type: 'message', role: 'assistant', status: 'in_progress', content: [] } });
        const rate = this.session.audio.output?.format?.type === 'audio/pcmu' ? 8000 : 24_000;
        const speech = await this.double.voice(reply.text, rate, Number(this.session.audio.output?.speed) || 1);
        this.double.clips.add(reply.text, speech.samples, rate);
        const words = reply.text.split(/(?<=\s)/);
        const per = rate / 10;
        const chunks = Math.ceil(speech.samples.length / per);
        let sentWords = 0;
        for (let c = 0; c < chunks; c++) {
          if (response.cancelled) break;
          if (knobs.closeAfterDeltas !== null && this.deltas >= knobs.closeAfterDeltas) {
            this.ws.close(1011, 'internal error');
            return;
          }
          const chunk = speech.samples.subarray(c * per, (c + 1) * per);
          const bytes = rate === 8000 ? Buffer.from(mulaw.encode(chunk)) : int16ToBytes(chunk);
          this.send({ type: this.names.audioDelta, response_id: response.id, item_id: item, output_index: 0, content_index: 0, delta: bytes.toString('base64') });
          this.deltas++;
          this.audioItems.set(item, this.audioItems.get(item)! + (chunk.length / rate) * 1000);
          // The transcript runs along with the audio, word by word.
          const due = Math.ceil(((c + 1) / chunks) * words.length);
          if (due > sentWords) {
            this.send({ type: this.names.transcriptDelta, response_id: response.id, item_id: item, output_index: 0, content_index: 0, delta: words.slice(sentWords, due).join('') });
            sentWords = due;
          }
          if (knobs.chunkDelayMs) await sleep(knobs.chunkDelayMs);
        }
        if (response.cancelled) status = 'cancelled';
        else {
          this.send({ type: this.names.audioDone, response_id: response.id, item_id: item, output_index: 0, content_index: 0 });
          this.send({ type: this.names.transcriptDone, response_id: response.id, item_id: item, output_index: 0, content_index: 0, transcript: reply.text });
        }
        const done = { id: item, type: 'message', role: 'assistant', status: status === 'cancelled' ? 'incomplete' : 'completed', content: [{ type: 'output_audio', transcript: reply.text }] };
        output.push(done);
        this.send({ type: 'response.output_item.done', response_id: response.id, output_index: 0, item: done });
      }
      for (const call of reply.toolCalls ?? []) {
        if (response.cancelled) {
          status = 'cancelled';
          break;
        }
        const item = id('item');
        const callId = call.id ?? id('call');
        const args = argsText(call);
        const index = output.length;
        this.send({ type: 'response.output_item.added', response_id: response.id, output_index: index, item: { id: item, type: 'function_call', status: 'in_progress', name: call.name, call_id: callId, arguments: '' } });
        const half = Math.ceil(args.length / 2);
        for (const piece of [args.slice(0, half), args.slice(half)]) {
          if (piece) this.send({ type: 'response.function_call_arguments.delta', response_id: response.id, item_id: item, output_index: index, call_id: callId, delta: piece });
        }
        this.send({ type: 'response.function_call_arguments.done', response_id: response.id, item_id: item, output_index: index, call_id: callId, name: call.name, arguments: args });
        const done = { id: item, type: 'function_call', status: 'completed', name: call.name, call_id: callId, arguments: args };
        output.push(done);
        this.send({ type: 'response.output_item.done', response_id: response.id, output_index: index, item: done });
      }
    } finally {
      this.active = null;
    }
    this.send({ type: 'response.done', response: { id: response.id, object: 'realtime.response', status, output } });
  }
}
