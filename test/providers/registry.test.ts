import { describe, expect, it } from 'vitest';
import { END_CALL_TOOL } from '../../src/calls/session.js';
import { providersFromConfig } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { OpenAiRealtime } from '../../src/providers/realtime/openai/index.js';
import { OfflineStandInLlm, OpenAiCompatibleLlm, STAND_IN_NOTE } from '../../src/providers/llm/index.js';
import { AccountProvidersUnavailableError, ProviderRegistry } from '../../src/providers/registry.js';
import type { SttProvider } from '../../src/providers/stt/types.js';

const stt = (name: string): SttProvider => ({ name, endpointing: false, open: () => Promise.reject(new Error('not used')) });

describe('ProviderRegistry', () => {
  it('holds the LLM and speech providers by name per kind', () => {
    const llm = new OfflineStandInLlm(END_CALL_TOOL);
    const providers = new ProviderRegistry(llm, { stt: [stt('deepgram'), stt('openai')], realtime: [new OpenAiRealtime({ url: 'ws://127.0.0.1:9/v1/realtime' })] });
    expect(providers.llm).toBe(llm);
    expect([...providers.stt.keys()]).toEqual(['deepgram', 'openai']);
    expect(providers.tts.size).toBe(0);
    expect(providers.realtime.get('openai')?.name).toBe('openai');
  });

  it("forAccount: an account without own keys gets the deployment's; one whose keys cannot be read gets an error, never the deployment's keys", async () => {
    const deployment = new ProviderRegistry(new OfflineStandInLlm(END_CALL_TOOL), { stt: [stt('deepgram')] });
    expect(await deployment.forAccount(7)).toBe(deployment); // no accounts at all (the CLI, tests)
    const own = new ProviderRegistry(deployment.llm, { stt: [stt('deepgram')] });
    const unreadable = new Error('stored provider keys cannot be opened with SECRET_KEY: deepgram');
    deployment.useAccounts({
      forAccount: async (userId) => {
        if (userId === 1) return deployment; // stored none
        if (userId === 2) return own;
        throw unreadable; // a database error, or a key SECRET_KEY no longer opens
      },
      invalidate: () => undefined,
    });
    expect(await deployment.forAccount(1)).toBe(deployment);
    expect(await deployment.forAccount(2)).toBe(own);
    const failed = await deployment.forAccount(3).then(
      () => null,
      (err: unknown) => err,
    );
    expect(failed).toBeInstanceOf(AccountProvidersUnavailableError);
    expect(failed).toMatchObject({ userId: 3, cause: unreadable, message: "the account's own provider keys could not be read" });
  });

  it('refuses two providers of one kind under one name', () => {
    expect(() => new ProviderRegistry(new OfflineStandInLlm(END_CALL_TOOL), { stt: [stt('deepgram'), stt('deepgram')] })).toThrow('registered twice');
  });
});

describe('providersFromConfig', () => {
  it('uses the offline stand-in without LLM_BASE_URL; its note opens transcripts', () => {
    const { llm } = providersFromConfig(loadConfig({}));
    expect(llm).toBeInstanceOf(OfflineStandInLlm);
    expect(llm.transcriptNote).toBe(STAND_IN_NOTE);
  });

  it('uses the OpenAI-compatible server at LLM_BASE_URL, which adds no note', () => {
    const { llm } = providersFromConfig(loadConfig({ LLM_BASE_URL: 'http://127.0.0.1:9/v1', LLM_API_KEY: 'sk-local' }));
    expect(llm).toBeInstanceOf(OpenAiCompatibleLlm);
    expect(llm.transcriptNote).toBeUndefined();
  });
});

describe('speech providers from the configuration', () => {
  const names = (p: ReturnType<typeof providersFromConfig>) => ({ stt: [...p.stt.keys()], tts: [...p.tts.keys()], realtime: [...p.realtime.keys()] });

  it('has only the local voice without settings (shared by every registry of the process)', () => {
    const first = providersFromConfig(loadConfig({}));
    expect(names(first)).toEqual({ stt: [], tts: ['local'], realtime: [] });
    expect(providersFromConfig(loadConfig({})).tts.get('local')).toBe(first.tts.get('local'));
  });

  it('speech-to-text: Deepgram when its key is set, the OpenAI-compatible server at STT_BASE_URL; both when both (the assistant chooses, Deepgram first)', () => {
    expect(names(providersFromConfig(loadConfig({ STT_BASE_URL: 'http://whisper:8000' }))).stt).toEqual(['openai']);
    expect(names(providersFromConfig(loadConfig({ DEEPGRAM_API_KEY: 'dg' }))).stt).toEqual(['deepgram']);
    expect(names(providersFromConfig(loadConfig({ STT_BASE_URL: 'http://whisper:8000', DEEPGRAM_API_KEY: 'dg' }))).stt).toEqual(['deepgram', 'openai']);
  });

  it('text-to-speech and realtime by their settings', () => {
    const all = providersFromConfig(loadConfig({ ELEVENLABS_API_KEY: 'xi', TTS_BASE_URL: 'http://kokoro:8880/v1', REALTIME_URL: 'wss://rt.example/v1/realtime' }));
    expect(names(all)).toEqual({ stt: [], tts: ['local', 'elevenlabs', 'openai'], realtime: ['openai'] });
  });
});
