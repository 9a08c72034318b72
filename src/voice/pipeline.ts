/**
 * The voice core's runner: a chain of small stages, each with one job, passing `Frame`s
 * (src/voice/frames.ts) downstream — caller audio at the head, the leg's playback at the
 * tail — and, rarely, upstream (playback marks back to the stages that care what was heard).
 *
 * A frame sent upstream (`ctx.pushUp`) travels toward the head: the `push` a stage gets with it
 * forwards it further up, so stages forward frames the same way whichever way they travel.
 *
 * Delivery is one FIFO queue drained on the caller's stack: a frame pushed while another is
 * being processed waits its turn, so every stage sees frames in the order they were pushed and
 * no stage re-enters itself. Stages are synchronous; one that needs to wait (LLM, TTS) starts its
 * work and pushes later from the callback — the queue picks those frames up in order.
 *
 * Per-turn cancellation: every turn has an AbortController (`TurnControl`). `cancel(turn)`
 * aborts it at once (the LLM request and the TTS stream listen to its signal), then sends a
 * `cancel` frame through every stage (the output stage clears the leg's playback), and from then
 * on the runner drops every non-control frame of that turn — late text or audio of a cancelled
 * reply never reaches the caller.
 */
import type { Logger } from 'pino';
import type { Clock } from '../telephony/clock.js';
import { isControl, type CancelReason, type Frame, type TurnId } from './frames.js';

export type Push = (frame: Frame) => void;

export interface StageContext {
  readonly clock: Clock;
  readonly log: Logger;
  readonly turns: TurnControl;
  /** Sends a frame back toward the head (stages before this one). */
  readonly pushUp: Push;
}

/**
 * One step of the pipeline. `process` sees every frame that reaches it and decides what goes
 * on: it must `push` the frame to forward it (most stages forward what they do not handle).
 */
export interface Stage {
  readonly name: string;
  /** Called once before the first frame. */
  start?(ctx: StageContext, push: Push): void;
  process(frame: Frame, push: Push, ctx: StageContext): void;
  /** Releases what the stage holds (streams, timers); called once when the pipeline closes. */
  close?(): void | Promise<void>;
}

interface TurnState {
  controller: AbortController;
  cancelled: CancelReason | null;
}

/** Turn ids and their cancellation: one AbortController per turn. */
export class TurnControl {
  private next = 0;
  private currentId: TurnId;
  private readonly states = new Map<TurnId, TurnState>();
  /** Set by the pipeline: how a cancellation is announced to the stages. */
  onCancel: (turn: TurnId, reason: CancelReason) => void = () => undefined;

  constructor() {
    this.currentId = this.open();
  }

  /** The turn caller-side frames belong to: the latest one opened. */
  get current(): TurnId {
    return this.currentId;
  }

  /** Opens the next turn and makes it current. */
  begin(): TurnId {
    this.currentId = this.open();
    return this.currentId;
  }

  /** Opens the next turn without making it current (a speculative reply: speculation.ts). */
  reserve(): TurnId {
    return this.open();
  }

  /** Makes a reserved turn current; false when a later turn began meanwhile or it was cancelled. */
  enter(turn: TurnId): boolean {
    if (turn <= this.currentId || this.isCancelled(turn)) return false;
    this.currentId = turn;
    return true;
  }

  signal(turn: TurnId): AbortSignal {
    return this.state(turn).controller.signal;
  }

  isCancelled(turn: TurnId): boolean {
    return this.states.get(turn)?.cancelled != null;
  }

  cancelReason(turn: TurnId): CancelReason | null {
    return this.states.get(turn)?.cancelled ?? null;
  }

  /** Cancels a turn once: aborts its signal, then announces it. Returns false when it already was. */
  cancel(turn: TurnId, reason: CancelReason): boolean {
    const state = this.state(turn);
    if (state.cancelled) return false;
    state.cancelled = reason;
    state.controller.abort(new Error(`turn ${turn} cancelled: ${reason}`));
    this.onCancel(turn, reason);
    return true;
  }

  /** Cancels every turn still open (the call is over). */
  cancelAll(reason: CancelReason): void {
    for (const [turn, state] of this.states) if (!state.cancelled) this.cancel(turn, reason);
  }

  /** Forgets turns that can no longer produce frames (keeps the map small on long calls). */
  private prune(): void {
    if (this.states.size <= 16) return;
    for (const turn of [...this.states.keys()].slice(0, this.states.size - 16)) this.states.delete(turn);
  }

