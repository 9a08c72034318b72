/**
 * Fillers: which phrase (the assistant's lists, moods, rotation) and when (a slow tool, a slow
 * LLM), as a conversation on a fake clock: the leg hears the filler while the wait lasts,
 * the transcript and the turn keep it, the LLM's history does not.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FILLERS, FillerPicker, moodOf } from '../../src/calls/fillers.js';
import { CallSession, END_CALL_TOOL, type SessionSettings, type ToolExecutor } from '../../src/calls/session.js';
import type { MidCallTool } from '../../src/calls/tool-runner.js';
import { MemoryTurnRecorder, TurnTracker } from '../../src/calls/turns.js';
import type { ChatMessage, CompletionRequest, LlmProvider } from '../../src/providers/llm/types.js';
import { FakeClock } from '../../src/telephony/clock.js';
import type { CarrierLeg, LegEvent } from '../../src/telephony/types.js';

const log = pino({ level: 'silent' });

describe('FillerPicker and moods', () => {
  it('speaks from the assistant’s list for the mood, rotating, and falls back to neutral, then the built-in phrases', () => {
    const picker = new FillerPicker({ neutral: ['Hmm, one sec.', 'Let me look.'], negative: [], positive: ['Lovely!'], question: [' ', ''] });
    expect([picker.pick('neutral'), picker.pick('neutral'), picker.pick('neutral')]).toEqual(['Hmm, one sec.', 'Let me look.', 'Hmm, one sec.']);
    expect(picker.pick('positive')).toBe('Lovely!');
    // Blank phrases do not count; question and negative fall back to the neutral list.
    expect(picker.pick('question')).toBe('Let me look.');
    expect(picker.pick('negative')).toBe('Hmm, one sec.');
    const bare = new FillerPicker({ neutral: [], negative: [], positive: [], question: [] });
    expect(bare.pick('question')).toBe(DEFAULT_FILLERS.question[0]);
    expect(bare.pick('neutral')).toBe(DEFAULT_FILLERS.neutral[0]);
  });

  it('never says the same phrase twice in a row when the list has another', () => {
    const picker = new FillerPicker({ neutral: ['A.', 'B.'], negative: ['A.'], positive: [], question: [] });
    expect(picker.pick('negative')).toBe('A.');
    expect(picker.pick('neutral')).toBe('B.');
  });

  it('reads the mood of the caller’s last words', () => {
    expect(moodOf('What time do you open?')).toBe('question');
    expect(moodOf('can you check that')).toBe('question');
    expect(moodOf('That is not what I ordered')).toBe('negative');
    expect(moodOf('Great, thanks a lot')).toBe('positive');
    expect(moodOf('Monday at ten')).toBe('neutral');
    expect(moodOf(null)).toBe('neutral');
  });
});

function settings(overrides: Partial<SessionSettings> = {}): SessionSettings {
  return {
    systemPrompt: 'You book appointments.',
    initialMessage: '',
    waitForCustomer: true,
    endCallOnVoicemail: false,
    maxDurationSec: 600,
    maxSilenceSec: 120,
    reengagementSec: 600,
    model: 'test-model',
    temperature: 0.1,
    tools: [slotsTool],
    endCallDescription: null,
    variables: {},
    fillers: true,
    fillerConfig: { neutral: ['One moment, please.'], negative: [], positive: [], question: ['Good question, let me see.'] },
    ...overrides,
  };
}

const slotsTool: MidCallTool = {
  id: 1,
  name: 'check_slots',
  description: 'Free slots',
  endpoint: 'http://127.0.0.1:9/slots',
  method: 'GET',
  timeout: 10,
  headers: [],
  schema: [],
} as unknown as MidCallTool;

class ManualLeg implements CarrierLeg {
  listener: (e: LegEvent) => void = () => undefined;
  said: string[] = [];
  onEvent(l: (e: LegEvent) => void) {
    this.listener = l;
  }
  start() {
    this.listener({ type: 'answered', answeredBy: 'human' });
  }
  async say(text: string) {
    this.said.push(text);
  }
  hangUp() {}
}

/** A tool endpoint that answers after `ms` of the fake clock. */
function slowTools(clock: FakeClock, ms: number): ToolExecutor {
  return { run: () => new Promise((resolve) => clock.setTimer(ms, () => resolve({ ok: true, content: '{"slots":["10:00"]}', durationMs: ms }))) };
}

