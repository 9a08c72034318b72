import { describe, expect, it } from 'vitest';
import { CarrierRegistry } from '../../src/telephony/registry.js';
import { SandboxCarrier } from '../../src/telephony/sandbox/carrier.js';
import type { Carrier } from '../../src/telephony/types.js';

/** A second carrier under another name: the sandbox's behaviour, renamed. */
function renamed(name: string): Carrier {
  const sandbox = new SandboxCarrier({ timeScale: 0 });
  return { name, dial: (request) => sandbox.dial(request) };
}

describe('CarrierRegistry', () => {
  it('finds carriers by name, and the first one is the default', () => {
    const sandbox = new SandboxCarrier({ timeScale: 0 });
    const other = renamed('other');
    const carriers = new CarrierRegistry([sandbox, other]);
    expect(carriers.get('sandbox')).toBe(sandbox);
    expect(carriers.get('other')).toBe(other);
    expect(carriers.get('twilio')).toBeUndefined();
    expect(carriers.default).toBe(sandbox);
    expect(carriers.names).toEqual(['sandbox', 'other']);
  });

  it('takes another default by name, only one it holds', () => {
    const other = renamed('other');
    const carriers = new CarrierRegistry([new SandboxCarrier({ timeScale: 0 }), other], 'other');
    expect(carriers.default).toBe(other);
    expect(() => carriers.setDefault('twilio')).toThrow('no carrier named twilio');
  });

  it('refuses a name twice, and has no default while empty', () => {
    const carriers = new CarrierRegistry();
    expect(() => carriers.default).toThrow('no carrier is registered');
    carriers.add(new SandboxCarrier({ timeScale: 0 }));
    expect(() => carriers.add(new SandboxCarrier({ timeScale: 0 }))).toThrow('registered twice');
  });
});