  private open(): TurnId {
    const id = this.next++;
    this.states.set(id, { controller: new AbortController(), cancelled: null });
    this.prune();
    return id;
  }

  private state(turn: TurnId): TurnState {
    let state = this.states.get(turn);
    if (!state) {
      // A turn forgotten by `prune` is long over: treat it as cancelled.
      state = { controller: new AbortController(), cancelled: 'end' };
      state.controller.abort();
      this.states.set(turn, state);
    }
    return state;
  }
}

/** `up`: the frame travels toward the head (a stage's `push` forwards it further up). */
type Delivery = { index: number; frame: Frame; up: boolean };

export interface PipelineOptions {
  clock: Clock;
  log: Logger;
  turns?: TurnControl;
}

export class Pipeline {
  readonly turns: TurnControl;
  private readonly queue: Delivery[] = [];
  private head = 0;
  private draining = false;
  private closed = false;
  private readonly outputs: ((frame: Frame) => void)[] = [];
  private readonly observers: ((frame: Frame, stage: string) => void)[] = [];
  private readonly contexts: StageContext[];
  private readonly pushes: Push[];
  private readonly upPushes: Push[];

  constructor(
    private readonly stages: readonly Stage[],
    private readonly options: PipelineOptions,
  ) {
    this.turns = options.turns ?? new TurnControl();
    this.turns.onCancel = (turn, reason) => this.enqueue(0, { kind: 'cancel', turn, reason, at: this.options.clock.now() });
    this.pushes = stages.map((_, i) => (frame: Frame) => this.enqueue(i + 1, frame));
    this.upPushes = stages.map((_, i) => (frame: Frame) => this.enqueue(i - 1, frame, true));
    this.contexts = stages.map((_, i) => ({
      clock: options.clock,
      log: options.log,
      turns: this.turns,
      pushUp: this.upPushes[i]!,
    }));
    stages.forEach((stage, i) => stage.start?.(this.contexts[i]!, this.pushes[i]!));
  }

  /** Frames that leave the last stage. */
  onOutput(listener: (frame: Frame) => void): void {
    this.outputs.push(listener);
  }

  /** Sees every frame as it is delivered to a stage (tests, diagnostics). */
  observe(listener: (frame: Frame, stage: string) => void): void {
    this.observers.push(listener);
  }

  /** Feeds a frame in at the head. */
  push(frame: Frame): void {
    this.enqueue(0, frame);
  }

  /** Feeds a frame in just before the named stage (e.g. the assistant's own lines into the TTS stage). */
  pushAt(stageName: string, frame: Frame): void {
    const index = this.stages.findIndex((s) => s.name === stageName);
    if (index < 0) throw new Error(`no stage named ${stageName}`);
    this.enqueue(index, frame);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(
      this.stages.map(async (stage) => {
        try {
          await stage.close?.();
        } catch (err) {
          this.options.log.warn({ err, stage: stage.name }, 'closing a voice stage failed');
        }
      }),
    );
  }

  private enqueue(index: number, frame: Frame, up = false): void {
    // Upstream frames that pass the head have told every stage already.
    if (this.closed || index < 0) return;
    this.queue.push({ index, frame, up });
    if (!this.draining) this.drain();
  }

  private drain(): void {
    this.draining = true;
    try {
      while (this.head < this.queue.length) {
        const { index, frame, up } = this.queue[this.head++]!;
        this.deliver(index, frame, up);
      }
    } finally {
      this.queue.length = 0;
      this.head = 0;
      this.draining = false;
    }
  }

  private deliver(index: number, frame: Frame, up: boolean): void {
    // Work of a cancelled turn goes no further.
    if (!isControl(frame) && this.turns.isCancelled(frame.turn)) return;
    const stage = this.stages[index];
    if (!stage) {
      for (const out of this.outputs) out(frame);
      return;
    }
    for (const observer of this.observers) observer(frame, stage.name);
    try {
      stage.process(frame, up ? this.upPushes[index]! : this.pushes[index]!, this.contexts[index]!);
    } catch (err) {
      this.options.log.error({ err, stage: stage.name, frame: frame.kind }, 'a voice stage failed');
      if (frame.kind !== 'error') {
        this.enqueue(index + 1, {
          kind: 'error',
          turn: frame.turn,
          stage: stage.name,
          message: (err as Error).message,
          fatal: false,
          at: this.options.clock.now(),
        });
      }
    }
  }
}

/** A stage from a function (small stages and tests). */
export function stage(name: string, process: Stage['process']): Stage {
  return { name, process };
}
