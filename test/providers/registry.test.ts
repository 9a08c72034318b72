import { describe, expect, it } from 'vitest';
import { END_CALL_TOOL } from '../../src/calls/session.js';
import { providersFromConfig } from '../../src/compose.js';
import { OfflineStandInLlm, OpenAiCompatibleLlm, STAND_IN_NOTE } from '../../src/providers/llm/index.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import type { SttProvider } from '../../src/providers/stt/types.js';

const stt = (name: string): SttProvider => ({ name, endpointing: false, open: () => Promise.reject(new Error('not used')) });

describe('ProviderRegistry', () => {
  it('holds the LLM and speech providers by name per kind', () => {
    const llm = new OfflineStandInLlm(END_CALL_TOOL);
    const providers = new ProviderRegistry(llm, { stt: [stt('deepgram'), stt('openai')], realtime: [{ name: 'openai' }] });
    expect(providers.llm).toBe(llm);
    expect([...providers.stt.keys()]).toEqual(['deepgram', 'openai']);
    expect(providers.tts.size).toBe(0);
    expect(providers.realtime.get('openai')).toEqual({ name: 'openai' });
  });

  it('refuses two providers of one kind under one name', () => {
    expect(() => new ProviderRegistry(new OfflineStandInLlm(END_CALL_TOOL), { stt: [stt('deepgram'), stt('deepgram')] })).toThrow('registered twice');
  });
});

describe('providersFromConfig', () => {
  it('uses the offline stand-in without LLM_BASE_URL; its note opens transcripts', () => {
    const { llm } = providersFromConfig({ LLM_BASE_URL: undefined, LLM_API_KEY: undefined });
    expect(llm).toBeInstanceOf(OfflineStandInLlm);
    expect(llm.transcriptNote).toBe(STAND_IN_NOTE);
  });

  it('uses the OpenAI-compatible server at LLM_BASE_URL, which adds no note', () => {
    const { llm } = providersFromConfig({ LLM_BASE_URL: 'http://127.0.0.1:9/v1', LLM_API_KEY: 'sk-local' });
    expect(llm).toBeInstanceOf(OpenAiCompatibleLlm);
    expect(llm.transcriptNote).toBeUndefined();
  });
});
