/**
 * The record's voice-setting fields the spec's request list lacks (filler_config, ambient_sound):
 * create and update take them under their record names, as they do every record name (CONTRACT §7).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { minimalCreate } from './fixtures.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
});
afterAll(() => t.close());

describe('filler_config and ambient_sound', () => {
  it('are stored on create and update; a mood left out is an empty list', async () => {
    const created = await alice.post('/api/user/assistant', {
      ...minimalCreate,
      filler_audios: true,
      filler_config: { neutral: ['One moment.'], question: ['Good question!'] },
      ambient_sound: 'office',
      ambient_sound_volume: 0.3,
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      fillers: 1,
      filler_config: { neutral: ['One moment.'], negative: [], positive: [], question: ['Good question!'] },
      ambient_sound: 'office',
      ambient_sound_volume: '0.30',
    });
    const id = created.body.data.id;
    const updated = await alice.put(`/api/user/assistant/${id}`, { ambient_sound: 'cafe', filler_config: { positive: ['Great!'] } });
    expect(updated.status).toBe(200);
    const list = await alice.get('/api/user/assistants/get?per_page=100');
    const record = list.body.data.find((a: { id: number }) => a.id === id);
    expect(record).toMatchObject({ ambient_sound: 'cafe', filler_config: { neutral: [], negative: [], positive: ['Great!'], question: [] } });
  });

  it('refuses an unknown sound, a non-object config, a non-list mood and over-long phrases with 422', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ ambient_sound: 'jungle' }, 'ambient_sound', 'The selected ambient sound is invalid.'],
      [{ filler_config: 'hmm' }, 'filler_config', 'The filler config field must be an object.'],
      [{ filler_config: { neutral: 'hmm' } }, 'filler_config.neutral', 'The filler_config.neutral field must be an array.'],
      [{ filler_config: { neutral: ['x'.repeat(201)] } }, 'filler_config.neutral.0', 'The filler_config.neutral.0 field must not be greater than 200 characters.'],
    ];
    for (const [body, key, message] of cases) {
      const res = await alice.post('/api/user/assistant', { ...minimalCreate, ...body });
      expect(res.status, key).toBe(422);
      expect(res.body.errors[key], key).toEqual([message]);
    }
  });

  it("another user cannot change them on someone else's assistant", async () => {
    const created = await alice.post('/api/user/assistant', { ...minimalCreate, ambient_sound: 'office' });
    const res = await bob.put(`/api/user/assistant/${created.body.data.id}`, { ambient_sound: 'cafe' });
    expect(res.status).toBe(404);
  });
});
