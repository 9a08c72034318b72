import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/telephony/clock.js';
import { SANDBOX_SCRIPTS, SandboxCarrier, sandboxBehaviour } from '../../src/telephony/sandbox/carrier.js';
import type { LegEvent } from '../../src/telephony/types.js';

function dial(customer: string, scale = 1, direction: 'outbound' | 'inbound' = 'outbound') {
  const clock = new FakeClock();
  const leg = new SandboxCarrier({ timeScale: scale, clock }).dial({ customer, assistant: '+493012345670', direction });
  const events: { at: number; event: LegEvent }[] = [];
  leg.onEvent((event) => events.push({ at: clock.now(), event }));
  leg.start();
  return { clock, leg, events };
}

describe('outcome by the last two digits', () => {
  it.each([
    ['+4915100000091', 'busy'],
    ['+4915100000092', 'no-answer'],
    ['+4915100000093', 'failed'],
    ['+4915100000094', 'voicemail'],
    ['+4915100000095', 'hangs-up'],
    ['+4915100000090', 'converses'],
    ['+4915100000096', 'converses'],
    ['+4915100000019', 'converses'],
  ])('%s → %s', (n, b) => expect(sandboxBehaviour(n)).toBe(b));
});

describe('simulated timings at scale 1', () => {
  it('busy after 1 s, failed after 0.5 s, no ringing', async () => {
    const busy = dial('+4915100000091');
    await busy.clock.advance(60_000);
    expect(busy.events).toEqual([{ at: 1000, event: { type: 'unanswered', outcome: 'busy' } }]);
    const failed = dial('+4915100000093');
    await failed.clock.advance(60_000);
    expect(failed.events).toEqual([{ at: 500, event: { type: 'unanswered', outcome: 'failed' } }]);
  });

  it('no-answer rings 20 s', async () => {
    const { clock, events } = dial('+4915100000092');
    await clock.advance(60_000);
    expect(events).toEqual([
      { at: 300, event: { type: 'ringing' } },
      { at: 20_300, event: { type: 'unanswered', outcome: 'no-answer' } },
    ]);
  });

  it('a voicemail box answers after 3 s of ringing, greets, then stays silent', async () => {
    const { clock, leg, events } = dial('+4915100000094');
    await clock.advance(4_000);
    expect(events).toEqual([
      { at: 300, event: { type: 'ringing' } },
      { at: 3300, event: { type: 'answered', answeredBy: 'machine' } },
      { at: 3600, event: { type: 'customer-said', text: SANDBOX_SCRIPTS.voicemail } },
    ]);
    void leg.say!('Hi, please call back.');
    await clock.advance(60_000);
    expect(events).toHaveLength(3);
  });

  it('a person answers each utterance after it is spoken (350 ms a word) plus 700 ms, from the script', async () => {
    const { clock, leg, events } = dial('+4915100000000');
    await clock.advance(3300);
    expect(events.at(-1)).toEqual({ at: 3300, event: { type: 'answered', answeredBy: 'human' } });
    let spoken = false;
    void leg.say!('Hello there, this is Switchboard.').then(() => (spoken = true)); // 5 words
    await clock.advance(1749);
    expect(spoken).toBe(false);
    await clock.advance(1);
    expect(spoken).toBe(true);
    await clock.advance(700);
    expect(events.at(-1)).toEqual({ at: 5750, event: { type: 'customer-said', text: SANDBOX_SCRIPTS.converses[0] } });
    for (let i = 1; i < SANDBOX_SCRIPTS.converses.length + 2; i++) {
      void leg.say!('Next.');
      await clock.advance(1050);
    }
    const said = events.filter((e) => e.event.type === 'customer-said').map((e) => (e.event as { text: string }).text);
    expect(said).toEqual([...SANDBOX_SCRIPTS.converses]); // then silence
  });

  it('a person says "Hello?" after 1.5 s when the assistant says nothing', async () => {
    const { clock, events } = dial('+4915100000000');
    await clock.advance(3300 + 1500);
    expect(events.at(-1)).toEqual({ at: 4800, event: { type: 'customer-said', text: SANDBOX_SCRIPTS.hello } });
  });

  it('…95 answers the first utterance with an excuse and hangs up', async () => {
    const { clock, leg, events } = dial('+4915100000095');
    await clock.advance(3300);
    void leg.say!('Hello.');
    await clock.advance(10_000);
    expect(events.slice(-2)).toEqual([
      { at: 4350, event: { type: 'customer-said', text: SANDBOX_SCRIPTS.hangsUp } },
      { at: 4350, event: { type: 'hung-up' } },
    ]);
  });

  it('an inbound call is picked up after 1 s of ringing', async () => {
    const { clock, events } = dial('+4915100000000', 1, 'inbound');
    await clock.advance(1300);
    expect(events.map((e) => [e.at, e.event.type])).toEqual([[300, 'ringing'], [1300, 'answered']]);
  });

  it('hanging up silences the leg and releases a pending utterance', async () => {
    const { clock, leg, events } = dial('+4915100000000');
    await clock.advance(3300);
    let spoken = false;
    void leg.say!('A long sentence that takes a while to say.').then(() => (spoken = true));
    leg.hangUp();
    await clock.advance(0);
    expect(spoken).toBe(true);
    const count = events.length;
    await clock.advance(60_000);
    expect(events).toHaveLength(count);
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('time scale', () => {
  it('halves every delay at 0.5 and makes everything immediate at 0', async () => {
    const half = dial('+4915100000092', 0.5);
    await half.clock.advance(60_000);
    expect(half.events.map((e) => e.at)).toEqual([150, 10_150]);
    const instant = dial('+4915100000094', 0);
    await instant.clock.advance(0);
    expect(instant.events.map((e) => [e.at, e.event.type])).toEqual([[0, 'ringing'], [0, 'answered'], [0, 'customer-said']]);
  });
});
