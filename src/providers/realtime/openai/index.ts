/**
 * Speech-to-speech over the OpenAI Realtime WebSocket protocol (the GA event names, as in the
 * `openai` SDK's `resources/realtime/realtime.ts`): `REALTIME_URL` such as
 * `wss://api.openai.com/v1/realtime?model=gpt-realtime`, key as a bearer token.
 *
 *   → session.update {session: {type: "realtime", instructions, audio: {input: {format,
 *        transcription, turn_detection}, output: {format, voice, speed}}, tools}}
 *   ← session.updated                                   (open() resolves here)
 *   → input_audio_buffer.append {audio: base64}         (caller audio)
 *   ← input_audio_buffer.speech_started / speech_stopped
 *   ← conversation.item.input_audio_transcription.completed {transcript}
 *   ← response.created, response.output_audio.delta {item_id, delta},
 *     response.output_audio_transcript.delta / .done, response.function_call_arguments.done
 *     {call_id, name, arguments}, response.done {response: {status}}
 *   → conversation.item.create {item: {type: "function_call_output", call_id, output}} + response.create
 *   → conversation.item.create {item: {type: "message", role: "user", content: [{type: "input_text",
 *        text}]}} + response.create, held until the answer in progress is done (the caller's keys)
 *   → response.cancel + conversation.item.truncate {item_id, content_index: 0, audio_end_ms} (barge-in)
 *
 * Audio: 24 kHz PCM16 (`audio/pcm`) or, for telephony, 8 kHz G.711 μ-law (`audio/pcmu`) encoded
 * and decoded here, so a phone call needs no resampling.
 */
import WebSocket from 'ws';
import { mulaw } from '../../../audio/g711.js';
import { bytesToInt16, int16ToBytes } from '../../../audio/pcm.js';
import { WS_MAX_MESSAGE_BYTES } from '../../bounded.js';
import type { RealtimeEvent, RealtimeProvider, RealtimeSession, RealtimeSessionOptions } from '../types.js';

export interface OpenAiRealtimeOptions {
  /** REALTIME_URL. */
  url: string;
  apiKey?: string;
  /** Model for the caller's transcript (default `whisper-1`). */
  transcriptionModel?: string;
  /** Limit for connecting and configuring the session (default 10 000 ms). */
  connectTimeoutMs?: number;
}

type ServerEvent = Record<string, any> & { type: string };

/** Longest audio of one answer (a spoken answer is seconds; the models cap output tokens). */
const MAX_ANSWER_AUDIO_MS = 5 * 60_000;

export class OpenAiRealtime implements RealtimeProvider {
  readonly name = 'openai';
  readonly sampleRates = [24_000, 8_000] as const;

  constructor(private readonly opts: OpenAiRealtimeOptions) {}

  sessionUrl(options: RealtimeSessionOptions): string {
    const url = new URL(this.opts.url);
    if (options.model && !url.searchParams.has('model')) url.searchParams.set('model', options.model);
    return url.toString();
  }

  /** The session.update that configures a session. */
  sessionUpdate(options: RealtimeSessionOptions): Record<string, unknown> {
    const format = options.sampleRate === 8000 ? { type: 'audio/pcmu' } : { type: 'audio/pcm', rate: 24_000 };
    const td = options.turnDetection;
    return {
      type: 'session.update',
      session: {
        type: 'realtime',
        instructions: options.instructions,
        output_modalities: ['audio'],
        audio: {
          input: {
            format,
            transcription: { model: this.opts.transcriptionModel ?? 'whisper-1', language: options.language },
            turn_detection: td
              ? {
                  type: 'server_vad',
                  ...(td.threshold !== undefined ? { threshold: td.threshold } : {}),
                  ...(td.silenceMs !== undefined ? { silence_duration_ms: td.silenceMs } : {}),
                  ...(td.prefixPaddingMs !== undefined ? { prefix_padding_ms: td.prefixPaddingMs } : {}),
                  create_response: true,
                  // Barge-in is the core's decision (allow_interruptions, min_interrupt_words).
                  interrupt_response: false,
                }
              : null,
          },
          output: { format, voice: options.voice, ...(options.speed !== undefined ? { speed: Math.min(1.5, Math.max(0.25, options.speed)) } : {}) },
        },
        tools: options.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters })),
        tool_choice: 'auto',
      },
    };
  }

  open(options: RealtimeSessionOptions, onEvent: (event: RealtimeEvent) => void): Promise<RealtimeSession> {
    if (!this.sampleRates.includes(options.sampleRate as 24_000 | 8_000)) {
      return Promise.reject(new Error(`the realtime session takes ${this.sampleRates.join(' or ')} Hz audio, not ${options.sampleRate}`));
    }
    const headers: Record<string, string> = {};
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    const socket = new WebSocket(this.sessionUrl(options), { headers, handshakeTimeout: this.opts.connectTimeoutMs ?? 10_000, maxPayload: WS_MAX_MESSAGE_BYTES.audio });
    const session = new OpenAiRealtimeSession(socket, options.sampleRate, onEvent);
    return session.configure(this.sessionUpdate(options), this.opts.connectTimeoutMs ?? 10_000);
  }
}

