import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { concat, silence } from '../../../src/audio/pcm.js';
import { loadConfig } from '../../../src/config.js';
import { speechProviders } from '../../../src/providers/speech.js';
import { DeepgramFluxStt, fluxUrl, isFluxModel } from '../../../src/providers/stt/deepgram/flux.js';
import { DeepgramStt } from '../../../src/providers/stt/deepgram/index.js';
import type { SttEvent, SttProvider, SttStream, SttStreamOptions } from '../../../src/providers/stt/types.js';
import { ClipBook } from '../../support/doubles/clips.js';
import { DeepgramFluxDouble } from '../../support/doubles/deepgram-flux.js';
import { openRecorded, playFrames } from '../../support/stt-stream.js';

const clips = new ClipBook();
let double: DeepgramFluxDouble;
const RATE = 8000;
const GREETING = 'Hello, I would like to book a table for two.';
const YES = 'Yes, please, at eight.';

beforeAll(async () => {
  double = await new DeepgramFluxDouble(clips).start();
  clips.say(GREETING, RATE);
  clips.say(YES, RATE);
});
afterAll(() => double.close());
beforeEach(() => Object.assign(double.knobs, { failAuth: false, confidence: () => 0.9, eotDelayMs: 100, fatalAfterAudioMs: null }));

// All audio is written at once, before the handshake: keep all of it (the calls' default keeps 5 s).
const stt = (over: Partial<ConstructorParameters<typeof DeepgramFluxStt>[0]> = {}) => new DeepgramFluxStt({ url: double.url, apiKey: double.knobs.apiKey, maxPendingMs: 30_000, ...over });
const options: SttStreamOptions = { sampleRate: RATE, language: 'en' };

const open = (provider: SttProvider = stt(), opts = options) => openRecorded(provider, opts);
const play = (stream: SttStream, samples: Int16Array) => playFrames(stream, samples, RATE);

const utterance = (text: string, trailingMs = 800) => concat([silence(200, RATE), clips.say(text, RATE), silence(trailingMs, RATE)]);
const turnEvents = (events: SttEvent[]) => events.filter((e): e is Extract<SttEvent, { type: 'turn' }> => e.type === 'turn');
const isEnd = (e: SttEvent) => e.type === 'turn' && e.event === 'end';

describe('choosing Flux', () => {
  it('a Flux model name selects Flux on /v2/listen; other models keep live /v1/listen', () => {
    expect(isFluxModel('flux-general-en')).toBe(true);
    expect(isFluxModel('Flux-General-Multi')).toBe(true);
    expect(isFluxModel('nova-3')).toBe(false);
    expect(isFluxModel(undefined)).toBe(false);
    expect(fluxUrl('wss://api.deepgram.com/v1/listen')).toBe('wss://api.deepgram.com/v2/listen');
    expect(fluxUrl('wss://api.eu.deepgram.com/v1/listen/')).toBe('wss://api.eu.deepgram.com/v2/listen');
    expect(fluxUrl('ws://proxy.local/deepgram')).toBe('ws://proxy.local/deepgram');

    const flux = speechProviders(loadConfig({ DEEPGRAM_API_KEY: 'dg', DEEPGRAM_MODEL: 'flux-general-en' })).stt[0];
    expect(flux).toBeInstanceOf(DeepgramFluxStt);
    expect(flux.name).toBe('deepgram');
    expect((flux as DeepgramFluxStt).listenUrl(options)).toMatch(/^wss:\/\/api\.deepgram\.com\/v2\/listen\?model=flux-general-en&/);
    const live = speechProviders(loadConfig({ DEEPGRAM_API_KEY: 'dg', DEEPGRAM_MODEL: 'nova-2' })).stt[0];
    expect(live).toBeInstanceOf(DeepgramStt);
    expect((live as DeepgramStt).listenUrl(options)).toContain('/v1/listen?model=nova-2&');
    expect(speechProviders(loadConfig({ DEEPGRAM_API_KEY: 'dg' })).stt[0]).toBeInstanceOf(DeepgramStt);
  });

  it('sends the model, raw-audio settings, thresholds and key terms in the query string; no language parameter', async () => {
    const { stream } = await open(stt(), { ...options, keywords: ['Anna', ' '], turn: { eotThreshold: 0.8, eagerEotThreshold: 0.95, eotTimeoutMs: 3000 } });
    play(stream, silence(200, RATE));
    await stream.close();
    const q = double.connections.at(-1)!.query;
    // eager above Deepgram's 0.9 cap (and above eot) is clamped, so the handshake is not refused.
    expect(Object.fromEntries(q)).toEqual({ model: 'flux-general-en', encoding: 'linear16', sample_rate: '8000', eot_threshold: '0.8', eager_eot_threshold: '0.8', eot_timeout_ms: '3000', keyterm: 'Anna' });
    expect(new DeepgramFluxStt({ url: double.url, apiKey: 'k', model: 'flux-general-multi' }).listenUrl({ ...options, language: 'de-DE' })).toContain('language_hint=de');
  });
});

