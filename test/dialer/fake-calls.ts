/**
 * A stand-in call engine for the dialer's unit tests: creates real call rows (so the limits,
 * which count live calls in the database, are exercised) and finishes them on command with a
 * chosen outcome, like the sandbox carrier would.
 */
import { eq, sql } from 'drizzle-orm';
import type { CallService, DbOrTx, PlaceCallInput } from '../../src/calls/types.js';
import type { Db } from '../../src/db/pool.js';
import { calls } from '../../src/db/schema.js';

export type FakeOutcome =
  | 'completed'
  | 'busy'
  | 'no-answer'
  | 'failed'
  | 'voicemail'
  | 'hangup'
  | 'ended-no-conversation'
  | 'ended-with-conversation';

export interface FinishOptions {
  evaluation?: Record<string, unknown>;
}

export class FakeCalls implements CallService {
  readonly speaks = false;
  readonly started: number[] = [];
  private live = new Set<number>();

  constructor(private readonly db: Db) {}

  async createCallRecords(tx: DbOrTx, inputs: readonly PlaceCallInput[]): Promise<number[]> {
    if (inputs.length === 0) return [];
    const rows = await tx
      .insert(calls)
      .values(
        inputs.map((input) => ({
          userId: input.userId,
          assistantId: input.assistantId,
          assistantName: 'Fake assistant',
          campaignId: input.campaignId ?? null,
          leadId: input.leadId ?? null,
          secondaryContactId: input.secondaryContactId ?? null,
          type: input.type ?? 'outbound',
          status: 'initiated',
          clientPhoneNumber: input.to,
          variables: input.variables ?? {},
          // As the engine stamps it: the row's own time, after the claim checked the limits.
          createdAt: sql`clock_timestamp()`,
        })),
      )
      .returning({ id: calls.id });
    return rows.map((r) => r.id).sort((a, b) => a - b);
  }

  async startCall(callId: number): Promise<void> {
    this.started.push(callId);
    this.live.add(callId);
  }

  async placeCall(input: PlaceCallInput): Promise<{ callId: number }> {
    const [callId] = await this.createCallRecords(this.db, [input]);
    await this.startCall(callId);
    return { callId };
  }

  activeCalls(): number {
    return this.live.size;
  }

  /** Writes the call's final record as the engine would. */
  async finish(callId: number, outcome: FakeOutcome, opts: FinishOptions = {}): Promise<void> {
    const answered = ['completed', 'voicemail', 'hangup', 'ended-with-conversation'].includes(outcome);
    const status = {
      completed: 'completed',
      busy: 'busy',
      'no-answer': 'no-answer',
      failed: 'failed',
      voicemail: 'ended_by_assistant',
      hangup: 'ended_by_customer',
      'ended-no-conversation': 'ended',
      'ended-with-conversation': 'ended',
    }[outcome];
    const transcript = answered && outcome !== 'voicemail' ? 'AI: Hello.\nCustomer: Hi.' : outcome === 'voicemail' ? 'AI: Hello.' : '';
    await this.db
      .update(calls)
      .set({
        status,
        answeredBy: outcome === 'voicemail' ? 'machine' : answered ? 'human' : 'unknown',
        answeredAt: answered ? sql`now()` : null,
        endedAt: sql`now()`,
        transcript,
        evaluation: opts.evaluation ?? {},
        updatedAt: sql`now()`,
      })
      .where(eq(calls.id, callId));
    this.live.delete(callId);
  }
}
