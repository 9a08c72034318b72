/**
 * Speech-to-text stage: one provider stream per call, opened when the pipeline starts; caller
 * audio is written to it (held in memory until the stream is open) and its events become
 * frames: interim/final `transcript` (with the provider's `speech_final`), `utterance-end`, and a
 * turn-detecting provider's (Deepgram Flux) turn events as `stt-turn` (src/voice/turn/signals.ts).
 * The provider's own speech-started is not used (the VAD stage decides on speech).
 * A batch provider (no endpointing of its own) is asked to transcribe at the VAD's end of
 * speech; the turn-taking stage may also ask (`finalize`) when it waits for a final.
 */
import type { SttProvider, SttStream, SttStreamOptions } from '../providers/stt/types.js';
import type { Frame } from './frames.js';
import type { Push, Stage, StageContext } from './pipeline.js';

/** Audio held while the stream opens (at most this many chunks, ~10 s of 20 ms frames). */
const MAX_HELD = 500;

export class SttStage implements Stage {
  readonly name = 'stt';
  private stream: SttStream | null = null;
  private held: Int16Array[] = [];
  private closed = false;
  private failed = false;
  private opening: Promise<void> | null = null;

  constructor(
    private readonly provider: SttProvider,
    private readonly options: SttStreamOptions,
  ) {}

  start(ctx: StageContext, push: Push): void {
    const now = () => ctx.clock.now();
    this.opening = this.provider
      .open(this.options, (event) => {
        if (this.closed) return;
        const turn = ctx.turns.current;
        switch (event.type) {
          case 'transcript':
            push({ kind: 'transcript', turn, text: event.text, final: event.isFinal, speechFinal: event.speechFinal, at: now() });
            return;
          case 'utterance-end':
            push({ kind: 'utterance-end', turn, at: now() });
            return;
          case 'error':
            push({ kind: 'error', turn, stage: this.name, message: event.message, fatal: false, at: now() });
            if (event.fatal) this.failed = true;
            return;
          case 'turn':
            // Flux's own view of the turn, beside the plain transcript events it also sends.
            push({ kind: 'stt-turn', turn, event: event.event, text: event.transcript, confidence: event.confidence, ...(event.trigger ? { trigger: event.trigger } : {}), at: now() });
            return;
          case 'speech-started':
            return;
        }
      })
      .then((stream) => {
        if (this.closed) {
          void stream.close();
          return;
        }
        this.stream = stream;
        for (const chunk of this.held) stream.write(chunk);
        this.held = [];
      })
      .catch((err: unknown) => {
        this.failed = true;
        ctx.log.error({ err, stt: this.provider.name }, 'opening the speech-to-text stream failed');
        push({ kind: 'error', turn: ctx.turns.current, stage: this.name, message: (err as Error).message, fatal: false, at: now() });
      });
  }

  process(frame: Frame, push: Push): void {
    push(frame);
    if (this.failed || this.closed) return;
    if (frame.kind === 'audio-in') {
      if (this.stream) this.stream.write(frame.samples);
      else if (this.held.length < MAX_HELD) this.held.push(frame.samples);
    } else if (frame.kind === 'speech-stopped' && !this.provider.endpointing) {
      this.finalize();
    }
  }

  /** Asks the provider for the final transcript of what it heard so far. */
  finalize(): void {
    this.stream?.finalize();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.opening;
    await this.stream?.close();
  }
}
