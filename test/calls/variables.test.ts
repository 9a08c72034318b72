/** The `{{variable}}` rule: filled where supplied; in spoken text, never read out literally. */
import { describe, expect, it } from 'vitest';
import { callEnginePart } from '../../src/calls/index.js';
import { fillSpokenTemplate, fillTemplate, withoutPlaceholders } from '../../src/calls/variables.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService } from '../support/service.js';

describe('spoken templates', () => {
  it('fills what the call supplies and removes the rest with the space or comma that introduced it', () => {
    const vars = { name: 'Sam', order: 42, empty: null };
    expect(fillSpokenTemplate('Hi {{name}}, this is Ada.', vars)).toBe('Hi Sam, this is Ada.');
    expect(fillSpokenTemplate('Hi {{first_name}}, this is Ada.', vars)).toBe('Hi, this is Ada.');
    expect(fillSpokenTemplate('Hello, {{ first_name }}!', vars)).toBe('Hello!');
    expect(fillSpokenTemplate('Hello, {{first_name}}, about order {{order}}.', vars)).toBe('Hello, about order 42.');
    expect(fillSpokenTemplate('{{greeting}} Sam, welcome.', vars)).toBe('Sam, welcome.');
    expect(fillSpokenTemplate('Dear {{title}} {{surname}}, thanks.', vars)).toBe('Dear, thanks.');
    expect(fillSpokenTemplate('Your code is {{empty}}.', vars)).toBe('Your code is.');
    expect(fillSpokenTemplate('{{only}}', vars)).toBe('');
  });

  it('keeps text without placeholders exactly as it is (no trimming, no spacing changes)', () => {
    for (const text of ['  Hello  there ', 'Price : 5 €', 'a {single} brace', '']) expect(withoutPlaceholders(text)).toBe(text);
  });

  it('leaves unknown placeholders in the system prompt as written (CONTRACT §6)', () => {
    expect(fillTemplate('Call {{name}} about {{topic}}.', { name: 'Sam' })).toBe('Call Sam about {{topic}}.');
  });
});

describe('a call whose greeting names a variable it was not given', () => {
  it('greets without the placeholder; the transcript shows what was said', async () => {
    const t = await startTestService({ parts: [callEnginePart] });
    try {
      const user = await t.createUser();
      const phone = await t.addPhoneNumber(user.id);
      const a = await insertAssistant(t, user.id, { phoneNumberId: phone.id, initialMessage: 'Hi {{first_name}}, this is {{agent}} from Switchboard.', variables: { agent: 'Ada' } });
      const placed = await user.post('/api/user/make_call', { phone_number: '+4915123456710', assistant_id: a.id, variables: {} });
      expect(placed.status).toBe(200);
      await t.service.ctx.services.callEngine!.whenFinished(placed.body.call_id);
      const call = (await user.get(`/api/user/calls/${placed.body.call_id}`)).body;
      expect(call.transcript).toContain('AI: Hi, this is Ada from Switchboard.');
      expect(call.transcript).not.toContain('{{');
    } finally {
      await t.close();
    }
  });
});
