/**
 * warm_call_transfer (issue 20): the caller hears the hold message, then hold music (audio lines,
 * `hold_music` at `hold_music_volume`), while the assistant calls the supervisor from the number
 * of `outbound_phone_id` (shown as `caller_id_mode` says). The summary of the conversation is
 * written meanwhile (the LLM after `summary_instructions`), so a supervisor who answers is
 * briefed at once — `briefing_initial_message`, then the summary, with the network's voice on a
 * leg we steer over its API (Twilio), the assistant's voice on an audio leg, the words on a
 * text leg. Then the caller hears `connected_message` and the carrier joins both (Twilio: one
 * `<Conference>`); the call is over for the assistant.
 *
 * A supervisor who does not answer (busy, no answer, failure) is hung up on; the assistant goes
 * back to the caller and says so (the LLM reads why in the function's result). A caller who
 * hangs up meanwhile ends the supervisor's leg too.
 *
 * Lines whose carrier cannot join two legs (the sandbox, browser calls) get the same steps with
 * the join simulated: the supervisor's leg is left after the briefing (docs/decisions.md).
 */
import type { StoredBuiltinTool } from '../../db/schema.js';
import type { CarrierLeg, LegEvent } from '../../telephony/types.js';
import type { BuiltinResult } from './index.js';

export type WarmTransferData = Extract<StoredBuiltinTool, { type: 'warm_call_transfer' }>['data'];

export const DEFAULT_HOLD_MESSAGE = 'Please hold while I connect you.';
export const DEFAULT_SUMMARY_INSTRUCTIONS = 'Summarise the conversation for a colleague who takes the call over: who is calling, what they want, and what was already said or agreed. Two or three sentences.';
export const DEFAULT_BRIEFING = 'Hello, I have a caller for you.';
export const DEFAULT_CONNECTED = 'You are now connected. Goodbye from me.';
/** How long the supervisor's phone may ring before the assistant gives up (the network's own no-answer is usually sooner). */
export const SUPERVISOR_RING_MS = 45_000;

export interface CallerIdChoice {
  mode: NonNullable<WarmTransferData['caller_id_mode']>;
  custom?: string;
}

/** What the warm transfer needs of the call around it (the engine and the session provide it). */
export interface WarmTransferDeps {
  /** The caller's line (joined with the supervisor's when its carrier can). */
  caller: CarrierLeg;
  /**
   * Places the supervisor's leg from the user's number `phoneId`, showing the caller id `callerId`
   * asks for; `{ error }` when that number is not the user's or cannot reach this call's line.
   */
  dial(to: string, phoneId: number, callerId: CallerIdChoice): Promise<{ leg: CarrierLeg; from: string } | { error: string }>;
  /** The LLM's summary of the conversation so far, after `instructions`; `signal` aborts it (nobody answered). */
  summarize(instructions: string, signal: AbortSignal): Promise<string>;
  /** Says a line to the caller (the hold message); resolves once said. */
  sayToCaller(text: string): Promise<void>;
  /** Hold music on the caller's line at `volume` 0–1 until the returned function is called (audio lines only). */
  holdMusic?(volume: number): () => void;
  /** Says `text` on the supervisor's leg; resolves once said. */
  brief(leg: CarrierLeg, text: string): Promise<void>;
  /** A transcript line that is not the caller's or the assistant's speech. */
  note(line: string): void;
  /** Aborted when the call is over (the caller hung up). */
  callEnded: AbortSignal;
  setTimer(ms: number, fn: () => void): () => void;
}

type Answer = { answered: true } | { answered: false; outcome: string };

/** Resolves when the supervisor's leg answers or gives up, or the call ends meanwhile. */
function waitForAnswer(leg: CarrierLeg, deps: WarmTransferDeps): Promise<Answer> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (answer: Answer) => {
      if (done) return;
      done = true;
      cancel();
      deps.callEnded.removeEventListener('abort', onCallEnded);
      resolve(answer);
    };
    const onCallEnded = () => finish({ answered: false, outcome: 'the caller hung up' });
    const cancel = deps.setTimer(SUPERVISOR_RING_MS, () => finish({ answered: false, outcome: 'no-answer' }));
    deps.callEnded.addEventListener('abort', onCallEnded);
    leg.onEvent((event: LegEvent) => {
      if (event.type === 'answered') finish({ answered: true });
      else if (event.type === 'unanswered') finish({ answered: false, outcome: event.outcome });
      else if (event.type === 'hung-up') finish({ answered: false, outcome: 'hung-up' });
    });
    leg.start();
  });
}