class OpenAiRealtimeSession implements RealtimeSession {
  private ready = false;
  private closing = false;
  private gone = false;
  private activeResponse: string | null = null;
  /** A response.create sent and not yet created (the server refuses a second one meanwhile). */
  private requested = false;
  /** The caller's text waits for the answer in progress to end before it is answered. */
  private answerTextAfter = false;
  /** The assistant audio item last heard of, and how much audio (ms) it has produced. */
  private audioItem: { id: string; ms: number } | null = null;
  private readonly closed: Promise<void>;
  private settle?: { resolve: (s: RealtimeSession) => void; reject: (e: Error) => void };

  constructor(private readonly socket: WebSocket, private readonly sampleRate: number, private readonly emit: (e: RealtimeEvent) => void) {
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('message', (data, isBinary) => {
      if (!isBinary) this.onMessage(data.toString());
    });
    socket.on('unexpected-response', (_req, res) => {
      res.resume();
      this.fail(`realtime server refused the connection: HTTP ${res.statusCode}${res.statusMessage ? ` ${res.statusMessage}` : ''}`);
      socket.terminate();
    });
    socket.on('error', (err) => this.fail(`realtime connection failed: ${err.message}`));
    socket.on('close', (code, reason) => {
      if (!this.closing) this.fail(`realtime server closed the session: ${code}${reason.length ? ` ${reason.toString()}` : ''}`);
      this.gone = true;
    });
  }

