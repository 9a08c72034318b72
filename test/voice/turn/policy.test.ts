import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EndOfTurnPolicy, turnWaits, waitFor, type EndOfTurnOptions, type TurnDecision, type TurnSignal } from '../../../src/voice/turn/policy.js';
import { VAD_STOP_MS } from '../../../src/voice/voice-call.js';

/** The VAD's stop window (its report comes this long after the end of speech) and the default waits. */
const V = VAD_STOP_MS;
const W = turnWaits(0.5);

/** Runs timed signals through a policy on a simulated clock, ticking at every deadline; returns the decisions. */
function play(script: [at: number, signal: TurnSignal][], options: Partial<EndOfTurnOptions> = {}, until = 10_000): TurnDecision[] {
  const policy = new EndOfTurnPolicy({ endpointType: 'vad', language: 'en', waits: turnWaits(0.5), ...options });
  const out: TurnDecision[] = [];
  script = [...script].sort((a, b) => a[0] - b[0]);
  const tickUntil = (t: number) => {
    for (let d = policy.nextDeadline(); d !== null && d <= t; d = policy.nextDeadline()) out.push(...policy.tick(d));
  };
  for (const [at, signal] of script) {
    tickUntil(at);
    out.push(...policy.handle(signal, at));
  }
  tickUntil(until);
  return out;
}

const brief = (decisions: TurnDecision[]) =>
  decisions.map((d) => {
    switch (d.type) {
      case 'likely-over':
        return `${d.at} likely-over "${d.text}"`;
      case 'confirmed':
        return `${d.at} confirmed "${d.text}" (${d.why})`;
      case 'resumed':
        return `${d.at} resumed (${d.why})`;
      default:
        return `${d.at} ${d.type}`;
    }
  });

const speech = (from: number, to: number): [number, TurnSignal][] => [
  [from, { type: 'speech-started', at: from }],
  // The VAD reports the end of speech after its stop window (the call's VAD_STOP_MS).
  [to + V, { type: 'speech-stopped', at: to }],
];
const final = (at: number, text: string): [number, TurnSignal] => [at, { type: 'transcript', text, final: true }];
const interim = (at: number, text: string): [number, TurnSignal] => [at, { type: 'transcript', text, final: false }];

describe('end-of-turn policy: waits', () => {
  it('endpoint_sensitivity maps to the three waits; the default (0.5) is 200 / 1920 / 840 ms', () => {
    expect(turnWaits(0.5)).toEqual({ completeMs: 200, incompleteMs: 1920, neutralMs: 840 });
    expect(turnWaits(0)).toEqual({ completeMs: 250, incompleteMs: 2000, neutralMs: 900 });
    expect(turnWaits(5)).toEqual({ completeMs: 150, incompleteMs: 1200, neutralMs: 300 });
    expect(turnWaits('9')).toEqual(turnWaits(5));
    expect(turnWaits(null)).toEqual(turnWaits(0.5));
  });

  it('at the default the VAD reports the end of speech before the short wait is over: the reply starts at the report, speculatively', () => {
    expect(V).toBeLessThan(W.completeMs);
  });

  it('the wait never grows with the probability and stays within the two bounds', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 5, noNaN: true }), (a, b, s) => {
        const w = turnWaits(s);
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(waitFor(hi, w)).toBeLessThanOrEqual(waitFor(lo, w));
        expect(waitFor(lo, w)).toBeLessThanOrEqual(w.incompleteMs);
        expect(waitFor(hi, w)).toBeGreaterThanOrEqual(w.completeMs);
      }),
    );
  });
});