export async function warmTransfer(data: WarmTransferData, deps: WarmTransferDeps): Promise<BuiltinResult> {
  await deps.sayToCaller(data.hold_message?.trim() || DEFAULT_HOLD_MESSAGE);
  const music = data.hold_music !== 'none' ? data.hold_music_volume / 100 : 0;
  let stopMusic = music > 0 ? (deps.holdMusic?.(music) ?? null) : null;
  const silence = () => {
    stopMusic?.();
    stopMusic = null;
  };
  try {
    const callerId: CallerIdChoice = { mode: data.caller_id_mode ?? 'outbound_number', custom: data.custom_caller_id ?? undefined };
    const placed = await deps.dial(data.supervisor_phone, data.outbound_phone_id, callerId);
    if ('error' in placed) return { ok: false, content: json({ error: placed.error, transferred: false }) };
    deps.note(`Warm transfer: calling the supervisor ${data.supervisor_phone} from ${placed.from}.`);
    let keepLeg = false;
    try {
      const result = await superviseLeg(data, deps, placed.leg, silence);
      // Joined by the carrier (or about to be, by `end.handOver`): the leg is not ours to end.
      keepLeg = result.end?.handOver !== undefined;
      return result;
    } finally {
      // Unanswered, the caller gone, a failure anywhere, or the simulated join: the supervisor's leg must not stay open and silent.
      if (!keepLeg) placed.leg.hangUp('the warm transfer is over for this leg');
    }
  } finally {
    silence();
  }
}

const json = (x: unknown) => JSON.stringify(x);

/** Rings the supervisor, briefs them once they answer, and says how the caller is joined. */
async function superviseLeg(data: WarmTransferData, deps: WarmTransferDeps, leg: CarrierLeg, silence: () => void): Promise<BuiltinResult> {
  // Written while the phone rings: a supervisor who answers is briefed at once. A failed summary
  // (the deps log it) leaves the briefing to its opening message.
  const summaryRequest = new AbortController();
  const summary = deps.summarize(data.summary_instructions?.trim() || DEFAULT_SUMMARY_INSTRUCTIONS, summaryRequest.signal).catch(() => '');
  const answer = await waitForAnswer(leg, deps);
  if (!answer.answered) {
    summaryRequest.abort();
    if (deps.callEnded.aborted) return { ok: false, content: json({ error: 'the caller hung up', transferred: false }) };
    deps.note(`Warm transfer: the supervisor did not answer (${answer.outcome}); back to the caller.`);
    return {
      ok: false,
      content: json({ error: `the supervisor did not answer (${answer.outcome})`, transferred: false, instruction: 'Tell the caller that nobody could be reached and offer further help.' }),
    };
  }
  const briefing = [data.briefing_initial_message?.trim() || DEFAULT_BRIEFING, (await summary).trim()].filter(Boolean).join(' ');
  deps.note(`Briefing (to the supervisor): ${briefing}`);
  await deps.brief(leg, briefing);
  silence();
  if (deps.callEnded.aborted) return { ok: false, content: json({ error: 'the caller hung up', transferred: false }) };
  const say = data.connected_message?.trim() || DEFAULT_CONNECTED;
  const reason = `warm transfer to ${data.supervisor_phone}`;
  const content = json({ ok: true, transferred_to: data.supervisor_phone, briefed: true });
  const { caller } = deps;
  if (caller.bridgeTo && caller.canBridge?.(leg)) {
    const holdMusic = data.hold_music !== 'none' && data.hold_music_volume > 0;
    return {
      ok: true,
      content,
      say,
      note: `Warm transfer: the caller was connected to the supervisor ${data.supervisor_phone}.`,
      end: { reason, handOver: () => caller.bridgeTo!(leg, { holdMusic }) },
    };
  }
  // No carrier bridge on this line: the join is simulated and the supervisor's leg left.
  return {
    ok: true,
    content,
    say,
    note: `Warm transfer: the caller was connected to the supervisor ${data.supervisor_phone} (simulated: this line cannot bridge calls).`,
    end: { reason },
  };
}