describe('Deepgram Flux adapter against the Flux double', () => {
  it('a plain turn: StartOfTurn, Updates, EndOfTurn, and beside them speech-started, interims and a final with speechFinal', async () => {
    const { stream, events, next } = await open();
    play(stream, utterance(GREETING));
    await next(isEnd);
    const turns = turnEvents(events);
    expect(turns[0]).toMatchObject({ event: 'start', turnIndex: 0 });
    expect(turns.map((t) => t.event)).toContain('update');
    expect(turns.at(-1)).toMatchObject({ event: 'end', transcript: GREETING, trigger: 'model', turnIndex: 0, confidence: 0.9 });
    const plain = events.filter((e) => e.type !== 'turn');
    expect(plain[0]).toEqual({ type: 'speech-started' });
    const interims = plain.filter((e): e is Extract<SttEvent, { type: 'transcript' }> => e.type === 'transcript' && !e.isFinal);
    expect(interims.length).toBeGreaterThan(0);
    for (const i of interims) expect(GREETING.startsWith(i.text)).toBe(true);
    // Updates repeat the text every 250 ms: an interim only when it changed.
    expect(new Set(interims.map((i) => i.text)).size).toBe(interims.length);
    expect(plain.at(-1)).toEqual({ type: 'transcript', text: GREETING, isFinal: true, speechFinal: true });
    await stream.close();
  });

  it('eager end, then the same words end the turn', async () => {
    const { stream, events, next } = await open(stt(), { ...options, turn: { eagerEotThreshold: 0.5 } });
    play(stream, utterance(YES));
    await next(isEnd);
    const turns = turnEvents(events).filter((t) => t.event !== 'update');
    expect(turns.map((t) => [t.event, t.transcript])).toEqual([
      ['start', ''],
      ['eager-end', YES],
      ['end', YES],
    ]);
    await stream.close();
  });

  it('eager end, the caller goes on: TurnResumed, and the turn ends with all the words, in one turn', async () => {
    // The greeting alone sounds unfinished to Flux (0.6: eager, not done); with the answer it is done.
    double.knobs.confidence = (text) => (text.includes('eight') ? 0.9 : 0.6);
    const { stream, events, next } = await open(stt(), { ...options, turn: { eagerEotThreshold: 0.5, eotTimeoutMs: 5000 } });
    play(stream, concat([utterance(GREETING, 500), utterance(YES)]));
    await next(isEnd);
    const turns = turnEvents(events).filter((t) => t.event !== 'update');
    expect(turns.map((t) => t.event)).toEqual(['start', 'eager-end', 'resumed', 'eager-end', 'end']);
    expect(turns.at(-1)).toMatchObject({ transcript: `${GREETING} ${YES}`, turnIndex: 0 });
    expect(events.filter((e) => e.type === 'speech-started')).toHaveLength(1);
    await stream.close();
  });

  it('a turn Flux is not sure of ends by eot_timeout_ms (trigger timeout); the next turn has the next index', async () => {
    double.knobs.confidence = () => 0.4;
    const { stream, events, next } = await open(stt(), { ...options, turn: { eotTimeoutMs: 600 } });
    play(stream, concat([utterance(YES, 700), utterance(GREETING, 700)]));
    await next((e) => isEnd(e) && e.type === 'turn' && e.turnIndex === 1);
    const ends = turnEvents(events).filter((t) => t.event === 'end');
    expect(ends.map((t) => [t.transcript, t.trigger, t.turnIndex])).toEqual([
      [YES, 'timeout', 0],
      [GREETING, 'timeout', 1],
    ]);
    await stream.close();
  });

  it('finalize() is ForceEndTurn: the turn ends on what was heard (trigger manual)', async () => {
    double.knobs.confidence = () => 0.4;
    const { stream, next } = await open();
    play(stream, concat([silence(200, RATE), clips.say(YES, RATE)])); // no pause: Flux has not ended it
    stream.finalize();
    const end = await next(isEnd);
    expect(end).toMatchObject({ transcript: YES, trigger: 'manual' });
    await next((e) => e.type === 'transcript' && e.isFinal && e.speechFinal);
    const conn = double.connections.at(-1)!;
    await stream.close();
    expect(conn.controls.map((c) => c.type)).toEqual(['ForceEndTurn', 'CloseStream']);
  });

  it('sends 80 ms chunks of the 20 ms frames it is given; close sends the rest first', async () => {
    const { stream } = await open();
    play(stream, silence(1010, RATE));
    await stream.close();
    const chunks = double.connections.at(-1)!.chunks;
    expect(chunks.slice(0, -1).every((bytes) => bytes === 0.08 * RATE * 2)).toBe(true);
    expect(chunks.reduce((a, b) => a + b, 0)).toBe(Math.round(1.01 * RATE) * 2);
  });

  it('a refused key is a fatal error that names the status and Deepgram’s reason', async () => {
    double.knobs.failAuth = true;
    const { stream, next } = await open();
    play(stream, silence(100, RATE));
    expect(await next((e) => e.type === 'error')).toEqual({ type: 'error', fatal: true, message: 'Deepgram Flux refused the connection: HTTP 401 Invalid credentials.' });
    await stream.close();
  });

  it("Flux's Error message is reported with its code and description, and the close that follows is fatal", async () => {
    double.knobs.fatalAfterAudioMs = 200;
    const { stream, events, next } = await open();
    play(stream, silence(400, RATE));
    await next((e) => e.type === 'error' && e.fatal);
    expect(events.filter((e) => e.type === 'error')).toEqual([
      { type: 'error', fatal: false, message: 'Deepgram Flux: INTERNAL_SERVER_ERROR: The double failed on purpose.' },
      { type: 'error', fatal: true, message: 'Deepgram Flux closed the stream: 1011 INTERNAL_SERVER_ERROR' },
    ]);
    await stream.close();
  });
});