describe('end-of-turn policy (endpoint_type vad): event sequences', () => {
  it('a complete sentence: likely over at the end of speech, confirmed after the short wait', () => {
    const d = play([...speech(0, 1500), final(1600, 'I would like to book an appointment for Tuesday.')]);
    // Likely over when the VAD reports the end of speech (1500 + V), confirmed at 1500 + the short wait.
    expect(brief(d)).toEqual([`${1500 + V} likely-over "I would like to book an appointment for Tuesday."`, `${1500 + W.completeMs} confirmed "I would like to book an appointment for Tuesday." (silence)`]);
  });

  it('a question is complete: the same short wait', () => {
    const d = play([...speech(0, 900), final(1000, 'What time do you open?')]);
    expect(d.find((x) => x.type === 'confirmed')).toMatchObject({ at: 900 + W.completeMs, why: 'silence', judgement: { reason: 'question' } });
  });

  it('an incomplete clause with a 1.2 s pause: nothing confirmed in the pause, one turn with all the words', () => {
    const d = play([
      ...speech(0, 1200),
      final(1300, 'I would like to book an appointment for'),
      // 1.2 s thinking pause, then the rest.
      ...speech(2400, 3200),
      final(3300, 'Tuesday.'),
    ]);
    expect(brief(d)).toEqual([
      // The long wait (1920 ms) would end at 3120; speculation starts 600 ms before that…
      // …but the caller speaks again at 2400, before either.
      `${3200 + V} likely-over "I would like to book an appointment for Tuesday."`,
      `${3200 + W.completeMs} confirmed "I would like to book an appointment for Tuesday." (silence)`,
    ]);
  });

  it('an incomplete clause and a pause longer than the longest wait: confirmed after incompleteMs', () => {
    const d = play([...speech(0, 1000), final(1100, 'My name is um')]);
    // Speculation starts 600 ms (the lead) before the long wait ends.
    expect(brief(d)).toEqual([`${1000 + W.incompleteMs - 600} likely-over "My name is um"`, `${1000 + W.incompleteMs} confirmed "My name is um" (silence)`]);
  });

  it('speculation dropped: the caller goes on after the likely-over (a gap the VAD ends but shorter than the wait), one turn on all the words', () => {
    // Speech again between the VAD's report and the end of the short wait.
    const again = 1000 + V + Math.floor((W.completeMs - V) / 2);
    expect(again).toBeLessThan(1000 + W.completeMs);
    const d = play([...speech(0, 1000), final(1050, 'I need an appointment.'), ...speech(again, 1900), final(2000, 'On Tuesday.')]);
    expect(brief(d)).toEqual([
      `${1000 + V} likely-over "I need an appointment."`,
      `${again} resumed (speech)`,
      `${1900 + V} likely-over "I need an appointment. On Tuesday."`,
      `${1900 + W.completeMs} confirmed "I need an appointment. On Tuesday." (silence)`,
    ]);
  });

  it('words that change under a speculative reply drop it', () => {
    const more = 1000 + V + Math.floor((W.completeMs - V) / 2);
    const d = play([...speech(0, 1000), final(1000, 'I need a taxi.'), final(more, 'To the airport.')], { speculativeLeadMs: 2000 });
    expect(brief(d)).toEqual([
      `${1000 + V} likely-over "I need a taxi."`,
      `${more} resumed (words-changed)`,
      `${more} likely-over "I need a taxi. To the airport."`,
      `${1000 + W.completeMs} confirmed "I need a taxi. To the airport." (silence)`,
    ]);
  });

  it('no speculation on interim words while their final is asked for: it starts on the final', () => {
    const finalAt = 1000 + V + Math.floor((W.completeMs - V) / 2);
    const d = play([...speech(0, 1000), interim(1000, 'I need a'), final(finalAt, 'I need a taxi.')], { speculativeLeadMs: 2000 });
    expect(brief(d)).toEqual([`${1000 + V} finalize`, `${finalAt} likely-over "I need a taxi."`, `${1000 + W.completeMs} confirmed "I need a taxi." (silence)`]);
  });

  it('a comma pause ("Yes, | that works."): no final forced into it, nothing started, one turn with all the words', () => {
    const d = play([
      [0, { type: 'speech-started', at: 0 }],
      interim(300, 'Yes,'),
      // The VAD reports the comma's pause as an end of speech; the caller goes on 60 ms later.
      [400 + V, { type: 'speech-stopped', at: 400 }],
      [400 + V + 60, { type: 'speech-started', at: 400 + V + 60 }],
      interim(900, 'Yes, that works'),
      ...speech(400 + V + 60, 1200).slice(1),
      final(1200 + V + 2, 'Yes, that works.'),
    ]);
    expect(brief(d)).toEqual([`${1200 + V} finalize`, `${1200 + V + 2} likely-over "Yes, that works."`, `${1200 + W.completeMs} confirmed "Yes, that works." (silence)`]);
  });

  it('only an interim at the end of speech: asks the STT for its final at once and confirms when it comes', () => {
    const d = play([...speech(0, 1000), interim(1100, 'Yes please'), final(1400, 'Yes, please.')], { maxSpeculations: 0 });
    expect(brief(d)).toEqual([`${1000 + V} finalize`, '1400 confirmed "Yes, please." (silence)']);
  });

  it('no words at all: waits the plain silence, asks for the final, and gives up without a turn', () => {
    const d = play([...speech(0, 500)]);
    expect(brief(d)).toEqual([`${500 + W.neutralMs} finalize`]);
  });

  it('never confirms while the VAD hears the caller', () => {
    const d = play([[0, { type: 'speech-started', at: 0 }], final(500, 'Yes.')], {}, 5000);
    expect(d).toEqual([]);
  });

  it('the audio model is asked at each end of speech, and its answer moves the wait', () => {
    const script: [number, TurnSignal][] = [...speech(0, 1000), final(1100, 'I want to book the')];
    const asked = play(script, { audioModel: true });
    expect(asked[0]).toEqual({ type: 'analyze-audio', speechEndAt: 1000, at: 1000 + V });
    // Text alone: strong incomplete → 1920 ms. Audio says 0.95 done → p = (0.15 + 0.95) / 2 = 0.55 → 1920 − 0.35/0.6·1630.
    const withAudio = play([...script, [1250, { type: 'audio-model', probability: 0.95, speechEndAt: 1000 }]], { audioModel: true });
    expect(withAudio.find((x) => x.type === 'confirmed')).toMatchObject({ at: 1000 + waitFor(0.55, turnWaits(0.5)) });
    // An answer for an older end of speech is stale and ignored.
    const stale = play([...script, [1250, { type: 'audio-model', probability: 0.95, speechEndAt: 400 }]], { audioModel: true });
    expect(stale.find((x) => x.type === 'confirmed')).toMatchObject({ at: 1000 + W.incompleteMs });
  });

  it('a higher endpoint_sensitivity confirms sooner; a lower one later', () => {
    const script: [number, TurnSignal][] = [...speech(0, 1000), final(1100, 'Thank you.')];
    const at = (s: number) => play(script, { waits: turnWaits(s) }).find((x) => x.type === 'confirmed')!.at;
    // The VAD's report is the earliest confirmation (at 5 the short wait is not longer than its window).
    expect(at(5)).toBe(1000 + Math.max(turnWaits(5).completeMs, V));
    expect(at(0)).toBe(1000 + turnWaits(0).completeMs);
    expect(at(5)).toBeLessThan(at(0.5));
    expect(at(0.5)).toBeLessThan(at(0));
  });

  it('German: a clause ending in "einen" waits, a finished one does not', () => {
    const open = play([...speech(0, 1000), final(1100, 'Ich hätte gern einen')], { language: 'de-DE' });
    const done = play([...speech(0, 1000), final(1100, 'Ich hätte gern einen Termin.')], { language: 'de-DE' });
    expect(open.find((x) => x.type === 'confirmed')!.at).toBe(1000 + W.incompleteMs);
    expect(done.find((x) => x.type === 'confirmed')!.at).toBe(1000 + W.completeMs);
  });

  it('speculation is capped per turn', () => {
    const script: [number, TurnSignal][] = [];
    // Five pieces, each ending open, each followed by more speech 500 ms later; speculation from the end of speech on.
    for (let i = 0; i < 5; i++) script.push(...speech(i * 1000, i * 1000 + 500), final(i * 1000 + 600, `part ${i} and`));
    const d = play(script, { maxSpeculations: 3, speculativeLeadMs: 2000 });
    expect(d.filter((x) => x.type === 'likely-over')).toHaveLength(3);
    expect(d.filter((x) => x.type === 'confirmed')).toHaveLength(1);
  });
});

