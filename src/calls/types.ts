/**
 * The call engine as the rest of the service sees it (make_call, sandbox inbound calls,
 * the dialer). Implemented in src/calls/; installed as `ctx.services.calls`.
 */
import type { Db } from '../db/pool.js';

/** A Drizzle transaction or the database itself. */
export type DbOrTx = Db | Parameters<Parameters<Db['transaction']>[0]>[0];

export interface PlaceCallInput {
  userId: number;
  assistantId: number;
  /** The customer's number, E.164. */
  to: string;
  /** Input variables of the call (lead variables, make_call variables). */
  variables?: Record<string, unknown>;
  type?: 'outbound' | 'inbound' | 'web';
  campaignId?: number | null;
  leadId?: number | null;
  secondaryContactId?: number | null;
}

/** The call's assistant is not the user's (or is gone): no call was created. */
export class AssistantMissingError extends Error {}

/** The process is shutting down and takes no new calls (src/service.ts): no call was created. */
export class ShuttingDownError extends Error {
  constructor() {
    super('The service is shutting down and takes no new calls; please try again in a moment.');
  }
}

export interface CallService {
  /** Whether this engine speaks on audio legs (the voice core); if not, it converses on text legs only. */
  readonly speaks: boolean;
  /**
   * Inserts the call records (status `initiated`) inside the caller's transaction, in one
   * statement, and returns their ids in the order of `inputs` (ascending); dials nothing. The
   * dialer uses this to claim leads and create their calls atomically. Each row's `created_at`
   * is its own clock time, not the transaction's start (the claim checks the limits first). Throws
   * AssistantMissingError, inserting none, when an assistant is not its call's user's.
   */
  createCallRecords(tx: DbOrTx, inputs: readonly PlaceCallInput[]): Promise<number[]>;
  /** Runs a created call in this process (dial, converse, finish). Resolves once started. */
  startCall(callId: number): Promise<void>;
  /**
   * Creates one call record and starts it, for make_call and simulated inbound calls. Throws
   * CallLimitError (src/calls/limits.ts) when the user has no free call slot and
   * AssistantMissingError when the assistant is not the user's. With `defer` the call is only
   * created; `startCall` runs it later (browser calls, once their socket arrives).
   */
  placeCall(input: PlaceCallInput, options?: { defer?: boolean }): Promise<{ callId: number }>;
  /** Number of calls this process is running now. */
  activeCalls(): number;
}

declare module '../context.js' {
  interface Services {
    calls?: CallService;
    callEvents?: import('./events.js').CallFinishedEvents;
  }
}
