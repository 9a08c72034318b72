/**
 * warm_call_transfer (issue 20): the caller hears the hold message while the assistant calls the
 * supervisor from the number of `outbound_phone_id`, through the carrier; once the supervisor
 * answers, they are briefed — `briefing_initial_message`, then a summary of the conversation the
 * LLM writes after `summary_instructions` — and the caller is connected (`connected_message`).
 * A supervisor who does not answer (busy, no answer, failure) is hung up on; the assistant goes
 * back to the caller and says so (the LLM reads why in the function's result).
 *
 * Connecting the two is the carrier's bridge; no carrier has one yet, so it is simulated: the
 * assistant leaves both lines, which end (docs/decisions.md).
 */
import type { StoredBuiltinTool } from '../../db/schema.js';
import type { CarrierLeg, LegEvent } from '../../telephony/types.js';
import type { BuiltinResult } from './index.js';

export type WarmTransferData = Extract<StoredBuiltinTool, { type: 'warm_call_transfer' }>['data'];

export const DEFAULT_SUMMARY_INSTRUCTIONS = 'Summarise the conversation for a colleague who takes the call over: who is calling, what they want, and what was already said or agreed. Two or three sentences.';
export const DEFAULT_BRIEFING = 'Hello, I have a caller for you.';
export const DEFAULT_CONNECTED = 'You are now connected. Goodbye from me.';
/** How long the supervisor's phone may ring before the assistant gives up (the network's own no-answer is usually sooner). */
export const SUPERVISOR_RING_MS = 45_000;

/** What the warm transfer needs of the call around it (the engine and the session provide it). */
export interface WarmTransferDeps {
  /** Places the supervisor's leg from the user's number `phoneId`; null when that number is not the user's. */
  dial(to: string, phoneId: number): Promise<{ leg: CarrierLeg; from: string } | null>;
  /** The LLM's summary of the conversation so far, after `instructions`. */
  summarize(instructions: string): Promise<string>;
  /** Says a line to the caller (the hold message); resolves once said. */
  sayToCaller(text: string): Promise<void>;
  /** A transcript line that is not the caller's or the assistant's speech. */
  note(line: string): void;
  setTimer(ms: number, fn: () => void): () => void;
}

type Answer = { answered: true } | { answered: false; outcome: string };

/** Resolves when the supervisor's leg answers or gives up. */
function waitForAnswer(leg: CarrierLeg, deps: WarmTransferDeps): Promise<Answer> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (answer: Answer) => {
      if (done) return;
      done = true;
      cancel();
      resolve(answer);
    };
    const cancel = deps.setTimer(SUPERVISOR_RING_MS, () => finish({ answered: false, outcome: 'no-answer' }));
    leg.onEvent((event: LegEvent) => {
      if (event.type === 'answered') finish({ answered: true });
      else if (event.type === 'unanswered') finish({ answered: false, outcome: event.outcome });
      else if (event.type === 'hung-up') finish({ answered: false, outcome: 'hung-up' });
    });
    leg.start();
  });
}

export async function warmTransfer(data: WarmTransferData, deps: WarmTransferDeps): Promise<BuiltinResult> {
  const json = (x: unknown) => JSON.stringify(x);
  const hold = data.hold_message?.trim() || 'Please hold while I connect you.';
  await deps.sayToCaller(hold);
  const placed = await deps.dial(data.supervisor_phone, data.outbound_phone_id);
  if (!placed) return { ok: false, content: json({ error: 'the outbound number of this transfer is not available' }) };
  deps.note(`Warm transfer: calling the supervisor ${data.supervisor_phone} from ${placed.from}.`);
  const answer = await waitForAnswer(placed.leg, deps);
  if (!answer.answered) {
    placed.leg.hangUp('the supervisor did not answer');
    deps.note(`Warm transfer: the supervisor did not answer (${answer.outcome}); back to the caller.`);
    return {
      ok: false,
      content: json({ error: `the supervisor did not answer (${answer.outcome})`, transferred: false, instruction: 'Tell the caller that nobody could be reached and offer further help.' }),
    };
  }
  const summary = (await deps.summarize(data.summary_instructions?.trim() || DEFAULT_SUMMARY_INSTRUCTIONS)).trim();
  const briefing = [data.briefing_initial_message?.trim() || DEFAULT_BRIEFING, summary].filter(Boolean).join(' ');
  deps.note(`Briefing (to the supervisor): ${briefing}`);
  await placed.leg.say?.(briefing);
  // The bridge is simulated: the supervisor's leg is left to the (simulated) connection.
  placed.leg.hangUp('connected to the caller');
  return {
    ok: true,
    content: json({ ok: true, transferred_to: data.supervisor_phone, briefed: true }),
    say: data.connected_message?.trim() || DEFAULT_CONNECTED,
    note: `Warm transfer: the caller was connected to the supervisor ${data.supervisor_phone} (simulated: this line cannot bridge calls).`,
    end: { reason: `warm transfer to ${data.supervisor_phone}` },
  };
}