describe('end-of-turn policy (endpoint_type ai): provider turn events', () => {
  it('Deepgram speech_final on a complete clause confirms at once', () => {
    const d = play([...speech(0, 1000), [1300, { type: 'transcript', text: 'Thank you.', final: true, speechFinal: true }]], { endpointType: 'ai' });
    expect(brief(d)).toEqual(['1300 confirmed "Thank you." (provider)']);
  });

  it('Deepgram speech_final on open words is held for the long wait; more speech makes it one turn', () => {
    const d = play(
      [
        ...speech(0, 1000),
        [1300, { type: 'transcript', text: 'I want to book the', final: true, speechFinal: true }],
        ...speech(2000, 2600),
        [2700, { type: 'transcript', text: 'dentist.', final: true, speechFinal: true }],
      ],
      { endpointType: 'ai' },
    );
    // The second speech_final comes while the VAD is still in its stop window: it waits for the VAD.
    expect(brief(d)).toEqual([`${2600 + V} confirmed "I want to book the dentist." (provider)`]);
  });

  it('UtteranceEnd confirms when speech_final was dropped', () => {
    const d = play([...speech(0, 1000), interim(1100, 'Thank you'), [2000, { type: 'utterance-end' }]], { endpointType: 'ai' });
    // Speculation follows the silence rule; the provider's UtteranceEnd confirms.
    expect(brief(d)).toEqual([`${1000 + V} likely-over "Thank you"`, '2000 confirmed "Thank you" (provider)']);
  });

  it('Flux: eager end starts the reply, EndOfTurn confirms it with the same words', () => {
    const d = play(
      [
        [0, { type: 'speech-started', at: 0 }],
        [300, { type: 'provider-turn', event: 'start', text: 'I' }],
        [600, { type: 'provider-turn', event: 'update', text: 'I need a taxi' }],
        [1100, { type: 'provider-turn', event: 'eager-end', text: 'I need a taxi', confidence: 0.55 }],
        [1200, { type: 'speech-stopped', at: 1000 }],
        [1250, { type: 'provider-turn', event: 'end', text: 'I need a taxi', confidence: 0.8 }],
      ],
      { endpointType: 'ai' },
    );
    expect(brief(d)).toEqual(['1100 likely-over "I need a taxi"', '1250 confirmed "I need a taxi" (provider)']);
  });

  it('Flux: TurnResumed drops the speculative reply; the longer words end the turn', () => {
    const d = play(
      [
        [0, { type: 'speech-started', at: 0 }],
        [900, { type: 'provider-turn', event: 'eager-end', text: 'I need a taxi', confidence: 0.5 }],
        [1000, { type: 'provider-turn', event: 'resumed', text: 'I need a taxi' }],
        [1300, { type: 'provider-turn', event: 'update', text: 'I need a taxi to the airport' }],
        [1500, { type: 'speech-stopped', at: 1300 }],
        [1550, { type: 'provider-turn', event: 'end', text: 'I need a taxi to the airport', confidence: 0.9 }],
      ],
      { endpointType: 'ai' },
    );
    expect(brief(d)).toEqual(['900 likely-over "I need a taxi"', '1000 resumed (provider)', '1500 likely-over "I need a taxi to the airport"', '1550 confirmed "I need a taxi to the airport" (provider)']);
  });

  it('Flux reports its end twice (turn event, then the final transcript): the words count once', () => {
    const d = play(
      [
        [0, { type: 'speech-started', at: 0 }],
        [500, { type: 'transcript', text: 'Thanks', final: false }],
        [500, { type: 'provider-turn', event: 'update', text: 'Thanks' }],
        [1000, { type: 'speech-stopped', at: 800 }],
        [1050, { type: 'provider-turn', event: 'end', text: 'Thanks.', confidence: 0.9 }],
        [1050, { type: 'transcript', text: 'Thanks.', final: true, speechFinal: true }],
      ],
      { endpointType: 'ai' },
    );
    expect(brief(d)).toEqual(['1000 likely-over "Thanks"', '1050 confirmed "Thanks." (provider)']);
  });

  it('Flux EndOfTurn while the VAD still hears the caller waits for the VAD', () => {
    const d = play(
      [
        [0, { type: 'speech-started', at: 0 }],
        [800, { type: 'provider-turn', event: 'end', text: 'Thanks.', confidence: 0.9 }],
        [1000, { type: 'speech-stopped', at: 800 }],
      ],
      { endpointType: 'ai' },
    );
    expect(brief(d)).toEqual(['1000 confirmed "Thanks." (provider)']);
  });

  it('Flux EndOfTurn in endpoint_type vad is strong evidence: the short wait applies even to open-looking words', () => {
    const d = play([...speech(0, 1000), [1150, { type: 'provider-turn', event: 'end', text: 'Two tickets for', confidence: 0.95 }]]);
    // p = (0.15 + 2·0.95) / 3 = 0.683 → 1920 − (0.483/0.6)·1630.
    expect(d.find((x) => x.type === 'confirmed')).toMatchObject({ at: 1000 + waitFor((0.15 + 1.9) / 3, turnWaits(0.5)), why: 'silence' });
  });

  it('with no provider decision, the fallback silence ends the turn', () => {
    const d = play([...speech(0, 1000), final(1100, 'Hello there')], { endpointType: 'ai', aiFallbackMs: 3000 });
    expect(brief(d)).toEqual([`${1000 + V} likely-over "Hello there"`, '4000 confirmed "Hello there" (fallback)']);
  });
});

