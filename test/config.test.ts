import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration from the environment', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 8080,
      DATA_DIR: './data',
      DEFAULT_PHONE_REGION: 'DE',
      RATE_LIMIT_PER_MINUTE: 300,
      SANDBOX_TIME_SCALE: 1,
      WEBHOOK_RETRY_SCHEDULE: [5, 300, 1800, 7200, 18000, 36000, 36000],
      ALLOW_PRIVATE_TARGETS: false,
      publicBaseUrl: 'http://localhost:8080',
      publicAppUrl: 'http://localhost:8080',
    });
  });

  it('COST_CURRENCY: USD by default, any ISO 4217 code, refused otherwise with the setting named', () => {
    expect(loadConfig({}).COST_CURRENCY).toBe('USD');
    expect(loadConfig({ COST_CURRENCY: 'EUR' }).COST_CURRENCY).toBe('EUR');
    for (const bad of ['usd', 'EURO', '€']) expect(() => loadConfig({ COST_CURRENCY: bad })).toThrow(/COST_CURRENCY: a three-letter currency code/);
  });

  it('names every bad setting clearly', () => {
    expect(() => loadConfig({ PORT: 'eighty', WEBHOOK_RETRY_SCHEDULE: '5,,x', ALLOW_PRIVATE_TARGETS: 'maybe' })).toThrow(ConfigError);
    try {
      loadConfig({ PORT: 'eighty', WEBHOOK_RETRY_SCHEDULE: '5,,x' });
    } catch (err) {
      expect((err as Error).message).toContain('PORT');
      expect((err as Error).message).toContain('WEBHOOK_RETRY_SCHEDULE');
    }
  });

  it('accepts DATABASE_URL without ADMIN_TOKEN (the admin token is then the one `switchboard admin-token rotate` stores)', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://x@127.0.0.1/db' }).ADMIN_TOKEN).toBeUndefined();
    expect(loadConfig({ DATABASE_URL: 'postgres://x@127.0.0.1/db', ADMIN_TOKEN: 'a-long-enough-admin-token' }).ADMIN_TOKEN).toBe('a-long-enough-admin-token');
    expect(() => loadConfig({ ADMIN_TOKEN: 'short' })).toThrow(/ADMIN_TOKEN/);
  });

  it('reads PUBLIC_BASE_URL and PUBLIC_APP_URL without trailing slashes', () => {
    const c = loadConfig({ PUBLIC_BASE_URL: 'https://api.example.com/', PUBLIC_APP_URL: 'https://app.example.com' });
    expect(c.publicBaseUrl).toBe('https://api.example.com');
    expect(c.publicAppUrl).toBe('https://app.example.com');
  });
});
