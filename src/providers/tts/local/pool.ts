/**
 * The local voice's child processes: eSpeak NG (GPL-3.0-or-later, an optional dependency) runs
 * only in these, never in the service's process, and its CPU work (≈ 60 ms per sentence) stays
 * off the event loop. Children start on first use and live on; the pool holds the queue and
 * gives each child one sentence at a time, so cancelling a reply drops its queued sentences
 * before they cost anything. The children do not keep the service alive: their pipes are
 * referenced only while work is queued or running.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ESPEAK_PACKAGE, espeakModulePath } from './espeak.js';
import type { SpeakRequest, WorkerMessage } from './protocol.js';

export interface SpeakJob {
  text: string;
  voice: string;
  wordsPerMinute: number;
  pitch?: number;
  sampleRate: number;
}

export interface SpeakResult {
  samples: Int16Array;
  sampleRate: number;
}

export class LocalVoiceUnavailableError extends Error {}
export class SpeakCancelledError extends Error {}

export interface PoolOptions {
  /** How many child processes at most (default 2; each ≈ 140 MB resident). */
  size?: number;
  /** The npm package to load (tests name a missing one to see the absent case). */
  packageName?: string;
}

export interface PoolStatus {
  available: boolean;
  /** Why not, when not. */
  reason?: string;
  /** False when eSpeak NG runs in its slow fallback (a fresh instance per sentence). */
  reusesInstance?: boolean;
}

interface Job {
  id: number;
  request: SpeakRequest;
  resolve(result: SpeakResult): void;
  reject(err: Error): void;
}

interface Slot {
  child: ChildProcess;
  ready: boolean;
  job: Job | null;
}

/** The child's entry: the .ts source under tsx (tests, dev), the compiled .js in dist/. */
function workerEntry(): { path: string; execArgv: string[] } {
  const self = fileURLToPath(import.meta.url);
  const fromSource = self.endsWith('.ts');
  return {
    path: self.replace(/pool\.(ts|js)$/, `espeak-worker.${fromSource ? 'ts' : 'js'}`),
    execArgv: fromSource ? ['--import', 'tsx'] : [],
  };
}

export class EspeakPool {
  private readonly size: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private readonly packageName: string;
  private unavailable: string | null;
  private reusesInstance: boolean | undefined;
  private readyWaiters: (() => void)[] = [];

  constructor(options: PoolOptions = {}) {
    this.size = Math.max(1, options.size ?? 2);
    this.packageName = options.packageName ?? ESPEAK_PACKAGE;
    this.unavailable = espeakModulePath(this.packageName) ? null : `the optional package ${this.packageName} is not installed (npm install ${this.packageName})`;
  }

  /** Quick answer without starting anything: false when the package is missing or failed to load. */
  get available(): boolean {
    return this.unavailable === null && !this.closed;
  }

  /** Starts a child if none runs and reports whether eSpeak NG loads (for `doctor` and tests). */
  async status(): Promise<PoolStatus> {
    if (this.unavailable !== null) return { available: false, reason: this.unavailable };
    if (this.closed) return { available: false, reason: 'the local voice was shut down' };
    if (!this.slots.some((s) => s.ready)) {
      await new Promise<void>((resolve) => {
        this.readyWaiters.push(resolve);
        if (this.slots.length === 0) this.spawn();
        this.updateRefs();
      });
    }
    return this.unavailable !== null
      ? { available: false, reason: this.unavailable }
      : { available: true, reusesInstance: this.reusesInstance };
  }

  /** Queues one sentence; `cancel(id)` drops it. */
  speak(job: SpeakJob): { id: number; result: Promise<SpeakResult> } {
    const id = this.nextId++;
    const result = new Promise<SpeakResult>((resolve, reject) => {
      if (this.unavailable !== null) return reject(new LocalVoiceUnavailableError(`local voice unavailable: ${this.unavailable}`));
      if (this.closed) return reject(new LocalVoiceUnavailableError('local voice unavailable: it was shut down'));
      this.queue.push({ id, request: { type: 'speak', id, ...job }, resolve, reject });
      this.pump();
    });
    return { id, result };
  }