describe('end-of-turn policy: properties', () => {
  const sentences = fc.constantFrom('Thank you.', 'I want the', 'My name is um', 'What time is it?', 'Ich hätte gern einen', 'Yes');
  it('every confirmation comes after the end of speech and no later than the longest wait (plus the STT final wait)', () => {
    fc.assert(
      fc.property(sentences, fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 300 }), (text, s, lag) => {
        const waits = turnWaits(s);
        const d = play([...speech(0, 1000), final(1000 + lag, text)], { waits, language: text.startsWith('Ich') ? 'de' : 'en' });
        const confirmed = d.filter((x) => x.type === 'confirmed');
        expect(confirmed).toHaveLength(1);
        expect(confirmed[0].at).toBeGreaterThanOrEqual(1000 + waits.completeMs);
        expect(confirmed[0].at).toBeLessThanOrEqual(Math.max(1000 + waits.incompleteMs, 1000 + lag + V));
      }),
    );
  });

  it('a resumed always follows a likely-over, and nothing is confirmed while the caller speaks', () => {
    const step = fc.oneof(
      fc.constant<'start'>('start'),
      fc.constant<'stop'>('stop'),
      sentences.map((t) => ({ text: t })),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(step, fc.integer({ min: 1, max: 1500 })), { maxLength: 12 }), (steps) => {
        let t = 0;
        let speaking = false;
        const script: [number, TurnSignal][] = [];
        for (const [s, gap] of steps) {
          t += gap;
          if (s === 'start' && !speaking) (speaking = true), script.push([t, { type: 'speech-started', at: t }]);
          else if (s === 'stop' && speaking) (speaking = false), script.push([t, { type: 'speech-stopped', at: t - 100 }]);
          else if (typeof s === 'object') script.push([t, { type: 'transcript', text: s.text, final: true }]);
        }
        const policy = new EndOfTurnPolicy({ endpointType: 'vad', language: 'en', waits: turnWaits(0.5) });
        let open = false;
        let inSpeech = false;
        const check = (ds: TurnDecision[]) => {
          for (const d of ds) {
            if (d.type === 'likely-over') open = true;
            if (d.type === 'resumed') expect(open).toBe(true), (open = false);
            if (d.type === 'confirmed') expect(inSpeech).toBe(false), (open = false);
          }
        };
        for (const [at, signal] of script) {
          for (let d = policy.nextDeadline(); d !== null && d <= at; d = policy.nextDeadline()) check(policy.tick(d));
          if (signal.type === 'speech-started') inSpeech = true;
          if (signal.type === 'speech-stopped') inSpeech = false;
          check(policy.handle(signal, at));
        }
      }),
    );
  });
});