  configure(update: Record<string, unknown>, timeoutMs: number): Promise<RealtimeSession> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.fail(`realtime session not configured within ${timeoutMs} ms`);
        this.socket.terminate();
      }, timeoutMs);
      this.settle = {
        resolve: (s) => {
          clearTimeout(timer);
          resolve(s);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.socket.once('open', () => this.send(update));
    });
  }

  sendAudio(samples: Int16Array): void {
    if (!this.ready || samples.length === 0) return;
    const bytes = this.sampleRate === 8000 ? Buffer.from(mulaw.encode(samples)) : int16ToBytes(samples);
    this.send({ type: 'input_audio_buffer.append', audio: bytes.toString('base64') });
  }

  sendFunctionResult(callId: string, output: string, respond = true): void {
    this.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: callId, output } });
    if (respond) this.respond();
  }

  sendText(text: string): void {
    this.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } });
    if (this.activeResponse !== null || this.requested) this.answerTextAfter = true;
    else this.respond();
  }

  respond(instructions?: string): void {
    this.requested = true;
    this.send(instructions ? { type: 'response.create', response: { instructions } } : { type: 'response.create' });
  }

  interrupt(playedMs: number): void {
    if (this.activeResponse) this.send({ type: 'response.cancel' });
    const item = this.audioItem;
    if (item && playedMs < item.ms) {
      this.send({ type: 'conversation.item.truncate', item_id: item.id, content_index: 0, audio_end_ms: Math.max(0, Math.floor(playedMs)) });
    }
    this.audioItem = null;
  }

  update(options: Pick<RealtimeSessionOptions, 'instructions' | 'tools'>): void {
    this.send({
      type: 'session.update',
      session: {
        type: 'realtime',
        instructions: options.instructions,
        tools: options.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters })),
      },
    });
  }

  async close(): Promise<void> {
    if (this.gone) return;
    this.closing = true;
    if (this.socket.readyState === WebSocket.CONNECTING) this.socket.terminate();
    else this.socket.close(1000);
    const timer = setTimeout(() => this.socket.terminate(), 5000);
    await this.closed;
    clearTimeout(timer);
  }

  private send(event: Record<string, unknown>): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(event));
  }

  private onMessage(text: string): void {
    let event: ServerEvent;
    try {
      event = JSON.parse(text) as ServerEvent;
    } catch {
      return this.emit({ type: 'error', message: 'realtime server sent a message that is not JSON', fatal: false });
    }
    switch (event.type) {
      case 'session.updated':
        if (!this.ready) {
          this.ready = true;
          this.settle?.resolve(this);
        }
        return;
      case 'input_audio_buffer.speech_started':
        return this.emit({ type: 'speech-started' });
      case 'input_audio_buffer.speech_stopped':
        return this.emit({ type: 'speech-stopped' });
      case 'conversation.item.input_audio_transcription.completed':
        return this.emit({ type: 'caller-transcript', text: String(event.transcript ?? '').trim() });
      case 'response.created':
        this.activeResponse = String(event.response?.id ?? '');
        this.requested = false;
        // A barge-in from now on cuts this answer's audio, not an earlier one's.
        this.audioItem = null;
        return this.emit({ type: 'response-started', responseId: this.activeResponse });
      case 'response.output_audio.delta':
      case 'response.audio.delta': {
        const bytes = Buffer.from(String(event.delta ?? ''), 'base64');
        const samples = this.sampleRate === 8000 ? mulaw.decode(bytes) : bytesToInt16(bytes);
        const itemId = String(event.item_id ?? '');
        if (this.audioItem?.id !== itemId) this.audioItem = { id: itemId, ms: 0 };
        this.audioItem.ms += (samples.length / this.sampleRate) * 1000;
        // An answer that does not stop is a broken stream, not a long answer: end the session.
        if (this.audioItem.ms > MAX_ANSWER_AUDIO_MS) return this.fail(`realtime answer exceeded ${MAX_ANSWER_AUDIO_MS / 1000} s of audio`);
        return this.emit({ type: 'audio', samples, sampleRate: this.sampleRate, itemId });
      }
      case 'response.output_audio_transcript.delta':
      case 'response.audio_transcript.delta':
        return this.emit({ type: 'assistant-transcript-delta', text: String(event.delta ?? ''), itemId: String(event.item_id ?? '') });
      case 'response.output_audio_transcript.done':
      case 'response.audio_transcript.done':
        return this.emit({ type: 'assistant-transcript', text: String(event.transcript ?? ''), itemId: String(event.item_id ?? '') });
      case 'response.function_call_arguments.done':
        return this.emit({ type: 'function-call', callId: String(event.call_id ?? ''), name: String(event.name ?? ''), arguments: String(event.arguments ?? '') });
      case 'response.done': {
        const id = String(event.response?.id ?? '');
        if (this.activeResponse === id) this.activeResponse = null;
        const status = event.response?.status;
        this.emit({ type: 'response-done', responseId: id, status: status === 'cancelled' || status === 'failed' || status === 'incomplete' ? status : 'completed' });
        // The caller's text is answered now, unless the core asked for another answer first (function outputs).
        if (this.answerTextAfter && this.activeResponse === null && !this.requested) {
          this.answerTextAfter = false;
          this.respond();
        }
        return;
      }
      case 'error': {
        const message = `realtime: ${event.error?.message ?? 'error'}`;
        // Before the session is configured an error means it cannot be (bad voice, model, key).
        if (!this.ready) return this.fail(message);
        // Cancelling an answer that has just finished is harmless.
        if (event.error?.code === 'response_cancel_not_active') return;
        // Our response.create lost to one the server's turn detection started.
        if (event.error?.code === 'conversation_already_has_active_response') this.requested = false;
        return this.emit({ type: 'error', message, fatal: false });
      }
      default:
        return;
    }
  }

  private fail(message: string): void {
    if (this.gone) return;
    if (!this.ready) {
      this.gone = true;
      this.settle?.reject(new Error(message));
      if (this.socket.readyState !== WebSocket.CLOSED) this.socket.terminate();
      return;
    }
    this.gone = true;
    this.emit({ type: 'error', message, fatal: true });
  }
}
