/**
 * The end of a call in the database: its final record (status, transcript, evaluation, costs,
 * recording) and the durable call-finished event, in one transaction, so webhooks and the
 * dialer hear of exactly the calls whose final record committed.
 */
import type { Logger } from 'pino';
import type { ChatMessage } from '../providers/llm/types.js';
import type { AppContext } from '../context.js';
import { executorOf } from './events.js';
import type { runPostCall } from './post-call.js';
import type { SessionResult } from './session.js';
import { isLive, NOW, transitionCall, type CallStatus, type Queryable, type TransitionFields } from './state-machine.js';

/** Writes the final record and emits the call-finished event, in one transaction. */
export async function finalizeCall(
  ctx: AppContext,
  callId: number,
  from: CallStatus,
  result: SessionResult,
  post: Awaited<ReturnType<typeof runPostCall>> | null,
  log: Logger,
): Promise<CallStatus | null> {
  const fields: TransitionFields = {
    endedAt: NOW,
    transcript: result.transcript,
    ...(result.connected ? { toolCalls: toolCallsOf(result.messages) } : {}),
    // 'unknown' does not overwrite a verdict a carrier stored on the call (late AMD on another instance).
    ...(result.answeredBy !== 'unknown' ? { answeredBy: result.answeredBy } : {}),
    ...(post
      ? {
          evaluation: post.evaluation,
          duration: post.durationSec,
          carrierCost: post.carrierCost,
          totalCost: post.totalCost,
          recordingUrl: post.recordingUrl,
        }
      : {}),
  };
  const events = ctx.services.callEvents;
  // Without consumers there is nothing to emit, and one UPDATE needs no transaction.
  const inTransaction = (events?.subscribedQueues.length ?? 0) > 0;
  const client = await ctx.database.pool.connect();
  try {
    if (inTransaction) await client.query('BEGIN');
    let finalStatus: CallStatus = result.status;
    // A conversation whose answer never reached the record (its transition failed outright; an
    // outage only delays it, progress.ts) is answered here first: it ends as what it was.
    if (result.connected && (from === 'initiated' || from === 'ringing')) from = await replayAnswer(client, log, callId, from, result);
    let moved = await transitionCall(client, log, callId, from, finalStatus, fields);
    if (!moved && isLive(from)) {
      // The outcome does not fit what was persisted (a transition failed on the way): end it anyway.
      finalStatus = 'ended';
      moved = await transitionCall(client, log, callId, from, finalStatus, fields);
    }
    if (moved && inTransaction) await events!.emit(executorOf(client), { callId, userId: moved.userId });
    if (inTransaction) await client.query('COMMIT');
    if (moved) ctx.services.metrics?.callFinished(finalStatus);
    log.info({ status: result.status, duration: post?.durationSec ?? 0 }, 'call finished');
    return moved ? finalStatus : null;
  } catch (err) {
    if (inTransaction) await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** The functions the model called in the conversation, in order, with their arguments (parsed when JSON). */
export function toolCallsOf(messages: readonly ChatMessage[]): { name: string; arguments: unknown }[] {
  const out: { name: string; arguments: unknown }[] = [];
  for (const m of messages) {
    if (m.role !== 'assistant' || !m.tool_calls) continue;
    for (const c of m.tool_calls) {
      let args: unknown = c.function.arguments;
      try {
        args = c.function.arguments.trim() === '' ? {} : JSON.parse(c.function.arguments);
      } catch {
        // kept as the text the model sent
      }
      out.push({ name: c.function.name, arguments: args });
    }
  }
  return out;
}

/** initiated/ringing → in-progress for a call that was answered, `answered_at` from its talk time; the status it reached. */
async function replayAnswer(db: Queryable, log: Logger, callId: number, from: CallStatus, result: SessionResult): Promise<CallStatus> {
  if (from === 'initiated' && (await transitionCall(db, log, callId, 'initiated', 'ringing'))) from = 'ringing';
  if (from !== 'ringing') return from;
  const answeredAt = new Date(Date.now() - result.talkMs).toISOString();
  const answered = await transitionCall(db, log, callId, 'ringing', 'in-progress', { answeredAt, ...(result.answeredBy !== 'unknown' ? { answeredBy: result.answeredBy } : {}) });
  if (answered) log.warn({ callId }, "a call's answer had not been recorded: written with its final record");
  return answered ? 'in-progress' : from;
}
