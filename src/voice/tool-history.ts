/**
 * Function results in the LLM history. OpenAI-compatible servers refuse a request (400) whose
 * assistant message with `tool_calls` is not followed, at once, by one `tool` message per call
 * id. Two things break that rule mid-call unless results are placed with care:
 *
 * - a message recorded while a tool runs (the caller's line on a text leg, a warm transfer's hold
 *   message) lands between the call and its result: `answerToolCall` puts the result right after
 *   its call's message and the results already there, wherever the history's end is;
 * - a turn cut off while a tool runs (a barge-in) leaves the call without a result when the next
 *   turn's request goes out: `answerOpenToolCalls` answers every call still open at once, and the
 *   late result is dropped (docs/decisions.md "A tool call cut off by the caller").
 */
import type { ChatMessage } from '../providers/llm/types.js';

/** What the model reads for a call whose turn the caller cut off before its result came. */
export const CANCELLED_TOOL_RESULT = JSON.stringify({ error: 'cancelled: the caller spoke before the result came (the tool may still have acted)' });

type ToolCallsMessage = Extract<ChatMessage, { role: 'assistant' }>;

/**
 * Records `content` as the result of call `callId`, directly after the assistant message that made
 * the call and the results already recorded for it. A call that has its result already (answered
 * as cancelled) or that is not in the history keeps it as it is.
 */
export function answerToolCall(messages: ChatMessage[], callId: string, content: string): void {
  let at = messages.length - 1;
  while (at >= 0 && !(messages[at]!.role === 'assistant' && (messages[at] as ToolCallsMessage).tool_calls?.some((c) => c.id === callId))) at--;
  if (at < 0) return;
  let end = at + 1;
  while (end < messages.length && messages[end]!.role === 'tool') {
    if ((messages[end] as Extract<ChatMessage, { role: 'tool' }>).tool_call_id === callId) return;
    end++;
  }
  messages.splice(end, 0, { role: 'tool', tool_call_id: callId, content });
}

/** Answers every call of `message` that has no result yet with `content`. */
export function answerOpenToolCalls(messages: ChatMessage[], message: ToolCallsMessage, content: string): void {
  for (const call of message.tool_calls ?? []) answerToolCall(messages, call.id, content);
}
