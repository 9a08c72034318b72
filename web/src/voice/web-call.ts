/**
 * A browser call, without any framework: shared by the dashboard's "Talk to this assistant"
 * panel and the embeddable widget (web/widget). It opens the call's media WebSocket
 * (protocol: src/telephony/web/protocol.ts) and, for a spoken call, captures the microphone
 * in an AudioWorklet as 16 kHz PCM16 in 20 ms frames and plays the assistant's audio through
 * a second worklet that honours `clear` at once and echoes each `mark` when playback reaches it.
 */
export type CallMode = 'audio' | 'text';
export type CallState = 'connecting' | 'live' | 'ended';

export interface StartedCall {
  call_id: number;
  mode: CallMode;
  media_path: string;
}

export interface CallEvents {
  state(state: CallState, detail?: string): void;
  /** A line of the conversation: the caller's (typed, or transcribed) or the assistant's. */
  line(role: 'user' | 'assistant', text: string): void;
  /** The assistant's audio was cut off (the caller spoke over it). */
  interrupted?(): void;
  /** Assistant audio arrived for playback, in milliseconds (a running total). */
  audio?(totalMs: number): void;
}

const RATE = 16_000;
/** Audio back within this long after a `clear` was a pause the assistant resumed, not an interruption. */
const RESUME_WINDOW_MS = 1000;
const FRAME = 320; // 20 ms at 16 kHz
/** At most 10 s of speech is held while the socket opens (the service queues as much again). */
const EARLY_FRAMES_MAX = 500;

/** Both worklets, loaded from one Blob so the widget needs no second file. */
const WORKLETS = `
class Capture extends AudioWorkletProcessor {
  constructor() { super(); this.buf = new Int16Array(${FRAME}); this.n = 0; }
  process(inputs) {
    const ch = inputs[0] && inputs[0][0];
    if (ch) for (let i = 0; i < ch.length; i++) {
      const s = Math.max(-1, Math.min(1, ch[i]));
      this.buf[this.n++] = s < 0 ? s * 0x8000 : s * 0x7fff;
      if (this.n === ${FRAME}) { this.port.postMessage(this.buf.buffer, [this.buf.buffer]); this.buf = new Int16Array(${FRAME}); this.n = 0; }
    }
    return true;
  }
}
class Playback extends AudioWorkletProcessor {
  constructor() {
    super(); this.queue = []; this.head = 0;
    this.port.onmessage = (e) => {
      const m = e.data;
      if (m.clear) { this.queue = []; this.head = 0; }
      else if (m.mark !== undefined) this.queue.push({ mark: m.mark });
      else this.queue.push({ pcm: new Int16Array(m.pcm) });
    };
  }
  process(_inputs, outputs) {
    const out = outputs[0][0];
    let i = 0;
    while (i < out.length && this.queue.length) {
      const item = this.queue[0];
      if (item.mark !== undefined) { this.port.postMessage({ mark: item.mark }); this.queue.shift(); continue; }
      const take = Math.min(out.length - i, item.pcm.length - this.head);
      for (let k = 0; k < take; k++) out[i + k] = item.pcm[this.head + k] / 0x8000;
      i += take; this.head += take;
      if (this.head >= item.pcm.length) { this.queue.shift(); this.head = 0; }
    }
    for (; i < out.length; i++) out[i] = 0;
    return true;
  }
}
registerProcessor('sb-capture', Capture);
registerProcessor('sb-playback', Playback);
`;

export class WebCall {
  private ws: WebSocket | null = null;
  private audio: AudioContext | null = null;
  private mic: MediaStream | null = null;
  private playback: AudioWorkletNode | null = null;
  private ended = false;
  private audioMs = 0;
  private interruptedTimer: ReturnType<typeof setTimeout> | null = null;
  /** Microphone frames captured before the socket opened, sent when it does. */
  private early: ArrayBuffer[] = [];

  private constructor(
    readonly callId: number,
    readonly mode: CallMode,
    private readonly events: CallEvents,
  ) {}

  /**
   * Starts a call: `create` asks the service for it (dashboard: POST /api/user/web-calls;
   * widget: POST /widget/calls); `origin` is the service the media socket is on.
   */
  static async start(origin: string, create: () => Promise<StartedCall>, events: CallEvents): Promise<WebCall> {
    events.state('connecting');
    const started = await create();
    const call = new WebCall(started.call_id, started.mode, events);
    // Audio needs the microphone before the socket opens: the browser may ask the user first.
    if (started.mode === 'audio') await call.openAudio();
    call.openSocket(new URL(started.media_path, origin).toString().replace(/^http/, 'ws'));
    return call;
  }