/** The LLM asks for the tool once, then answers and ends; its first token after `firstTokenMs`. */
function toolThenAnswer(clock: FakeClock, firstTokenMs = 0) {
  const requests: ChatMessage[][] = [];
  const llm: LlmProvider = {
    label: 'scripted',
    standIn: false,
    complete: (req: CompletionRequest) => {
      requests.push(req.messages);
      const round = requests.length;
      return new Promise((resolve) => {
        clock.setTimer(firstTokenMs, () => {
          req.onText?.('x');
          if (round === 1) resolve({ text: '', toolCalls: [{ id: 'c1', name: 'check_slots', arguments: '{}' }] });
          else resolve({ text: 'We have 10:00 free. Goodbye!', toolCalls: [{ id: 'c2', name: END_CALL_TOOL, arguments: '{}' }] });
        });
      });
    },
    extract: async () => ({}),
  };
  return { llm, requests };
}

async function converse(opts: { fillers: boolean; toolMs: number; firstTokenMs?: number; callerText?: string }) {
  const clock = new FakeClock();
  const leg = new ManualLeg();
  const recorder = new MemoryTurnRecorder();
  const { llm, requests } = toolThenAnswer(clock, opts.firstTokenMs ?? 0);
  const session = new CallSession(settings({ fillers: opts.fillers }), {
    leg,
    llm,
    tools: slowTools(clock, opts.toolMs),
    clock,
    log,
    turns: new TurnTracker(recorder, clock),
  });
  const done = session.run();
  await clock.advance(0);
  leg.listener({ type: 'customer-said', text: opts.callerText ?? 'Do you have a slot on Monday?' });
  await clock.advance(30_000);
  const result = await done;
  return { leg, result, turns: recorder.turns, requests };
}

describe('fillers in a conversation', () => {
  it('a slow tool gets a neutral filler while it runs; the transcript and turn keep it, the LLM history does not', async () => {
    const { leg, result, turns, requests } = await converse({ fillers: true, toolMs: 2_000 });
    expect(leg.said).toEqual(['One moment, please.', 'We have 10:00 free. Goodbye!']);
    expect(result.transcript).toBe(['Customer: Do you have a slot on Monday?', 'AI: One moment, please.', 'AI: We have 10:00 free. Goodbye!'].join('\n'));
    expect(turns[0]!.fillers).toEqual([{ atMs: 500, text: 'One moment, please.', reason: 'tool' }]);
    expect(requests[1]!.some((m) => m.content === 'One moment, please.')).toBe(false);
    expect(result.status).toBe('completed');
  });

  it('a tool that answers quickly gets no filler; a long one gets at most two per turn', async () => {
    expect((await converse({ fillers: true, toolMs: 300 })).leg.said).toEqual(['We have 10:00 free. Goodbye!']);
    const long = await converse({ fillers: true, toolMs: 20_000 });
    expect(long.turns[0]!.fillers.map((f) => f.atMs)).toEqual([500, 4_500]);
  });

  it('a slow LLM gets a filler in the mood of the caller’s words (a question here)', async () => {
    const { leg, turns } = await converse({ fillers: true, toolMs: 0, firstTokenMs: 1_500 });
    expect(leg.said[0]).toBe('Good question, let me see.');
    expect(turns[0]!.fillers[0]).toEqual({ atMs: 1_200, text: 'Good question, let me see.', reason: 'slow-llm' });
  });

  it('with fillers off the caller hears nothing while waiting', async () => {
    const { leg, turns } = await converse({ fillers: false, toolMs: 5_000, firstTokenMs: 3_000 });
    expect(leg.said).toEqual(['We have 10:00 free. Goodbye!']);
    expect(turns[0]!.fillers).toEqual([]);
  });
});
