/**
 * The LLM stage's view of a language model: OpenAI-style chat messages and function tools.
 * Adapters: an OpenAI-compatible chat-completions client, and the offline stand-in.
 */
export interface ToolCall {
  id: string;
  name: string;
  /** JSON text of the arguments, as the model produced it. */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export type JsonSchema = Record<string, unknown>;

export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export interface CompletionRequest {
  model: string;
  temperature: number;
  messages: ChatMessage[];
  tools: ToolSpec[];
  signal?: AbortSignal;
  /** Called with each piece of text as it streams in (the seam for streaming text-to-speech). */
  onText?: (delta: string) => void;
  /** Facts only the offline stand-in uses (it has no language understanding). */
  standInContext?: { variables: Record<string, unknown> };
}

export interface Completion {
  text: string;
  toolCalls: ToolCall[];
}

export interface ExtractionRequest {
  model: string;
  temperature: number;
  messages: ChatMessage[];
  /** A JSON schema of an object; the answer is an object of that shape. */
  schema: JsonSchema;
  signal?: AbortSignal;
  standInContext?: { variables: Record<string, unknown>; goalMet: boolean; summary: string };
}

export interface LlmProvider {
  /** Shown in logs, e.g. "openai-compatible" or "offline stand-in". */
  readonly label: string;
  /** True for the offline stand-in: logs say so. */
  readonly standIn: boolean;
  /** A line that opens the transcript of every connected call run on this provider (the stand-in says it is one). */
  readonly transcriptNote?: string;
  complete(request: CompletionRequest): Promise<Completion>;
  extract(request: ExtractionRequest): Promise<Record<string, unknown>>;
}

export class LlmError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
  }
}