  /** A typed utterance (text calls). */
  say(text: string): void {
    if (this.mode !== 'text' || !text.trim()) return;
    this.send({ type: 'text', text: text.trim() });
    this.events.line('user', text.trim());
  }

  /** A key on the page's keypad. */
  press(digit: string): void {
    this.send({ type: 'dtmf', digit });
  }

  hangUp(): void {
    if (this.ended) return;
    this.send({ type: 'hangup' });
    this.finish('You ended the call.');
  }

  private send(message: object): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  private async openAudio(): Promise<void> {
    this.mic = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 } });
    // The context runs at 16 kHz: the browser resamples the microphone and our playback.
    const audio = new AudioContext({ sampleRate: RATE, latencyHint: 'interactive' });
    this.audio = audio;
    const url = URL.createObjectURL(new Blob([WORKLETS], { type: 'text/javascript' }));
    try {
      await audio.audioWorklet.addModule(url);
    } finally {
      URL.revokeObjectURL(url);
    }
    const capture = new AudioWorkletNode(audio, 'sb-capture', { numberOfInputs: 1, numberOfOutputs: 0 });
    capture.port.onmessage = (e: MessageEvent<ArrayBuffer>) => {
      if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(e.data);
      // The caller may speak the moment the microphone is on, before the socket has opened (a
      // slow network, a busy service): those words wait here instead of being lost.
      else if (!this.ended && this.early.length < EARLY_FRAMES_MAX) this.early.push(e.data);
    };
    audio.createMediaStreamSource(this.mic).connect(capture);
    this.playback = new AudioWorkletNode(audio, 'sb-playback', { numberOfInputs: 0, numberOfOutputs: 1, outputChannelCount: [1] });
    this.playback.port.onmessage = (e: MessageEvent<{ mark: string }>) => this.send({ type: 'mark', name: e.data.mark });
    this.playback.connect(audio.destination);
    if (audio.state === 'suspended') await audio.resume();
  }

  private openSocket(url: string): void {
    const ws = new WebSocket(url);
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    ws.onopen = () => {
      for (const frame of this.early.splice(0)) ws.send(frame);
    };
    ws.onmessage = (e: MessageEvent<ArrayBuffer | string>) => {
      if (typeof e.data !== 'string') {
        // Audio again soon after a clear: the assistant only paused (the caller said "mhm") and plays on.
        if (this.interruptedTimer !== null) clearTimeout(this.interruptedTimer);
        this.interruptedTimer = null;
        this.audioMs += e.data.byteLength / 2 / (RATE / 1000);
        this.events.audio?.(Math.round(this.audioMs));
        this.playback?.port.postMessage({ pcm: e.data }, [e.data]);
        return;
      }
      const m = JSON.parse(e.data) as { type: string; text?: string; role?: 'user' | 'assistant'; name?: string; reason?: string };
      switch (m.type) {
        case 'ready':
          this.events.state('live');
          break;
        case 'assistant':
          this.events.line('assistant', m.text ?? '');
          break;
        case 'transcript':
          this.events.line(m.role ?? 'assistant', m.text ?? '');
          break;
        case 'mark':
          if (this.playback) this.playback.port.postMessage({ mark: m.name });
          else this.send({ type: 'mark', name: m.name });
          break;
        case 'clear':
          this.playback?.port.postMessage({ clear: true });
          // A clear is first a pause (the caller's words decide): it is an interruption once the
          // assistant's audio does not come back soon (a backchannel resumes it within a second).
          if (this.interruptedTimer !== null) clearTimeout(this.interruptedTimer);
          this.interruptedTimer = setTimeout(() => {
            this.interruptedTimer = null;
            this.events.interrupted?.();
          }, RESUME_WINDOW_MS);
          break;
        case 'ended':
          this.finish(m.reason ?? 'The call has ended.');
          break;
      }
    };
    // 4429: the owner's lines are all busy (the call takes its slot when the page connects).
    ws.onclose = (e) =>
      this.finish(e.code === 4401 ? 'The call could not be connected.' : e.code === 4429 ? 'All lines are busy; please try again in a moment.' : 'The call has ended.');
  }

  private finish(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    if (this.interruptedTimer !== null) clearTimeout(this.interruptedTimer);
    this.ws?.close();
    for (const track of this.mic?.getTracks() ?? []) track.stop();
    void this.audio?.close().catch(() => undefined);
    this.events.state('ended', reason);
  }
}
