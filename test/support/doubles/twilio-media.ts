/**
 * The person on the phone, as Twilio's media stream shows them to our service: the double's
 * side of a bidirectional `<Connect><Stream>` WebSocket.
 *
 * It sends `connected` and `start` (with the TwiML's `<Parameter>`s), then one 20 ms μ-law
 * frame every 20 ms of call time, always (silence while the person says nothing), as Twilio
 * does. What the service sends is played back at the same pace: `mark`s come back when the
 * audio before them has played, `clear` drops what is queued and returns pending marks at
 * once. Everything heard is kept with its call time, so a test can assert what the person
 * heard and when it stopped.
 *
 * Call time runs `speed` times faster than the wall clock; every frame-driven step (pauses,
 * waits, playback) is counted in frames, so a script behaves the same at any speed.
 */
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { mulaw } from '../../../src/audio/g711.js';
import { rms } from '../../../src/audio/pcm.js';

export const FRAME_MS = 20;
export const FRAME_SAMPLES = 160;
const SILENCE_FRAME = Buffer.alloc(FRAME_SAMPLES, 0xff); // μ-law code of 0

/** What the person does once connected, in order; after the last step they stay silent on the line. */
export type PersonStep =
  /** Speaks: PCM16 mono at 8 kHz, sent in 20 ms frames. */
  | { say: Int16Array; label?: string }
  /** Stays silent this many ms of call time. */
  | { pause: number }
  /** Waits until the assistant has spoken and then been quiet for `silenceMs` (default 700). */
  | { waitForAssistant: { silenceMs?: number; timeoutMs?: number } }
  /** Waits until assistant audio is playing, then `afterMs` more (to talk over it: barge-in). */
  | { waitUntilHearing: { afterMs?: number; timeoutMs?: number } }
  /** Presses keys (one `dtmf` message per digit). */
  | { dtmf: string }
  /** Hangs up: `stop`, then the socket closes. */
  | { hangUp: true };

export interface HeardSegment {
  /** Call time (ms since the stream started) of the first sample. */
  atMs: number;
  samples: Int16Array;
}

export interface StreamEvent {
  atMs: number;
  /** `in:` what the service sent; `out:` what the double sent. */
  type: 'in:media' | 'in:mark' | 'in:clear' | 'in:unknown' | 'out:mark' | 'out:dtmf' | 'out:stop' | 'out:start' | 'step';
  detail?: string;
}

export interface PersonOptions {
  url: string;
  headers?: Record<string, string>;
  accountSid: string;
  callSid: string;
  customParameters: Record<string, string>;
  steps: PersonStep[];
  /** Keep what was heard (default true; the benchmark turns it off). */
  keepAudio?: boolean;
  /** The stream ended, and who ended it. */
  onEnd(by: 'person' | 'service' | 'network'): void;
}

/** A frame of assistant audio louder than this (RMS, PCM16) counts as speech. */
const SPEECH_RMS = 200;

export class StreamPerson {
  readonly streamSid = `MZ${randomBytes(16).toString('hex')}`;
  readonly events: StreamEvent[] = [];
  readonly heard: HeardSegment[] = [];
  /** What the person said, with its call time (for the call's recording). */
  readonly said: HeardSegment[] = [];
  /** Marks echoed back, in order, with whether a `clear` dropped their audio. */
  readonly marks: Array<{ name: string; atMs: number; cleared: boolean }> = [];
  /** Call times of every `clear`. */
  readonly clears: number[] = [];
  /** Frames of assistant audio played to the person, and how many of them were speech. */
  playedFrames = 0;
  speechFrames = 0;
  frame = 0;
  ended: 'person' | 'service' | 'network' | null = null;
  readonly opened: Promise<void>;

  private socket: WebSocket;
  private sequence = 0;
  private queue: Buffer[] = [];
  private queued = 0;
  /** Bytes of the service's audio received so far / played so far; marks sit at a byte position. */
  private receivedBytes = 0;
  private playedBytes = 0;
  private pendingMarks: Array<{ name: string; at: number }> = [];
  private step = 0;
  private stepFrames = 0;
  private sayAt = 0;
  private heardSpeech = false;
  private quietFrames = 0;
  private started = false;
  private lastSegment: HeardSegment | null = null;

