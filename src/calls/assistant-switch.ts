/**
 * assistant_transfer (issue 20): another assistant of the same user takes a live call over —
 * its prompt (the history's system message), model, tools, built-ins and, on an audio leg, its
 * voice. The call keeps one transcript and one LLM history; only what the new assistant is
 * changes. Applied to the session's state in place, so the text turn loop and the voice
 * pipeline's LLM stage, which hold references to it, see the new assistant from the next turn.
 */
import type { Logger } from 'pino';
import type { ChatMessage, ToolSpec } from '../providers/llm/types.js';
import type { BuiltinResult, BuiltinToolbox } from './builtin-tools/index.js';
import { DEFAULT_END_CALL_DESCRIPTION, END_CALL_TOOL, type SessionSettings } from './session-types.js';
import { toolFunction, type MidCallTool } from './tool-runner.js';
import type { LlmStageOptions } from '../voice/llm.js';
import type { VoiceCall } from '../voice/voice-call.js';
import type { CallKnowledge } from '../voice/ports.js';

/** What the LLM may call: mid-call tools, built-ins, the knowledge base's search, end-call (last). */
export function functionSpecs(
  settings: Pick<SessionSettings, 'tools' | 'endCallDescription'>,
  builtins: BuiltinToolbox | undefined,
  knowledge?: CallKnowledge | null,
): ToolSpec[] {
  return [
    ...settings.tools.map(toolFunction),
    ...(builtins?.specs ?? []),
    ...(knowledge?.spec ? [knowledge.spec] : []),
    {
      name: END_CALL_TOOL,
      description: builtins?.endCallDescription || settings.endCallDescription?.trim() || DEFAULT_END_CALL_DESCRIPTION,
      parameters: { type: 'object', properties: {}, additionalProperties: false },
    },
  ];
}

/** The parts of a live session an assistant switch changes. */
export interface SwitchableConversation {
  settings: SessionSettings;
  messages: ChatMessage[];
  toolsByName: Map<string, MidCallTool>;
  specs: ToolSpec[];
  builtins: BuiltinToolbox | undefined;
  /** The call's knowledge base (the first assistant's: it stays through a hand-over, docs/decisions.md). */
  knowledge: CallKnowledge | null;
  /** The voice pipeline's LLM options (audio legs), else null. */
  llmOptions: LlmStageOptions | null;
  /** The voice pipeline and its leg's sample rate (audio legs), else null. */
  voice: { call: VoiceCall; sampleRate: number } | null;
  log: Logger;
}

export function switchAssistant(c: SwitchableConversation, { target }: NonNullable<BuiltinResult['switchTo']>): void {
  Object.assign(c.settings, {
    systemPrompt: target.systemPrompt,
    initialMessage: target.initialMessage,
    model: target.model,
    temperature: target.temperature,
    tools: target.tools,
    endCallDescription: target.endCallDescription,
  });
  const { messages } = c;
  if (messages[0]?.role === 'system') {
    if (target.systemPrompt.trim() !== '') messages[0] = { role: 'system', content: target.systemPrompt };
    else messages.splice(0, 1);
  } else if (target.systemPrompt.trim() !== '') messages.unshift({ role: 'system', content: target.systemPrompt });
  c.toolsByName.clear();
  for (const tool of target.tools) c.toolsByName.set(tool.name, tool);
  c.builtins?.replaceItems(target.builtinTools, target.timezone);
  c.specs.splice(0, c.specs.length, ...functionSpecs(c.settings, c.builtins, c.knowledge));
  // Its tools reach the pipeline through `toolsByName` (the session's tools port), replaced above.
  if (c.llmOptions) Object.assign(c.llmOptions, { model: target.model, temperature: target.temperature });
  if (c.voice) {
    c.voice.call.assistantChanged();
    const voice = target.voice(c.voice.sampleRate);
    if (voice) c.voice.call.useVoice(voice);
    else c.log.warn({ assistantId: target.id }, 'the assistant taking over has no voice that can speak; keeping the current one');
  }
}