  /** Drops a queued sentence, or ignores the answer of one being spoken. */
  cancel(id: number): void {
    const at = this.queue.findIndex((j) => j.id === id);
    if (at >= 0) {
      const [job] = this.queue.splice(at, 1);
      job.reject(new SpeakCancelledError('cancelled'));
    }
    for (const slot of this.slots) {
      if (slot.job?.id === id) {
        const job = slot.job;
        // The child finishes the sentence (≈ 60 ms) and its answer is dropped.
        slot.job = { ...job, resolve: () => undefined, reject: () => undefined };
        job.reject(new SpeakCancelledError('cancelled'));
      }
    }
    this.updateRefs();
  }

  /** Stops every child (service shutdown). */
  close(): void {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new LocalVoiceUnavailableError('local voice unavailable: it was shut down'));
    for (const slot of this.slots.splice(0)) {
      slot.job?.reject(new LocalVoiceUnavailableError('local voice unavailable: it was shut down'));
      slot.child.kill();
    }
    for (const wake of this.readyWaiters.splice(0)) wake();
  }

  private pump(): void {
    if (this.closed || this.unavailable !== null) return;
    for (const slot of this.slots) {
      if (this.queue.length === 0) break;
      if (!slot.ready || slot.job) continue;
      const job = this.queue.shift()!;
      slot.job = job;
      slot.child.send(job.request);
    }
    const starting = this.slots.filter((s) => !s.ready).length;
    if (this.queue.length > starting && this.slots.length < this.size) this.spawn();
    this.updateRefs();
  }

  private spawn(): void {
    const entry = workerEntry();
    const child = fork(entry.path, [this.packageName], { execArgv: entry.execArgv, serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const slot: Slot = { child, ready: false, job: null };
    this.slots.push(slot);
    child.on('message', (message: WorkerMessage) => this.onMessage(slot, message));
    child.on('error', () => undefined); // 'exit' follows and handles it
    child.on('exit', (code, signal) => this.onExit(slot, code, signal));
  }

  private onMessage(slot: Slot, message: WorkerMessage): void {
    switch (message.type) {
      case 'ready':
        slot.ready = true;
        this.reusesInstance = message.reusesInstance;
        for (const wake of this.readyWaiters.splice(0)) wake();
        break;
      case 'unavailable':
        this.unavailable = message.message;
        for (const job of this.queue.splice(0)) job.reject(new LocalVoiceUnavailableError(`local voice unavailable: ${message.message}`));
        for (const wake of this.readyWaiters.splice(0)) wake();
        break;
      case 'spoken':
      case 'failed': {
        const job = slot.job;
        slot.job = null;
        if (job && job.id === message.id) {
          if (message.type === 'spoken') job.resolve({ samples: message.samples, sampleRate: message.sampleRate });
          else job.reject(new Error(`local voice: ${message.message}`));
        }
        break;
      }
    }
    this.pump();
  }

  private onExit(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    if (slot.job) slot.job.reject(new Error(`local voice: its process exited (${signal ?? `code ${code}`})`));
    if (!slot.ready && this.unavailable === null && !this.closed) {
      // It died before loading eSpeak NG: do not restart it in a loop.
      this.unavailable = `its process exited while starting (${signal ?? `code ${code}`})`;
      for (const job of this.queue.splice(0)) job.reject(new LocalVoiceUnavailableError(`local voice unavailable: ${this.unavailable}`));
    }
    for (const wake of this.readyWaiters.splice(0)) wake();
    this.pump();
  }

  /** Keeps the process alive only while sentences are queued or being spoken. */
  private updateRefs(): void {
    const busy = this.queue.length > 0 || this.readyWaiters.length > 0;
    for (const slot of this.slots) {
      const wanted = busy || slot.job !== null;
      if (wanted) {
        slot.child.ref();
        slot.child.channel?.ref();
      } else {
        slot.child.unref();
        slot.child.channel?.unref();
      }
    }
  }
}