  constructor(private readonly opts: PersonOptions) {
    this.socket = new WebSocket(opts.url, { headers: opts.headers });
    this.opened = new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
    });
    this.opened.catch(() => this.finish('network'));
    this.socket.on('open', () => this.begin());
    this.socket.on('message', (data, isBinary) => {
      if (!isBinary) this.receive(data.toString());
    });
    this.socket.on('close', () => this.finish('service'));
    this.socket.on('error', () => undefined);
  }

  /** All heard audio as one timeline from the stream's start (silence where nothing played). */
  heardTimeline(): Int16Array {
    const out = new Int16Array(this.frame * FRAME_SAMPLES);
    for (const seg of this.heard) {
      const at = Math.round((seg.atMs / 1000) * 8000);
      out.set(seg.samples.subarray(0, Math.max(0, out.length - at)), at);
    }
    return out;
  }

  /** All the person said as one timeline from the stream's start, as long as `heardTimeline()`. */
  saidTimeline(): Int16Array {
    const out = new Int16Array(this.frame * FRAME_SAMPLES);
    for (const seg of this.said) {
      const at = Math.round((seg.atMs / 1000) * 8000);
      out.set(seg.samples.subarray(0, Math.max(0, out.length - at)), at);
    }
    return out;
  }

  /** Call time of the last frame of assistant speech the person heard (null: none). */
  lastSpeechAtMs: number | null = null;

  /** Advances one frame of call time: play one frame, send one frame, move the script on. */
  tick(): void {
    if (!this.started || this.ended) return;
    const atMs = this.frame * FRAME_MS;
    this.play(atMs);
    this.speak(atMs);
    this.frame++;
  }

  /** The person hangs up now. */
  hangUp(): void {
    this.stop('person');
  }

  /** The network ended the call (REST hang-up, time limit): Twilio sends `stop` and closes. */
  endFromNetwork(): void {
    this.stop('network');
  }

  private stop(by: 'person' | 'network'): void {
    if (this.ended) return;
    this.send({ event: 'stop', sequenceNumber: String(++this.sequence), streamSid: this.streamSid, stop: { accountSid: this.opts.accountSid, callSid: this.opts.callSid } });
    this.log('out:stop');
    this.finish(by);
    this.socket.close(1000);
  }

  private begin(): void {
    this.send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    this.send({
      event: 'start',
      sequenceNumber: String(++this.sequence),
      streamSid: this.streamSid,
      start: {
        streamSid: this.streamSid,
        accountSid: this.opts.accountSid,
        callSid: this.opts.callSid,
        tracks: ['inbound'],
        customParameters: this.opts.customParameters,
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    });
    this.log('out:start');
    this.started = true;
  }

  private receive(text: string): void {
    let msg: any;
    try {
      msg = JSON.parse(text);
    } catch {
      this.log('in:unknown', text.slice(0, 80));
      return;
    }
    const atMs = this.frame * FRAME_MS;
    switch (msg.event) {
      case 'media': {
        const bytes = Buffer.from(String(msg.media?.payload ?? ''), 'base64');
        this.queue.push(bytes);
        this.queued += bytes.length;
        this.receivedBytes += bytes.length;
        this.log('in:media', String(bytes.length));
        break;
      }
      case 'mark':
        this.pendingMarks.push({ name: String(msg.mark?.name), at: this.receivedBytes });
        this.log('in:mark', String(msg.mark?.name));
        break;
      case 'clear':
        this.clears.push(atMs);
        this.log('in:clear');
        this.queue = [];
        this.queued = 0;
        this.playedBytes = this.receivedBytes;
        for (const mark of this.pendingMarks.splice(0)) this.echoMark(mark.name, atMs, true);
        break;
      default:
        this.log('in:unknown', String(msg.event));
    }
  }

  private play(atMs: number): void {
    if (this.queued > 0) {
      const frame = this.take(FRAME_SAMPLES);
      this.playedBytes += frame.length;
      this.playedFrames++;
      const samples = mulaw.decode(frame);
      const speech = rms(samples) > SPEECH_RMS;
      if (speech) {
        this.speechFrames++;
        this.heardSpeech = true;
        this.quietFrames = 0;
        this.lastSpeechAtMs = atMs;
      } else {
        this.quietFrames++;
      }
      if (this.opts.keepAudio !== false) this.keep(atMs, samples);
    } else {
      this.quietFrames++;
      this.lastSegment = null;
    }
    while (this.pendingMarks.length > 0 && this.pendingMarks[0].at <= this.playedBytes) {
      this.echoMark(this.pendingMarks.shift()!.name, atMs, false);
    }
  }

  private keep(atMs: number, samples: Int16Array): void {
    const last = this.lastSegment;
    if (last && last.atMs + (last.samples.length / 8000) * 1000 === atMs) {
      const joined = new Int16Array(last.samples.length + samples.length);
      joined.set(last.samples);
      joined.set(samples, last.samples.length);
      last.samples = joined;
    } else {
      this.lastSegment = { atMs, samples };
      this.heard.push(this.lastSegment);
    }
  }

  private take(n: number): Buffer {
    const out = Buffer.alloc(Math.min(n, this.queued));
    let at = 0;
    while (at < out.length) {
      const head = this.queue[0];
      const used = Math.min(head.length, out.length - at);
      head.copy(out, at, 0, used);
      at += used;
      if (used === head.length) this.queue.shift();
      else this.queue[0] = head.subarray(used);
    }
    this.queued -= out.length;
    return out;
  }

  private echoMark(name: string, atMs: number, cleared: boolean): void {
    this.marks.push({ name, atMs, cleared });
    this.send({ event: 'mark', sequenceNumber: String(++this.sequence), streamSid: this.streamSid, mark: { name } });
    this.log('out:mark', name);
  }

  /** Sends this frame's audio and moves the script on. */
  private speak(atMs: number): void {
    let frame: Buffer = SILENCE_FRAME;
    for (;;) {
      const step = this.opts.steps[this.step];
      if (!step) break;
      if ('say' in step) {
        if (this.sayAt === 0 && this.stepFrames === 0) this.log('step', `say ${step.label ?? ''}`.trim());
        const part = step.say.subarray(this.sayAt, this.sayAt + FRAME_SAMPLES);
        const padded = new Int16Array(FRAME_SAMPLES);
        padded.set(part);
        frame = Buffer.from(mulaw.encode(padded));
        if (this.opts.keepAudio !== false) this.said.push({ atMs, samples: padded });
        this.sayAt += FRAME_SAMPLES;
        this.stepFrames++;
        if (this.sayAt >= step.say.length) this.next();
        break;
      }
      if ('pause' in step) {
        if (this.stepFrames * FRAME_MS >= step.pause) {
          this.next();
          continue;
        }
        this.stepFrames++;
        break;
      }
      if ('waitForAssistant' in step) {
        const quiet = step.waitForAssistant.silenceMs ?? 700;
        const timedOut = step.waitForAssistant.timeoutMs !== undefined && this.stepFrames * FRAME_MS >= step.waitForAssistant.timeoutMs;
        if ((this.heardSpeech && this.quietFrames * FRAME_MS >= quiet && this.queued === 0) || timedOut) {
          this.log('step', timedOut ? 'waitForAssistant timed out' : 'assistant done');
          this.next();
          continue;
        }
        this.stepFrames++;
        break;
      }
      if ('waitUntilHearing' in step) {
        const timedOut = step.waitUntilHearing.timeoutMs !== undefined && this.stepFrames * FRAME_MS >= step.waitUntilHearing.timeoutMs;
        if (this.hearingSince === null && this.quietFrames === 0 && this.heardSpeech) this.hearingSince = this.frame;
        const after = step.waitUntilHearing.afterMs ?? 0;
        if ((this.hearingSince !== null && (this.frame - this.hearingSince) * FRAME_MS >= after) || timedOut) {
          this.log('step', timedOut ? 'waitUntilHearing timed out' : 'talking over the assistant');
          this.hearingSince = null;
          this.next();
          continue;
        }
        this.stepFrames++;
        break;
      }
      if ('dtmf' in step) {
        for (const digit of step.dtmf) {
          this.send({ event: 'dtmf', streamSid: this.streamSid, sequenceNumber: String(++this.sequence), dtmf: { track: 'inbound_track', digit } });
          this.log('out:dtmf', digit);
        }
        this.next();
        continue;
      }
      if ('hangUp' in step) {
        this.next();
        this.sendFrame(frame, atMs);
        this.hangUp();
        return;
      }
      break;
    }
    this.sendFrame(frame, atMs);
  }

  private hearingSince: number | null = null;

  private next(): void {
    this.step++;
    this.stepFrames = 0;
    this.sayAt = 0;
    // A wait counts from the moment it begins: speech heard before does not satisfy it.
    this.heardSpeech = false;
    this.hearingSince = null;
  }

  private sendFrame(frame: Buffer, atMs: number): void {
    if (this.ended) return;
    this.sequence++;
    const chunk = this.frame + 1;
    this.socket.send(
      `{"event":"media","sequenceNumber":"${this.sequence}","media":{"track":"inbound","chunk":"${chunk}","timestamp":"${atMs}","payload":"${frame.toString('base64')}"},"streamSid":"${this.streamSid}"}`,
    );
  }

  private send(msg: object): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(msg));
  }

  private log(type: StreamEvent['type'], detail?: string): void {
    if (type === 'in:media' && this.opts.keepAudio === false) return;
    this.events.push({ atMs: this.frame * FRAME_MS, type, detail });
  }

  private finish(by: 'person' | 'service' | 'network'): void {
    if (this.ended) return;
    this.ended = by;
    this.opts.onEnd(by);
  }
}

/** Drives every live stream of a double: one timer, frames counted from each stream's start so pace never drifts. */
export class FrameClock {
  private readonly streams = new Map<StreamPerson, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly speed: number) {}

  add(person: StreamPerson): void {
    this.streams.set(person, performance.now());
    if (!this.timer) this.timer = setInterval(() => this.tick(), Math.max(1, FRAME_MS / this.speed / 2));
  }

  remove(person: StreamPerson): void {
    this.streams.delete(person);
    if (this.streams.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.streams.clear();
  }

  private tick(): void {
    const now = performance.now();
    for (const [person, t0] of this.streams) {
      if (person.ended) {
        this.remove(person);
        continue;
      }
      const due = Math.floor(((now - t0) * this.speed) / FRAME_MS);
      // After a long stall, catch up at most a second at once (a real network would have lost the rest).
      for (let n = 0; person.frame < due && n < 50; n++) person.tick();
      if (person.frame < due - 50) this.streams.set(person, now - (person.frame * FRAME_MS) / this.speed);
    }
  }
}
