import { describe, expect, it } from 'vitest';
import { storableJson, storableText } from '../../src/lib/storable.js';

describe('storable text', () => {
  it('replaces NUL and unpaired surrogates with U+FFFD and keeps everything else, pairs included', () => {
    expect(storableText('a\u0000b')).toBe('a\uFFFDb');
    expect(storableText('x\ud800')).toBe('x\uFFFD');
    expect(storableText('\udc00y')).toBe('\uFFFDy');
    expect(storableText('ok 😀 \u0001\t')).toBe('ok 😀 \u0001\t');
    // A pair cut in half (a capped body) leaves its high half alone.
    expect(storableText('😀'.slice(0, 1))).toBe('\uFFFD');
  });

  it('cleans every string of a JSON value, keys included, and leaves other values as they are', () => {
    expect(storableJson({ 'k\u0000': ['v\ud800', 1, null, true, { n: 'x\u0000' }] })).toEqual({ 'k\uFFFD': ['v\uFFFD', 1, null, true, { n: 'x\uFFFD' }] });
    expect(storableJson(42)).toBe(42);
  });
});
