/**
 * Deepgram Flux: speech-to-text that detects the end of the caller's turn itself, over
 * `wss://api.deepgram.com/v2/listen` (Flux does not work on /v1/listen). Chosen when the
 * configured Deepgram model is a Flux model (`DEEPGRAM_MODEL=flux-general-en`, or any name that
 * starts with `flux`); see speech.ts.
 *
 * Wire (docs/architecture.md; Deepgram's Flux API reference for `/v2/listen`):
 * - query: `model`, `encoding=linear16`, `sample_rate`, and when set `eot_threshold`,
 *   `eager_eot_threshold`, `eot_timeout_ms`, `keyterm` (repeated), `language_hint` (multi
 *   model only; Flux has no `language`);
 * - client: binary PCM16 in chunks of `chunkMs` (Deepgram strongly recommends 80 ms; calls
 *   deliver 20 ms), `{"type":"ForceEndTurn"}` (our `finalize()`: end the turn on what was heard),
 *   `{"type":"CloseStream"}`; Flux has no KeepAlive/Finalize;
 * - server: `Connected`, `TurnInfo` {event StartOfTurn | Update | EagerEndOfTurn | TurnResumed |
 *   EndOfTurn, turn_index, transcript (the whole turn so far), end_of_turn_confidence, trigger},
 *   `ConfigureSuccess` / `ConfigureFailure`, `Warning`, `Error` {code, description} (then close).
 *
 * Events for the core: every TurnInfo becomes a `turn` event, and beside it the plain events a
 * Deepgram live stream would give, so today's turn-taking works unchanged: StartOfTurn →
 * `speech-started`; Update / EagerEndOfTurn / TurnResumed → an interim `transcript` of the turn's
 * text (when it changed); EndOfTurn → a final `transcript` with `speechFinal: true`.
 */
import type { SttEvent, SttProvider, SttStreamOptions, SttTurnEvent } from '../types.js';
import { DeepgramSocketStream } from './socket.js';

export interface DeepgramFluxOptions {
  /** The Flux endpoint, `wss://api.deepgram.com/v2/listen`. */
  url: string;
  apiKey: string;
  /** `flux-general-en` (default) or `flux-general-multi`. */
  model?: string;
  /** Audio per binary message (default 80 ms, Deepgram's recommendation). */
  chunkMs?: number;
  /** Audio kept while the socket is connecting (default 5000 ms). */
  maxPendingMs?: number;
  /** How long `close()` waits for Flux's last messages (default 5000 ms). */
  closeTimeoutMs?: number;
  /** Handshake limit (default 10 000 ms). */
  connectTimeoutMs?: number;
}

/** The Flux URL for a configured Deepgram URL: `/v1/listen` becomes `/v2/listen`, other paths stay. */
export function fluxUrl(deepgramUrl: string): string {
  const url = new URL(deepgramUrl);
  if (/\/v1\/listen\/?$/.test(url.pathname)) url.pathname = url.pathname.replace(/\/v1\/listen\/?$/, '/v2/listen');
  return url.toString();
}

export function isFluxModel(model: string | undefined): boolean {
  return model !== undefined && model.trim().toLowerCase().startsWith('flux');
}

const TURN_EVENTS: Record<string, SttTurnEvent> = {
  StartOfTurn: 'start',
  Update: 'update',
  EagerEndOfTurn: 'eager-end',
  TurnResumed: 'resumed',
  EndOfTurn: 'end',
};

/** Flux's message shapes, only the fields read here. */
interface FluxMessage {
  type?: string;
  request_id?: string;
  event?: string;
  turn_index?: number;
  transcript?: string;
  end_of_turn_confidence?: number;
  trigger?: string;
  code?: string;
  description?: string;
  error?: string;
}

export class DeepgramFluxStt implements SttProvider {
  readonly name = 'deepgram';
  readonly endpointing = true;

  constructor(private readonly opts: DeepgramFluxOptions) {}

