import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testsWithoutDatabase } from './database-tests.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('which tests the second database runs', () => {
  const withoutDatabase = testsWithoutDatabase(root);

  it('leaves out tests that never reach a database', () => {
    expect(withoutDatabase).toContain('test/audio/g711.test.ts');
    expect(withoutDatabase).toContain('test/providers/llm/openai.test.ts');
  });

  it('leaves out a test that marks itself @one-database', () => {
    expect(withoutDatabase).toContain('test/reliability/idle-sockets.test.ts');
  });

  it('keeps tests that use the service (directly or through a support file) or the server URL', () => {
    expect(withoutDatabase).not.toContain('test/api/assistants/crud.test.ts');
    expect(withoutDatabase).not.toContain('test/main.test.ts');
    expect(withoutDatabase).not.toContain('test/deploy/multi-instance.test.ts');
    expect(withoutDatabase).toContain('test/reliability/outage-recovery.test.ts'); // its own cluster: @one-database
  });
});
