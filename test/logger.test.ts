/** Log lines for people at a terminal, JSON for collectors; secrets redacted either way. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, wantsPretty } from '../src/logger.js';

function sink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

describe('createLogger', () => {
  it('chooses pretty output for a terminal only, unless told', () => {
    expect(wantsPretty('auto', true)).toBe(true);
    expect(wantsPretty('auto', false)).toBe(false);
    expect(wantsPretty('json', true)).toBe(false);
    expect(wantsPretty('pretty', false)).toBe(true);
  });

  it('writes one JSON object per line in json format', () => {
    const out = sink();
    const log = createLogger('info', 'json', out.stream);
    log.info({ callId: 7, token: 'sb_secret' }, 'call started');
    const line = JSON.parse(out.text().trim());
    expect(line).toMatchObject({ level: 30, msg: 'call started', callId: 7, token: '[redacted]' });
  });

  it('writes readable lines in pretty format, synchronously, with the same redaction', () => {
    const out = sink();
    const log = createLogger('info', 'pretty', out.stream);
    log.info({ callId: 7, token: 'sb_secret' }, 'call started');
    // Synchronous: the line is there before the next statement.
    const text = out.text();
    expect(() => JSON.parse(text)).toThrow();
    expect(text).toMatch(/INFO.*call started/);
    expect(text).toContain('callId: 7');
    expect(text).not.toContain('sb_secret');
  });
});
