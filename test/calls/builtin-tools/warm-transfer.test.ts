/**
 * warm_call_transfer in a session, observing the supervisor's leg itself (issue 20): it is placed
 * on the sandbox carrier from the outbound number, answered, and hears the briefing (the
 * initial message and the LLM's summary) before it is left; a supervisor number ending in 92
 * never answers and the assistant is back with the caller; a caller who hangs up while it rings
 * takes the supervisor's leg down with them. Fake clock; the caller's leg is
 * driven by hand; the LLM is a scripted provider (the summary request is recorded).
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { BuiltinToolbox } from '../../../src/calls/builtin-tools/index.js';
import { CallSession, END_CALL_TOOL, type SessionSettings } from '../../../src/calls/session.js';
import type { CompletionRequest, LlmProvider } from '../../../src/providers/llm/types.js';
import { FakeClock } from '../../../src/telephony/clock.js';
import { SandboxCarrier } from '../../../src/telephony/sandbox/carrier.js';
import type { CarrierLeg, DialRequest, LegEvent } from '../../../src/telephony/types.js';

const log = pino({ level: 'silent' });

class ManualLeg implements CarrierLeg {
  listener: (e: LegEvent) => void = () => undefined;
  said: string[] = [];
  onEvent(l: (e: LegEvent) => void) {
    this.listener = l;
  }
  start() {}
  async say(text: string) {
    this.said.push(text);
  }
  hungUp = false;
  hangUp() {
    this.hungUp = true;
  }
  emit(e: LegEvent) {
    this.listener(e);
  }
}

const settings: SessionSettings = {
  systemPrompt: 'Help the caller.',
  initialMessage: 'Hello.',
  waitForCustomer: false,
  endCallOnVoicemail: false,
  maxDurationSec: 600,
  maxSilenceSec: 120,
  reengagementSec: 100,
  model: 'm',
  temperature: 0,
  tools: [],
  endCallDescription: null,
  variables: {},
};

async function run(supervisor: string, opts: { supervisorLeg?: CarrierLeg; whileRinging?: (caller: ManualLeg) => void } = {}) {
  const clock = new FakeClock();
  const leg = new ManualLeg();
  const requests: CompletionRequest[] = [];
  const llm: LlmProvider = {
    label: 'scripted',
    standIn: false,
    extract: async () => ({}),
    complete: async (req) => {
      requests.push({ ...req, messages: [...req.messages] });
      if (req.tools.length === 0) return { text: 'Ada wants a refund.', toolCalls: [] };
      return requests.filter((r) => r.tools.length > 0).length === 1
        ? { text: '', toolCalls: [{ id: 'w1', name: 'warm-transfer', arguments: '{}' }] }
        : { text: 'Nobody answered, sorry.', toolCalls: [{ id: 'w2', name: END_CALL_TOOL, arguments: '{}' }] };
    },
  };
  const sandbox = new SandboxCarrier({ timeScale: 0, clock });
  const placed: { request: DialRequest; leg: CarrierLeg }[] = [];
  let session: CallSession | null = null;
  const builtins = new BuiltinToolbox(
    [{ type: 'warm_call_transfer', data: { supervisor_phone: supervisor, outbound_phone_id: 1, description: 'Get a supervisor.', caller_id_mode: 'outbound_number', hold_music: 'none', hold_music_volume: 80, briefing_initial_message: 'Hi, a caller for you.' } }],
    {
      leg,
      clock,
      log,
      allowPrivate: false,
      unseal: () => '',
      timezone: 'UTC',
      // The engine's part (the user's number from the database, src/calls/hand-over.ts) is tested through the API in engine.test.ts.
      warm: {
        dial: async (to) => {
          const request: DialRequest = { customer: to, assistant: '+4989100200300', direction: 'outbound' };
          const supervisorLeg = opts.supervisorLeg ?? sandbox.dial(request);
          placed.push({ request, leg: supervisorLeg });
          return { from: request.assistant, leg: supervisorLeg };
        },
        summarize: async (instructions) =>
          (await llm.complete({ model: 'm', temperature: 0, tools: [], messages: [{ role: 'system', content: instructions }, { role: 'user', content: session!.transcriptSoFar() }] })).text,
      },
    },
  );
  session = new CallSession(settings, { leg, llm, tools: { run: async () => ({ ok: true, content: '{}', durationMs: 0 }) }, clock, log, builtins });
  const done = session.run();
  leg.emit({ type: 'answered', answeredBy: 'human' });
  leg.emit({ type: 'customer-said', text: 'A supervisor, please.' });
  for (let i = 0; i < 50 && placed.length === 0; i++) await clock.advance(0);
  opts.whileRinging?.(leg);
  await clock.advance(60_000);
  return { result: await done, placed, requests, leg };
}

describe('warm_call_transfer (session)', () => {
  it("places the supervisor's leg from the outbound number, briefs it with the summary, then connects the caller", async () => {
    const { result, placed, requests, leg } = await run('+4930555000');
    expect(placed.map((p) => p.request)).toEqual([{ customer: '+4930555000', assistant: '+4989100200300', direction: 'outbound' }]);
    expect((placed[0].leg as unknown as { heardTexts: string[] }).heardTexts).toEqual(['Hi, a caller for you. Ada wants a refund.']);
    const summary = requests.find((r) => r.tools.length === 0)!;
    expect(summary.messages[1].content).toContain('Customer: A supervisor, please.');
    expect(leg.said).toContain('Please hold while I connect you.');
    expect(result.status).toBe('completed');
  });

  it('a supervisor who never answers (…92): no briefing, the assistant is back with the caller', async () => {
    const { result, placed, requests, leg } = await run('+4930555092');
    expect(placed).toHaveLength(1);
    expect((placed[0].leg as unknown as { heardTexts: string[] }).heardTexts).toEqual([]);
    // The summary was written while the phone rang (so an answer is briefed at once), and never said.
    expect(requests.some((r) => r.tools.length === 0)).toBe(true);
    expect(result.transcript).not.toContain('Briefing');
    expect(leg.said.at(-1)).toBe('Nobody answered, sorry.');
    expect(result.transcript).toContain('Warm transfer: the supervisor did not answer (no-answer); back to the caller.');
    expect(result.status).toBe('completed');
  });

  it("a caller who hangs up while the supervisor's phone rings: the supervisor's leg is hung up too, nothing more is said", async () => {
    const supervisor = new ManualLeg();
    const { result, placed, leg } = await run('+4930555000', { supervisorLeg: supervisor, whileRinging: (caller) => caller.emit({ type: 'hung-up' }) });
    expect(placed).toHaveLength(1);
    expect(supervisor.hungUp).toBe(true);
    expect(supervisor.said).toEqual([]);
    expect(result.status).toBe('ended_by_customer');
    expect(result.transcript).not.toContain('back to the caller');
    expect(result.transcript).not.toContain('Briefing');
    expect(leg.said).toEqual(['Hello.', 'Please hold while I connect you.']);
  });
});
