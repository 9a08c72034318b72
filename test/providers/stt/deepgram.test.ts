import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { concat, silence } from '../../../src/audio/pcm.js';
import { DeepgramStt } from '../../../src/providers/stt/deepgram/index.js';
import type { SttEvent, SttProvider, SttStream, SttStreamOptions } from '../../../src/providers/stt/types.js';
import { ClipBook, speechLike } from '../../support/doubles/clips.js';
import { DeepgramDouble } from '../../support/doubles/deepgram.js';
import { openRecorded, playFrames } from '../../support/stt-stream.js';

const clips = new ClipBook();
let double: DeepgramDouble;
const RATE = 8000;
const GREETING = 'Hello, I would like to book a table for two.';
const YES = 'Yes, please, at eight.';

beforeAll(async () => {
  double = await new DeepgramDouble(clips).start();
  clips.say(GREETING, RATE);
  clips.say(YES, RATE);
});
afterAll(() => double.close());
beforeEach(() =>
  Object.assign(double.knobs, { failAuth: false, finalDelayMs: 0, dropSpeechFinal: false, dropUtteranceEnd: false, closeAfterAudioMs: null, idleCloseMs: 10_000 }),
);

const stt = (over: Partial<ConstructorParameters<typeof DeepgramStt>[0]> = {}) => new DeepgramStt({ url: double.url, apiKey: double.knobs.apiKey, ...over });
const options: SttStreamOptions = { sampleRate: RATE, language: 'en', endpointingMs: 300, utteranceEndMs: 1000 };

const open = (provider: SttProvider = stt(), opts = options) => openRecorded(provider, opts);
const play = (stream: SttStream, samples: Int16Array) => playFrames(stream, samples, RATE);

/** Waits until the stream just opened is connected (the double has it, and the client's open has run). */
async function connected(): Promise<void> {
  const before = double.connections.length;
  for (let i = 0; i < 100 && double.connections.length === before; i++) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 50));
}

const utterance = (text: string, trailingMs = 1300) => concat([silence(200, RATE), clips.say(text, RATE), silence(trailingMs, RATE)]);