  /** The listen URL with this stream's settings in the query string. */
  listenUrl(options: SttStreamOptions): string {
    const url = new URL(this.opts.url);
    const model = this.opts.model ?? 'flux-general-en';
    const q = url.searchParams;
    q.set('model', model);
    q.set('encoding', 'linear16');
    q.set('sample_rate', String(options.sampleRate));
    const turn = options.turn ?? {};
    if (turn.eotThreshold !== undefined) q.set('eot_threshold', String(clamp(turn.eotThreshold, 0.5, 1)));
    if (turn.eagerEotThreshold !== undefined) {
      // Deepgram: 0.3–0.9, and never above eot_threshold.
      q.set('eager_eot_threshold', String(Math.min(clamp(turn.eagerEotThreshold, 0.3, 0.9), turn.eotThreshold ?? 0.9)));
    }
    if (turn.eotTimeoutMs !== undefined) q.set('eot_timeout_ms', String(Math.round(clamp(turn.eotTimeoutMs, 500, 60_000))));
    for (const word of options.keywords ?? []) if (word.trim()) q.append('keyterm', word.trim());
    if (model.includes('multi') && options.language) q.append('language_hint', options.language.split(/[-_]/)[0].toLowerCase());
    return url.toString();
  }

  async open(options: SttStreamOptions, onEvent: (event: SttEvent) => void): Promise<FluxStream> {
    return new FluxStream(this.listenUrl(options), this.opts, options.sampleRate, onEvent);
  }
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, n));
}

export class FluxStream extends DeepgramSocketStream {
  private lastText = '';
  /** Flux's request id (from `Connected`), for logs. */
  requestId: string | null = null;

  constructor(url: string, opts: DeepgramFluxOptions, sampleRate: number, emit: (event: SttEvent) => void) {
    super(url, { ...opts, keepAliveMs: null, chunkMs: opts.chunkMs ?? 80 }, sampleRate, emit, 'Deepgram Flux');
  }

  /** Ends the turn on what Flux heard so far (`ForceEndTurn`: an `EndOfTurn` with trigger `manual`). */
  finalize(): void {
    this.sendHeld();
    this.control({ type: 'ForceEndTurn' });
  }

  protected override beforeClose(): void {
    this.sendHeld();
  }

  protected onMessage(text: string): void {
    const msg = this.parse<FluxMessage>(text);
    if (!msg) return;
    switch (msg.type) {
      case 'Connected':
        this.requestId = msg.request_id ?? null;
        return;
      case 'TurnInfo':
        this.turnInfo(msg);
        return;
      case 'Error':
        // Fatal on Flux's side: the close that follows ends the stream (reported then).
        this.emit({ type: 'error', message: `Deepgram Flux: ${msg.code ?? 'error'}: ${msg.description ?? msg.error ?? ''}`.trim(), fatal: false });
        return;
      case 'ConfigureFailure':
        this.emit({ type: 'error', message: `Deepgram Flux refused a Configure: ${msg.description ?? msg.code ?? ''}`.trim(), fatal: false });
        return;
      default:
        // ConfigureSuccess, Warning and anything newer carry nothing the core needs.
        return;
    }
  }

  private turnInfo(msg: FluxMessage): void {
    const event = TURN_EVENTS[msg.event ?? ''];
    if (!event) return;
    const transcript = (msg.transcript ?? '').trim();
    this.emit({ type: 'turn', event, transcript, confidence: msg.end_of_turn_confidence ?? 0, turnIndex: msg.turn_index ?? 0, ...(msg.trigger ? { trigger: msg.trigger } : {}) });
    switch (event) {
      case 'start':
        this.lastText = '';
        this.emit({ type: 'speech-started' });
        this.interim(transcript);
        return;
      case 'update':
      case 'eager-end':
      case 'resumed':
        this.interim(transcript);
        return;
      case 'end':
        this.lastText = '';
        this.emit({ type: 'transcript', text: transcript, isFinal: true, speechFinal: true });
        return;
    }
  }

  /** The turn's text as an interim transcript, when it changed (Updates repeat it every 0.25 s). */
  private interim(transcript: string): void {
    if (transcript === '' || transcript === this.lastText) return;
    this.lastText = transcript;
    this.emit({ type: 'transcript', text: transcript, isFinal: false, speechFinal: false });
  }
}
