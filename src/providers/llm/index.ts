import type { Config } from '../../config.js';
import { OpenAiCompatibleLlm } from './openai.js';
import { OfflineStandInLlm } from './stand-in.js';
import type { LlmProvider } from './types.js';

export * from './types.js';
export { OpenAiCompatibleLlm } from './openai.js';
export { OfflineStandInLlm, STAND_IN_NOTE } from './stand-in.js';

/** The configured LLM: an OpenAI-compatible endpoint when LLM_BASE_URL is set, else the offline stand-in. */
export function createLlmProvider(config: Pick<Config, 'LLM_BASE_URL' | 'LLM_API_KEY'>, endCallTool: string): LlmProvider {
  if (config.LLM_BASE_URL) return new OpenAiCompatibleLlm({ baseUrl: config.LLM_BASE_URL, apiKey: config.LLM_API_KEY });
  return new OfflineStandInLlm(endCallTool);
}