describe('Deepgram live adapter against the Deepgram double', () => {
  it('sends the settings in the query string and the key as a Token header', async () => {
    const { stream } = await open(stt({ model: 'nova-3' }), { ...options, keywords: ['Anna', ' '] });
    play(stream, silence(100, RATE));
    await stream.close();
    const q = double.connections.at(-1)!.query;
    expect(Object.fromEntries(q)).toMatchObject({
      model: 'nova-3', language: 'en', encoding: 'linear16', sample_rate: '8000', channels: '1', interim_results: 'true',
      endpointing: '300', utterance_end_ms: '1000', vad_events: 'true', smart_format: 'true',
    });
    expect(q.getAll('keyterm')).toEqual(['Anna']);
  });

  it('reports speech-started, interim and final transcripts, speech_final and utterance-end for real speech, in that order', async () => {
    const { stream, events, next } = await open();
    play(stream, utterance(GREETING));
    await next((e) => e.type === 'utterance-end');
    const kinds = events.map((e) => (e.type === 'transcript' ? `${e.isFinal ? 'final' : 'interim'}${e.speechFinal ? '+speech_final' : ''}` : e.type));
    expect(kinds[0]).toBe('speech-started');
    expect(kinds).toContain('interim');
    expect(kinds.slice(-2)).toEqual(['final+speech_final', 'utterance-end']);
    const interims = events.filter((e): e is Extract<SttEvent, { type: 'transcript' }> => e.type === 'transcript' && !e.isFinal);
    for (const i of interims) expect(GREETING.startsWith(i.text)).toBe(true);
    const final = events.find((e) => e.type === 'transcript' && e.isFinal);
    expect(final).toEqual({ type: 'transcript', text: GREETING, isFinal: true, speechFinal: true });
    expect(double.connections.at(-1)!.heard[0].score).toBeGreaterThan(0.9);
    await stream.close();
  });

  it('still ends the turn by utterance-end when speech_final never comes', async () => {
    double.knobs.dropSpeechFinal = true;
    const { stream, events, next } = await open();
    play(stream, utterance(YES));
    await next((e) => e.type === 'utterance-end');
    const finals = events.filter((e) => e.type === 'transcript' && e.isFinal);
    expect(finals).toEqual([{ type: 'transcript', text: YES, isFinal: true, speechFinal: false }]);
    await stream.close();
  });

  it('finalize forces out what was heard so far (from_finalize), and close ends with Metadata and a clean close', async () => {
    const { stream, events, next } = await open();
    play(stream, concat([silence(100, RATE), clips.say(YES, RATE)])); // no trailing silence: no endpoint yet
    stream.finalize();
    const final = await next((e) => e.type === 'transcript' && e.isFinal);
    expect(final).toMatchObject({ text: YES, speechFinal: false });
    const conn = double.connections.at(-1)!;
    await stream.close();
    expect(conn.controls.map((c) => c.type)).toEqual(['Finalize', 'CloseStream']);
    expect(conn.sent.find((m) => m.from_finalize)).toMatchObject({ type: 'Results', is_final: true });
    expect(conn.sent.at(-1)!.type).toBe('Metadata');
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
  });

  it('finalize in a pause inside a sentence gives the words so far, and the words after it follow as their own final', async () => {
    const first = speechLike('Right,', RATE).samples;
    const rest = speechLike('that works.', RATE).samples;
    // A double of its own: this clip must not be a candidate in the other tests.
    const own = new ClipBook();
    own.add('Right, that works.', concat([first, silence(500, RATE), rest]), RATE);
    const ownDouble = await new DeepgramDouble(own).start();
    const { stream, events, next } = await open(stt({ url: ownDouble.url }));
    play(stream, concat([silence(100, RATE), first, silence(200, RATE)])); // 200 ms: no endpoint yet
    stream.finalize();
    const cut = await next((e) => e.type === 'transcript' && e.isFinal);
    expect(cut).toMatchObject({ text: 'Right,', speechFinal: false });
    play(stream, concat([silence(300, RATE), rest, silence(1300, RATE)]));
    await next((e) => e.type === 'utterance-end');
    const finals = events.filter((e) => e.type === 'transcript' && e.isFinal).map((e) => e.type === 'transcript' && e.text);
    expect(finals).toEqual(['Right,', 'that works.']);
    const interims = events.filter((e) => e.type === 'transcript' && !e.isFinal).map((e) => e.type === 'transcript' && e.text);
    expect(interims.length).toBeGreaterThan(0);
    for (const text of interims.slice(interims.lastIndexOf('Right,') + 1)) expect(['that', 'that works.']).toContain(text);
    await stream.close();
    await ownDouble.close();
  });

  it('sends the 20 ms frames it is given two at a time (40 ms messages); a control message sends the held frame first', async () => {
    const { stream } = await open();
    await connected(); // frames go out as written, not from the connecting buffer
    play(stream, silence(100, RATE)); // five frames: two messages of 40 ms and one frame held
    await new Promise((r) => setTimeout(r, 100));
    const conn = double.connections.at(-1)!;
    expect(conn.chunks).toEqual([640, 640]);
    stream.finalize();
    await stream.close();
    expect(conn.chunks.slice(0, 5)).toEqual([640, 640, 320, 'control:Finalize', 'control:CloseStream']);
  });

  it('sends each frame as it comes with chunkMs 20 (one message per 20 ms frame)', async () => {
    const { stream } = await open(stt({ chunkMs: 20 }));
    await connected();
    play(stream, silence(60, RATE));
    await stream.close();
    expect(double.connections.at(-1)!.chunks.slice(0, 4)).toEqual([320, 320, 320, 'control:CloseStream']);
  });

  it('keeps the audio written while connecting and sends it in order once open', async () => {
    const { stream, next } = await open();
    play(stream, utterance(GREETING)); // written at once, before the handshake completes
    await next((e) => e.type === 'transcript' && e.isFinal);
    await stream.close();
    expect(double.connections.at(-1)!.heard.map((h) => h.text)).toEqual([GREETING]);
  });

  it('drops the oldest audio beyond maxPendingMs while connecting, saying so once (non-fatal)', async () => {
    const { stream, events } = await open(stt({ maxPendingMs: 1000 }));
    play(stream, concat([utterance(GREETING, 0), utterance(YES)]));
    await stream.close();
    expect(events.filter((e) => e.type === 'error')).toEqual([{ type: 'error', fatal: false, message: 'Deepgram is not connected yet: the oldest buffered audio was dropped' }]);
    // Only the last second arrived (trailing silence): nothing of the greeting was heard.
    const conn = double.connections.at(-1)!;
    expect(conn.audioMs).toBeLessThanOrEqual(1000);
    expect(conn.audioMs).toBeGreaterThan(900);
    expect(conn.heard.map((h) => h.text)).not.toContain(GREETING);
  });

  it('sends KeepAlive while no audio flows, so the idle close never comes', async () => {
    double.knobs.idleCloseMs = 300;
    const { stream, events } = await open(stt({ keepAliveMs: 100 }));
    await new Promise((r) => setTimeout(r, 700));
    const conn = double.connections.at(-1)!;
    expect(conn.controls.filter((c) => c.type === 'KeepAlive').length).toBeGreaterThanOrEqual(3);
    expect(conn.closed).toBe(false);
    expect(events).toEqual([]);
    await stream.close();
  });

  it('reports the idle close as a fatal error when nothing keeps the stream alive', async () => {
    double.knobs.idleCloseMs = 200;
    const { next, stream } = await open(stt({ keepAliveMs: 60_000 }));
    const error = await next((e) => e.type === 'error');
    expect(error).toMatchObject({ fatal: true, message: expect.stringContaining('1011') });
    expect((error as { message: string }).message).toContain('net0001');
    await stream.close();
  });

  it('reports a refused key as a fatal error naming the HTTP status and Deepgram\'s reason', async () => {
    double.knobs.failAuth = true;
    const { next } = await open();
    const error = await next((e) => e.type === 'error');
    expect(error).toEqual({ type: 'error', fatal: true, message: 'Deepgram refused the connection: HTTP 401 Invalid credentials.' });
  });

  it('reports a close in the middle of the stream as fatal; a new stream then works (the core reconnects)', async () => {
    double.knobs.closeAfterAudioMs = 300;
    const first = await open();
    play(first.stream, utterance(GREETING));
    const error = await first.next((e) => e.type === 'error');
    expect(error).toMatchObject({ fatal: true, message: expect.stringContaining('Deepgram closed the stream: 1011') });
    first.stream.write(silence(20, RATE)); // ignored after the stream is gone
    double.knobs.closeAfterAudioMs = null;
    const second = await open();
    play(second.stream, utterance(YES));
    expect(await second.next((e) => e.type === 'transcript' && e.isFinal)).toMatchObject({ text: YES });
    await second.stream.close();
  });

  it('delivers delayed finals in order, and close waits for the last results before the socket closes', async () => {
    double.knobs.finalDelayMs = 150;
    const { stream, events } = await open();
    stream.write(silence(20, RATE));
    await new Promise((r) => setTimeout(r, 100)); // connected: nothing is held back
    play(stream, concat([utterance(GREETING, 500), utterance(YES, 100)]));
    await stream.close();
    const finals = events.flatMap((e) => (e.type === 'transcript' && e.isFinal && e.text ? [e.text] : []));
    expect(finals).toEqual([GREETING, YES]);
  });

  it('leaves an utterance no clip matches empty rather than inventing words', async () => {
    const { stream, events } = await open();
    play(stream, concat([silence(100, RATE), new ClipBook().say('Completely unregistered words here.', RATE), silence(400, RATE)]));
    await stream.close();
    const conn = double.connections.at(-1)!;
    expect(conn.heard).toHaveLength(1);
    expect(conn.heard[0].score).toBe(0);
    // The empty speech_final still ends the caller's turn.
    expect(events.filter((e) => e.type === 'transcript')).toEqual([{ type: 'transcript', text: '', isFinal: true, speechFinal: true }]);
  });

  it('close() right after open, before the handshake finished, still sends CloseStream and ends cleanly', async () => {
    const { stream, events } = await open();
    stream.write(clips.say(YES, RATE));
    await stream.close();
    const conn = double.connections.at(-1)!;
    expect(conn.controls.map((c) => c.type)).toEqual(['CloseStream']);
    expect(conn.sent.at(-1)!.type).toBe('Metadata');
    expect(conn.heard.map((h) => h.text)).toEqual([YES]);
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
  });

  it('reports an unreachable server as a fatal connection error', async () => {
    const { next } = await open(stt({ url: 'ws://127.0.0.1:1/v1/listen' }));
    expect(await next((e) => e.type === 'error')).toMatchObject({ fatal: true, message: expect.stringContaining('Deepgram connection failed') });
  });

  it('passes on the empty final that answers a Finalize when nothing was heard, so a waiting core need not time out', async () => {
    const { stream, next } = await open();
    play(stream, silence(300, RATE));
    stream.finalize();
    expect(await next((e) => e.type === 'transcript')).toEqual({ type: 'transcript', text: '', isFinal: true, speechFinal: false });
    await stream.close();
  });

  it('with UtteranceEnd dropped, speech_final alone ends the turn (no utterance-end event)', async () => {
    double.knobs.dropUtteranceEnd = true;
    const { stream, events, next } = await open();
    play(stream, utterance(YES, 1500));
    await next((e) => e.type === 'transcript' && e.speechFinal);
    await stream.close();
    expect(events.some((e) => e.type === 'utterance-end')).toBe(false);
  });
});

describe('Deepgram double', () => {
  it('takes the key as the ["token", key] subprotocols (browsers) and refuses a wrong one', async () => {
    const { default: WebSocket } = await import('ws');
    const url = `${double.url}?encoding=linear16&sample_rate=16000`;
    const ok = new WebSocket(url, ['token', double.knobs.apiKey]);
    await new Promise((resolve, reject) => (ok.once('open', resolve), ok.once('error', reject)));
    ok.close();
    const bad = new WebSocket(url, ['token', 'wrong']);
    const status = await new Promise<number>((resolve) => bad.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(401);
    bad.on('error', () => undefined);
    bad.terminate();
    const noRate = new WebSocket(`${double.url}?encoding=linear16`, { headers: { Authorization: `Token ${double.knobs.apiKey}` } });
    const refused = await new Promise<{ status: number; reason: string }>((resolve) =>
      noRate.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0, reason: String(res.headers['dg-error']) })),
    );
    expect(refused.status).toBe(400);
    expect(refused.reason).toContain('sample_rate');
    noRate.on('error', () => undefined);
    noRate.terminate();
  });
});
