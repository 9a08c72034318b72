import { describe, expect, it } from 'vitest';
import { turnSignalOf } from '../../../src/voice/turn/signals.js';

describe('pipeline frames as end-of-turn signals', () => {
  it('maps the frames the policy reads and nothing else', () => {
    expect(turnSignalOf({ kind: 'speech-started', turn: 1, at: 5, probability: 0.9 } as { kind: string })).toEqual({ type: 'speech-started', at: 5 });
    expect(turnSignalOf({ kind: 'speech-stopped', turn: 1, at: 7 } as { kind: string })).toEqual({ type: 'speech-stopped', at: 7 });
    expect(turnSignalOf({ kind: 'transcript', turn: 1, text: 'hi', final: true, speechFinal: false, at: 9 } as { kind: string })).toEqual({ type: 'transcript', text: 'hi', final: true, speechFinal: false });
    expect(turnSignalOf({ kind: 'utterance-end', turn: 1, at: 9 } as { kind: string })).toEqual({ type: 'utterance-end' });
    expect(turnSignalOf({ kind: 'stt-turn', turn: 1, event: 'eager-end', text: 'hi', confidence: 0.6, at: 9 } as { kind: string })).toEqual({ type: 'provider-turn', event: 'eager-end', text: 'hi', confidence: 0.6 });
    expect(turnSignalOf({ kind: 'turn-model', turn: 1, probability: 0.7, speechEndAt: 3, at: 9 } as { kind: string })).toEqual({ type: 'audio-model', probability: 0.7, speechEndAt: 3 });
    expect(turnSignalOf({ kind: 'llm-delta' })).toBeNull();
  });
});
