/**
 * Text-to-speech stage: one provider stream per assistant turn, opened on the turn's first
 * `speak` piece; pieces are pushed as they come, `speak-end` ends the stream. Provider events
 * become `tts-audio` / `tts-spoken` / `tts-done` frames of the turn. Cancelling the turn cancels
 * its stream at once (the provider releases its connection; no more events are used).
 *
 * Given a `RateConversion` (the process's resampling thread), audio at another rate than the
 * leg's is converted there before it becomes `tts-audio`, and the turn's later events wait for
 * it, so their order is the provider's. Without one, the output stage resamples at playout.
 */
import type { RateConversion, RateStream } from '../audio/resample-thread.js';
import type { TtsEvent, TtsProvider, TtsStream, TtsStreamOptions } from '../providers/tts/types.js';
import type { Frame, TurnId } from './frames.js';
import type { Push, Stage, StageContext } from './pipeline.js';
import { withoutPlaceholders } from './spoken-text.js';

export class TtsStage implements Stage {
  readonly name = 'tts';
  private readonly streams = new Map<TurnId, TtsStream>();
  /** Each speaking turn's rate conversion, when its audio needs one. */
  private readonly converters = new Map<TurnId, RateStream>();
  private push: Push = () => undefined;
  private ctx: StageContext | null = null;

  constructor(
    private provider: TtsProvider,
    private options: TtsStreamOptions,
    private readonly rates: RateConversion | null = null,
  ) {}

  /** Another voice from the next turn on (a turn already speaking keeps its stream). */
  useVoice(provider: TtsProvider, options: TtsStreamOptions): void {
    this.provider = provider;
    this.options = options;
  }

  /** The voice the next turn speaks with. */
  get voice(): { provider: TtsProvider; options: TtsStreamOptions } {
    return { provider: this.provider, options: this.options };
  }

  start(ctx: StageContext, push: Push): void {
    this.ctx = ctx;
    this.push = push;
  }

  process(frame: Frame, push: Push, ctx: StageContext): void {
    switch (frame.kind) {
      case 'speak': {
        // Every spoken line, the model's and scripted ones alike: an unfilled {{placeholder}} is never read out.
        const text = withoutPlaceholders(frame.text).trim();
        if (text === '' && frame.text.trim() !== '') return;
        push(text === frame.text.trim() ? frame : { ...frame, text });
        if (text !== '') this.stream(frame.turn, ctx).push(text);
        return;
      }
      case 'speak-end': {
        push(frame);
        const stream = this.streams.get(frame.turn);
        if (stream) stream.end();
        // Nothing was said this turn: the turn is done at once.
        else push({ kind: 'tts-done', turn: frame.turn, at: ctx.clock.now() });
        return;
      }
      case 'cancel':
        this.cancel(frame.turn);
        push(frame);
        return;
      case 'hang-up':
        // Our own hang-up (end-call) lets the goodbye be synthesised and played first.
        if (frame.remote) for (const turn of [...this.streams.keys()]) this.cancel(turn);
        push(frame);
        return;
      default:
        push(frame);
    }
  }

  private stream(turn: TurnId, ctx: StageContext): TtsStream {
    let stream = this.streams.get(turn);
    if (stream) return stream;
    const now = () => ctx.clock.now();
    const legRate = this.options.sampleRate;
    const emit = (event: TtsEvent) => {
      if (ctx.turns.isCancelled(turn)) return;
      switch (event.type) {
        case 'audio':
          this.push({ kind: 'tts-audio', turn, samples: event.samples, sampleRate: event.sampleRate, alignment: event.alignment, at: now() });
          return;
        case 'spoken':
          this.push({ kind: 'tts-spoken', turn, text: event.text, at: now() });
          return;
        case 'done':
          this.push({ kind: 'tts-done', turn, at: now() });
          return;
        case 'error':
          this.push({ kind: 'error', turn, stage: this.name, message: event.message, fatal: false, at: now() });
          // What could not be spoken is over: let the turn finish.
          this.push({ kind: 'tts-done', turn, at: now() });
          return;
      }
    };
    /** Converted audio still on its way back; the turn's later events queue behind it. */
    let converting: Promise<void> | null = null;
    stream = this.provider.open(this.options, (event) => {
      if (ctx.turns.isCancelled(turn)) return;
      if (event.type === 'done' || event.type === 'error') this.streams.delete(turn);
      if (event.type === 'audio' && this.rates && event.sampleRate !== legRate) {
        let converter = this.converters.get(turn);
        if (!converter || converter.from !== event.sampleRate) {
          converter?.close();
          converter = this.rates.open(event.sampleRate, legRate);
          this.converters.set(turn, converter);
        }
        const converted = converter.process(event.samples);
        converting = (converting ?? Promise.resolve())
          .then(() => converted)
          .then((samples) => emit({ ...event, samples, sampleRate: legRate }));
        return;
      }
      if (event.type === 'done' || event.type === 'error') this.closeConverter(turn);
      if (converting) converting = converting.then(() => emit(event));
      else emit(event);
    });
    this.streams.set(turn, stream);
    return stream;
  }

  private closeConverter(turn: TurnId): void {
    this.converters.get(turn)?.close();
    this.converters.delete(turn);
  }

  private cancel(turn: TurnId): void {
    this.closeConverter(turn);
    const stream = this.streams.get(turn);
    if (!stream) return;
    this.streams.delete(turn);
    try {
      stream.cancel();
    } catch (err) {
      this.ctx?.log.warn({ err }, 'cancelling a text-to-speech stream failed');
    }
  }

  close(): void {
    for (const turn of [...this.streams.keys()]) this.cancel(turn);
    for (const turn of [...this.converters.keys()]) this.closeConverter(turn);
  }
}
