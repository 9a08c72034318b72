import { describe, expect, it } from 'vitest';
import { mulaw } from '../../../src/audio/g711.js';
import { TwilioMediaStream, type MediaSocket } from '../../../src/telephony/twilio/media-stream.js';

/** The messages the stream writes, parsed (the socket side of the wire). */
function recordingSocket() {
  const sent: { event: string; payload?: Int16Array; mark?: string }[] = [];
  const socket: MediaSocket = {
    send(data: string) {
      const msg = JSON.parse(data) as { event: string; media?: { payload: string }; mark?: { name: string } };
      sent.push({ event: msg.event, payload: msg.media ? mulaw.decode(Buffer.from(msg.media.payload, 'base64')) : undefined, mark: msg.mark?.name });
    },
    close() {},
  };
  return { socket, sent };
}

const START = { streamSid: 'MZ1', accountSid: 'AC1', callSid: 'CA1', tracks: ['inbound'], customParameters: {}, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } };
const frame = (value: number) => new Int16Array(160).fill(value);
const tick = () => new Promise((r) => setImmediate(r));

describe('TwilioMediaStream outbound audio', () => {
  it('sends the frames played in one synchronous run as one media message, in order', async () => {
    const { socket, sent } = recordingSocket();
    const stream = new TwilioMediaStream(socket, START);
    stream.play(frame(1000));
    stream.play(frame(2000));
    stream.play(frame(3000));
    expect(sent).toEqual([]);
    await tick();
    expect(sent.map((m) => m.event)).toEqual(['media']);
    const audio = sent[0]!.payload!;
    expect(audio.length).toBe(480);
    // μ-law keeps the levels' order: the three frames in the order played.
    expect(audio[0]! < audio[160]! && audio[160]! < audio[320]!).toBe(true);
    stream.play(frame(1000));
    await tick();
    expect(sent.map((m) => m.event)).toEqual(['media', 'media']);
  });

  it('sends the audio before a mark ahead of it, and a clear drops what was not sent', async () => {
    const { socket, sent } = recordingSocket();
    const stream = new TwilioMediaStream(socket, START);
    const marks: [string, boolean][] = [];
    stream.onMark((name, cleared) => marks.push([name, cleared]));
    stream.play(frame(1000));
    stream.mark('first');
    stream.play(frame(2000));
    stream.clear();
    await tick();
    expect(sent.map((m) => m.event)).toEqual(['media', 'mark', 'clear']);
    expect(sent[0]!.payload!.length).toBe(160);
    expect(marks).toEqual([['first', true]]);
  });

  it('splits a long run into messages of at most one second', async () => {
    const { socket, sent } = recordingSocket();
    const stream = new TwilioMediaStream(socket, START);
    for (let i = 0; i < 60; i++) stream.play(frame(500));
    await tick();
    expect(sent.map((m) => m.payload!.length)).toEqual([8000, 1600]);
  });
});
