/**
 * Phone numbers as their owner and the admin manage them: the owner names theirs (only theirs);
 * the admin moves a number to another user and removes one, both refused while an assistant
 * holds the number or a call runs on it; call records are never touched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TwilioDouble } from '../../support/doubles/twilio.js';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { insertCall } from '../calls/support.js';

let t: TestService;
let twilio: TwilioDouble;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  twilio = await TwilioDouble.start();
  t = await startTestService({ env: { SECRET_KEY: 's'.repeat(40), TWILIO_API_URL: twilio.url } });
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
});
afterAll(async () => {
  await t?.close();
  await twilio?.close();
});

const patch = (who: { request: TestUser['request'] }, url: string, body: unknown) => who.request('PATCH', url, body);

describe('an owner names their numbers', () => {
  it('renames its own number, lists it with the name, and clears it with null or ""', async () => {
    const number = await t.addPhoneNumber(alice.id, '+4930555000301');
    const res = await patch(alice, `/api/user/phone-numbers/${number.id}`, { label: '  Berlin office ' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'Phone number updated',
      data: { id: number.id, phone_number: '+4930555000301', country_code: 'DE', type_label: 'Normal', is_available: true, label: 'Berlin office', carrier: 'sandbox' },
    });
    expect((await alice.get('/api/user/phone-numbers')).body.data).toEqual([res.body.data]);
    // The spec's lists keep the spec's record.
    const all = await alice.get('/api/user/phone-numbers/all');
    expect(Object.keys(all.body.data[0]).sort()).toEqual(['country_code', 'id', 'is_available', 'phone_number', 'type_label']);
    expect((await t.admin.get(`/api/admin/users/${alice.id}/phone-numbers`)).body.data[0]).toMatchObject({ label: 'Berlin office', user_id: alice.id });
    expect((await patch(alice, `/api/user/phone-numbers/${number.id}`, { label: '' })).body.data.label).toBeNull();
    await patch(alice, `/api/user/phone-numbers/${number.id}`, { label: 'Sales' });
    expect((await patch(alice, `/api/user/phone-numbers/${number.id}`, { label: null })).body.data.label).toBeNull();
  });

  it('validates the name and needs it sent', async () => {
    const number = await t.addPhoneNumber(alice.id, '+4930555000302');
    const url = `/api/user/phone-numbers/${number.id}`;
    const tooLong = await patch(alice, url, { label: 'x'.repeat(65) });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors).toEqual({ label: ['The label field must not be greater than 64 characters.'] });
    expect((await patch(alice, url, { label: 7 })).status).toBe(422);
    expect((await patch(alice, url, {})).status).toBe(422);
    expect((await patch(alice, url, { label: 'x'.repeat(64) })).status).toBe(200);
  });

  it("answers another user's number exactly like a missing one, and changes nothing", async () => {
    const number = await t.addPhoneNumber(alice.id, '+4930555000303');
    await patch(alice, `/api/user/phone-numbers/${number.id}`, { label: 'Mine' });
    const foreign = await patch(bob, `/api/user/phone-numbers/${number.id}`, { label: 'Stolen' });
    const missing = await patch(bob, '/api/user/phone-numbers/999999', { label: 'Stolen' });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect(foreign.body).toEqual({ message: 'Phone number not found.' });
    expect((await bob.get('/api/user/phone-numbers')).body.data.map((n: { id: number }) => n.id)).not.toContain(number.id);
    const mine = (await alice.get('/api/user/phone-numbers')).body.data.find((n: { id: number }) => n.id === number.id);
    expect(mine.label).toBe('Mine');
    expect((await patch(t.anonymous, `/api/user/phone-numbers/${number.id}`, { label: 'x' })).status).toBe(401);
  });
});

describe('the admin moves and removes numbers', () => {
  it('moves a free number to another user (the old name goes with the old owner) and refuses user tokens', async () => {
    const number = await t.addPhoneNumber(alice.id, '+4930555000401');
    await patch(alice, `/api/user/phone-numbers/${number.id}`, { label: "Alice's line" });
    for (const who of [alice, bob, t.anonymous]) {
      expect((await patch(who, `/api/admin/phone-numbers/${number.id}`, { user_id: bob.id })).status).toBe(401);
      expect((await who.delete(`/api/admin/phone-numbers/${number.id}`)).status).toBe(401);
    }
    const moved = await patch(t.admin, `/api/admin/phone-numbers/${number.id}`, { user_id: String(bob.id) });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ message: 'Phone number moved', data: { id: number.id, user_id: bob.id, label: null } });
    expect((await bob.get('/api/user/phone-numbers')).body.data.map((n: { id: number }) => n.id)).toContain(number.id);
    expect((await alice.get('/api/user/phone-numbers')).body.data.map((n: { id: number }) => n.id)).not.toContain(number.id);
    // Alice can no longer name it; Bob can.
    expect((await patch(alice, `/api/user/phone-numbers/${number.id}`, { label: 'x' })).status).toBe(404);
    expect((await patch(bob, `/api/user/phone-numbers/${number.id}`, { label: "Bob's line" })).status).toBe(200);
    // To its own owner: nothing changes.
    expect((await patch(t.admin, `/api/admin/phone-numbers/${number.id}`, { user_id: bob.id })).body.data).toMatchObject({ user_id: bob.id, label: "Bob's line" });
  });

  it('refuses to move a number an assistant holds or a call runs on, with the reason', async () => {
    const number = await t.addPhoneNumber(alice.id, '+4930555000402');
    const assistant = await insertAssistant(t, alice.id, { name: 'Front desk', type: 'inbound', phoneNumberId: number.id });
    const held = await patch(t.admin, `/api/admin/phone-numbers/${number.id}`, { user_id: bob.id });
    expect(held.status).toBe(409);
    expect(held.body.message).toBe(`+4930555000402 cannot be moved to another user: the assistant "Front desk" (${assistant.id}) uses it. Give it another number first.`);
    // A deleted assistant no longer holds it; a live call on it still stands in the way.
    await t.service.ctx.database.pool.query('UPDATE assistants SET deleted_at = now() WHERE id = $1', [assistant.id]);
    const call = await insertCall(t, alice.id, { status: 'in-progress', assistantPhoneNumber: '+4930555000402' });
    const live = await patch(t.admin, `/api/admin/phone-numbers/${number.id}`, { user_id: bob.id });
    expect(live.status).toBe(409);
    expect(live.body.message).toMatch(/while a call runs on it/);
    await t.service.ctx.database.pool.query("UPDATE calls SET status = 'completed' WHERE id = $1", [call.id]);
    expect((await patch(t.admin, `/api/admin/phone-numbers/${number.id}`, { user_id: bob.id })).status).toBe(200);
  });

  it('refuses an unknown user, an unknown number, and a Twilio number for a user without credentials', async () => {
    const number = await t.addPhoneNumber(alice.id, '+4930555000403');
    const unknownUser = await patch(t.admin, `/api/admin/phone-numbers/${number.id}`, { user_id: 999999 });
    expect(unknownUser.status).toBe(422);
    expect(unknownUser.body.errors).toEqual({ user_id: ['The selected user id is invalid.'] });
    expect((await patch(t.admin, `/api/admin/phone-numbers/${number.id}`, {})).body.errors).toEqual({ user_id: ['The user id field is required.'] });
    expect((await patch(t.admin, '/api/admin/phone-numbers/999999', { user_id: bob.id })).body).toEqual({ message: 'Phone number not found.' });
    expect((await t.admin.delete('/api/admin/phone-numbers/999999')).status).toBe(404);

    // Alice's Twilio number: Bob has no Twilio credentials (and the deployment none), so his calls could not use it.
    const put = await t.admin.put(`/api/admin/users/${alice.id}/carriers/twilio`, { account_sid: twilio.accountSid, auth_token: twilio.authToken });
    expect(put.status).toBe(200);
    const tw = await t.admin.post(`/api/admin/users/${alice.id}/phone-numbers`, { phone_number: '+14155550900', type_label: 'Normal', carrier: 'twilio' });
    const refused = await patch(t.admin, `/api/admin/phone-numbers/${tw.body.data.id}`, { user_id: bob.id });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.user_id[0]).toMatch(/has no Twilio credentials/);
    expect((await t.admin.get(`/api/admin/users/${alice.id}/phone-numbers`)).body.data.map((n: { id: number }) => n.id)).toContain(tw.body.data.id);
  });

  it('removes a free number and keeps the calls made on it; refuses while an assistant or a call uses it', async () => {
    const number = await t.addPhoneNumber(alice.id, '+4930555000404');
    const assistant = await insertAssistant(t, alice.id, { name: 'Dialer', phoneNumberId: number.id });
    const held = await t.admin.delete(`/api/admin/phone-numbers/${number.id}`);
    expect(held.status).toBe(409);
    expect(held.body.message).toBe(`+4930555000404 cannot be removed: the assistant "Dialer" (${assistant.id}) uses it. Give it another number first.`);
    await t.service.ctx.database.pool.query('UPDATE assistants SET phone_number_id = NULL WHERE id = $1', [assistant.id]);
    const done = await insertCall(t, alice.id, { status: 'completed', assistantPhoneNumber: '+4930555000404' });
    const ringing = await insertCall(t, alice.id, { status: 'ringing', assistantPhoneNumber: '+4930555000404' });
    expect((await t.admin.delete(`/api/admin/phone-numbers/${number.id}`)).status).toBe(409);
    await t.service.ctx.database.pool.query("UPDATE calls SET status = 'no-answer' WHERE id = $1", [ringing.id]);
    const removed = await t.admin.delete(`/api/admin/phone-numbers/${number.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ message: 'Phone number removed' });
    expect((await alice.get('/api/user/phone-numbers')).body.data.map((n: { id: number }) => n.id)).not.toContain(number.id);
    const { rows } = await t.service.ctx.database.pool.query('SELECT id, assistant_phone_number FROM calls WHERE id = ANY($1) ORDER BY id', [[done.id, ringing.id]]);
    expect(rows).toEqual([{ id: done.id, assistant_phone_number: '+4930555000404' }, { id: ringing.id, assistant_phone_number: '+4930555000404' }]);
    expect((await t.admin.delete(`/api/admin/phone-numbers/${number.id}`)).status).toBe(404);
  });

  it('refuses while an assistant places warm transfers from the number', async () => {
    const number = await t.addPhoneNumber(alice.id, '+4930555000406');
    const data = {
      supervisor_phone: '+4930555000999', outbound_phone_id: number.id, description: 'Hand over to a supervisor',
      caller_id_mode: 'outbound_number' as const, hold_music: 'none' as const, hold_music_volume: 0.5,
    };
    const assistant = await insertAssistant(t, alice.id, { name: 'Escalator', builtinTools: [{ type: 'warm_call_transfer', data }] });
    const held = await t.admin.delete(`/api/admin/phone-numbers/${number.id}`);
    expect(held.status).toBe(409);
    expect(held.body.message).toContain(`"Escalator" (${assistant.id})`);
    expect((await patch(t.admin, `/api/admin/phone-numbers/${number.id}`, { user_id: bob.id })).status).toBe(409);
    await t.service.ctx.database.pool.query("UPDATE assistants SET builtin_tools = '[]' WHERE id = $1", [assistant.id]);
    expect((await t.admin.delete(`/api/admin/phone-numbers/${number.id}`)).status).toBe(200);
  });

  it("does not count another user's live call on the same number text", async () => {
    const number = await t.addPhoneNumber(alice.id, '+4930555000405');
    await insertCall(t, bob.id, { status: 'in-progress', assistantPhoneNumber: '+4930555000405' });
    expect((await t.admin.delete(`/api/admin/phone-numbers/${number.id}`)).status).toBe(200);
  });
});
