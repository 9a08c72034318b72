/**
 * Issue 27 item 4, the review of every streaming adapter: a vendor that sends without end, or
 * one message too large, ends that stream with an error naming the limit; nothing is read or
 * kept beyond it. Each case is a local server speaking the vendor's protocol, misbehaving.
 */
import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { OpenAiRealtime } from '../../src/providers/realtime/openai/index.js';
import type { RealtimeEvent } from '../../src/providers/realtime/types.js';
import { DeepgramStt } from '../../src/providers/stt/deepgram/index.js';
import { OpenAiStt } from '../../src/providers/stt/openai/index.js';
import type { SttEvent } from '../../src/providers/stt/types.js';
import { ElevenLabsTts } from '../../src/providers/tts/elevenlabs/index.js';
import { OpenAiTts } from '../../src/providers/tts/openai/index.js';
import type { TtsEvent } from '../../src/providers/tts/types.js';
import { recordEvents } from '../support/doubles/recorder.js';
import { LocalServer } from '../support/doubles/server.js';
import { fixtureAudio } from '../support/audio-fixtures.js';

let server: LocalServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function serve(onRequest?: http.RequestListener, onSocket?: (ws: WebSocket) => void): Promise<LocalServer> {
  const s: LocalServer = new LocalServer(onRequest, (req, socket, head) => void s.accept(req, socket, head).then((ws) => onSocket?.(ws)));
  await s.listen();
  server = s;
  return s;
}

/** Writes `block` for as long as the peer reads (backpressure honoured), until it goes away. */
function flood(res: http.ServerResponse, block: Buffer): void {
  const pump = () => {
    while (!res.destroyed) if (!res.write(block)) return void res.once('drain', pump);
  };
  pump();
}

/** Sends `message()` for as long as the socket is open, yielding between bursts. */
function floodSocket(ws: WebSocket, message: () => string): void {
  const burst = () => {
    if (ws.readyState !== WebSocket.OPEN) return;
    for (let i = 0; i < 20; i++) ws.send(message());
    setImmediate(burst);
  };
  burst();
}

/** One second of PCM16 silence at `rate`, base64. */
const secondOf = (rate: number) => Buffer.alloc(rate * 2).toString('base64');

describe('TTS', () => {
  it('OpenAI-compatible: endless audio for a sentence ends at its audio budget', async () => {
    const s = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'audio/pcm' });
      flood(res, Buffer.alloc(64 * 1024));
    });
    const rec = recordEvents<TtsEvent>();
    const stream = new OpenAiTts({ baseUrl: s.origin('http'), model: 'tts-1' }).open({ voice: 'alloy', sampleRate: 24_000, language: 'en' }, rec.emit);
    stream.push('Hello there.');
    stream.end();
    const error = await rec.until('error', 20_000);
    expect(error).toMatchObject({ message: 'OpenAI-compatible TTS: the server sent more than 33 s of audio for 12 characters' });
    const samples = rec.events.reduce((n, e) => n + (e.type === 'audio' ? e.samples.length : 0), 0);
    expect(samples / 24_000).toBeLessThanOrEqual(33);
  });

  it('ElevenLabs: endless audio ends at the budget of the text pushed; one oversized message ends the stream', async () => {
    await serve(undefined, (ws) => ws.once('message', () => floodSocket(ws, () => JSON.stringify({ audio: secondOf(24_000), isFinal: null }))));
    const tts = () => new ElevenLabsTts({ url: server!.origin('ws'), apiKey: 'k', model: 'eleven_flash_v2_5' });
    let rec = recordEvents<TtsEvent>();
    let stream = tts().open({ voice: 'v', sampleRate: 24_000, language: 'en' }, rec.emit);
    stream.push('Hello there.');
    expect(await rec.until('error', 20_000)).toMatchObject({ message: 'ElevenLabs sent more than 33 s of audio for 11 characters' });
    await server!.close();

    await serve(undefined, (ws) => ws.once('message', () => ws.send(JSON.stringify({ audio: 'A'.repeat(9 * 1024 * 1024) }))));
    rec = recordEvents<TtsEvent>();
    stream = tts().open({ voice: 'v', sampleRate: 24_000, language: 'en' }, rec.emit);
    stream.push('Hello.');
    expect(await rec.until('error')).toMatchObject({ message: expect.stringMatching(/^ElevenLabs connection failed: Max payload size exceeded/) });
  });
});

describe('STT', () => {
  it('Deepgram: a message over 1 MiB ends the stream as a failure', async () => {
    await serve(undefined, (ws) => ws.send(JSON.stringify({ type: 'Results', channel: { alternatives: [{ transcript: 'x'.repeat(2 * 1024 * 1024) }] } })));
    const rec = recordEvents<SttEvent>();
    await new DeepgramStt({ url: server!.origin('ws'), apiKey: 'k' }).open({ sampleRate: 16_000, language: 'en' }, rec.emit);
    expect(await rec.until('error')).toMatchObject({ fatal: true, message: expect.stringMatching(/^Deepgram connection failed: Max payload size exceeded/) });
  });

  it('OpenAI-compatible: an endless answer is read up to 1 MiB and reported as an error', async () => {
    const s = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"text":"');
      flood(res, Buffer.alloc(64 * 1024, 'a'));
    });
    const rec = recordEvents<SttEvent>();
    const stream = await new OpenAiStt({ baseUrl: s.origin('http'), model: 'whisper-1' }).open({ sampleRate: 16_000, language: 'en' }, rec.emit);
    stream.write(fixtureAudio('book-appointment'));
    stream.finalize();
    expect(await rec.until('error', 20_000)).toMatchObject({ message: 'transcription answer exceeded 1,048,576 bytes' });
    // …and the caller's turn is not left waiting for words.
    expect(await rec.until('transcript')).toMatchObject({ text: '', isFinal: true });
  });
});

describe('realtime', () => {
  it('an answer whose audio does not stop ends the session after 5 minutes of audio', async () => {
    await serve(undefined, (ws) => {
      ws.once('message', () => {
        ws.send(JSON.stringify({ type: 'session.updated', session: {} }));
        ws.send(JSON.stringify({ type: 'response.created', response: { id: 'resp_1' } }));
        floodSocket(ws, () => JSON.stringify({ type: 'response.output_audio.delta', item_id: 'item_1', delta: secondOf(8000) }));
      });
    });
    const rec = recordEvents<RealtimeEvent>();
    await new OpenAiRealtime({ url: `${server!.origin('ws')}/v1/realtime` }).open(
      { instructions: 'Be brief.', voice: 'alloy', language: 'en', sampleRate: 8000, tools: [], turnDetection: null },
      rec.emit,
    );
    expect(await rec.next((e) => e.type === 'error', 20_000)).toMatchObject({ fatal: true, message: 'realtime answer exceeded 300 s of audio' });
  });
});
