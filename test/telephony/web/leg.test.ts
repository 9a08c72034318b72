/** The web carrier's leg on a socket double: marks, clear, audio framing, DTMF, hang-ups. */
import { describe, expect, it } from 'vitest';
import { WebCarrier, type BrowserSocket } from '../../../src/telephony/web/carrier.js';
import type { LegEvent } from '../../../src/telephony/types.js';

class PageSocket implements BrowserSocket {
  sent: (string | Uint8Array)[] = [];
  closedWith: number | null = null;
  private message: (data: string | Uint8Array, binary: boolean) => void = () => undefined;
  private closeListeners: (() => void)[] = [];
  send(data: string | Uint8Array) {
    this.sent.push(data);
  }
  close(code = 1000) {
    this.closedWith = code;
    for (const l of this.closeListeners.splice(0)) l();
  }
  onMessage(l: (data: string | Uint8Array, binary: boolean) => void) {
    this.message = l;
  }
  onClose(l: () => void) {
    this.closeListeners.push(l);
  }
  fromPage(message: object | Uint8Array) {
    if (message instanceof Uint8Array) this.message(message, true);
    else this.message(JSON.stringify(message), false);
  }
  json() {
    return this.sent.filter((s): s is string => typeof s === 'string').map((s) => JSON.parse(s));
  }
}

async function connected(mode: 'audio' | 'text') {
  const carrier = new WebCarrier();
  const socket = new PageSocket();
  carrier.attach(7, socket, mode);
  const leg = carrier.dial({ callId: 7, customer: '', assistant: '', direction: 'inbound' });
  const events: LegEvent[] = [];
  leg.onEvent((e) => events.push(e));
  leg.start();
  await Promise.resolve();
  return { leg, socket, events };
}

describe('WebLeg', () => {
  it('answers at once and tells the page its mode and rate', async () => {
    const { socket, events, leg } = await connected('audio');
    expect(events).toEqual([{ type: 'answered', answeredBy: 'human' }]);
    expect(socket.json()[0]).toEqual({ type: 'ready', mode: 'audio', sampleRate: 16000, callId: 7 });
    expect(leg.media?.sampleRate).toBe(16000);
    expect(leg.say).toBeUndefined();
  });

  it('reports marks as played when the page echoes them, and pending ones as cleared on clear', async () => {
    const { leg, socket } = await connected('audio');
    const marks: [string, boolean][] = [];
    leg.media!.onMark((name, cleared) => marks.push([name, cleared]));
    leg.media!.play(new Int16Array([1, 2, 3]));
    leg.media!.mark('a');
    leg.media!.play(new Int16Array([4]));
    leg.media!.mark('b');
    leg.media!.mark('c');
    // The page echoes b: a was played before it.
    socket.fromPage({ type: 'mark', name: 'b' });
    expect(marks).toEqual([['a', false], ['b', false]]);
    leg.media!.clear();
    expect(marks).toEqual([['a', false], ['b', false], ['c', true]]);
    expect(socket.json().map((m) => m.type)).toEqual(['ready', 'mark', 'mark', 'mark', 'clear']);
    // A late echo of a cleared mark changes nothing.
    socket.fromPage({ type: 'mark', name: 'c' });
    expect(marks).toHaveLength(3);
    const audio = socket.sent.filter((s) => typeof s !== 'string') as Uint8Array[];
    expect(audio.map((a) => [...new Int16Array(a.buffer.slice(a.byteOffset, a.byteOffset + a.byteLength))])).toEqual([[1, 2, 3], [4]]);
  });

  it('reassembles PCM16 from frames that split a sample', async () => {
    const { leg, socket } = await connected('audio');
    const got: number[] = [];
    leg.media!.onAudio((s) => got.push(...s));
    const bytes = new Uint8Array(new Int16Array([1000, -2000, 3000]).buffer);
    socket.fromPage(bytes.subarray(0, 3));
    socket.fromPage(bytes.subarray(3));
    expect(got).toEqual([1000, -2000, 3000]);
  });

  it('carries typed utterances and DTMF, ignores malformed messages, and reports the page hanging up', async () => {
    const { leg, socket, events } = await connected('text');
    await leg.say!('Hi there');
    expect(socket.json()[1]).toEqual({ type: 'assistant', text: 'Hi there' });
    socket.fromPage({ type: 'text', text: '  I need help  ' });
    socket.fromPage({ type: 'dtmf', digit: '5' });
    socket.fromPage({ type: 'dtmf', digit: 'x' });
    socket.fromPage({ type: 'text', text: '' });
    socket.fromPage({ nonsense: true });
    socket.fromPage({ type: 'hangup' });
    socket.fromPage({ type: 'text', text: 'after the end' });
    expect(events).toEqual([
      { type: 'answered', answeredBy: 'human' },
      { type: 'customer-said', text: 'I need help' },
      { type: 'dtmf', digit: '5' },
      { type: 'hung-up' },
    ]);
  });

  it('fails a call whose page is not connected, and our hang-up closes the page with a reason', async () => {
    const carrier = new WebCarrier();
    const leg = carrier.dial({ callId: 1, customer: '', assistant: '', direction: 'inbound' });
    const events: LegEvent[] = [];
    leg.onEvent((e) => events.push(e));
    leg.start();
    await Promise.resolve();
    expect(events).toEqual([{ type: 'unanswered', outcome: 'failed' }]);

    const { leg: live, socket, events: liveEvents } = await connected('text');
    live.hangUp('Goodbye');
    expect(socket.json().at(-1)).toEqual({ type: 'ended', reason: 'Goodbye' });
    expect(socket.closedWith).toBe(1000);
    expect(liveEvents).toEqual([{ type: 'answered', answeredBy: 'human' }]);
  });
});
