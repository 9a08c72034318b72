/**
 * Phone numbers and Twilio credentials in the dashboard, in headless Chromium: the admin adds a
 * number to a user, sees a wrong auth token refused by Twilio (the Twilio double), saves the
 * user's credentials (the double accepts them) and adds a Twilio number, removes a number; the
 * user names their number. Each state: axe-core (no serious or critical violations) at desktop width and
 * at 390 px, and the pages do not scroll sideways on a phone.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFitsPhone, launchBrowser, type Browser } from '../support/browser.js';
import { TwilioDouble } from '../support/doubles/twilio.js';
import { ADMIN_TOKEN, startTestService, type TestService, type TestUser } from '../support/service.js';

let twilio: TwilioDouble;
let t: TestService;
let browser: Browser;
let page: Page;
let ada: TestUser;
let base: string;

beforeAll(async () => {
  twilio = await TwilioDouble.start();
  t = await startTestService({ listen: true, env: { SECRET_KEY: 'k'.repeat(40), TWILIO_API_URL: twilio.url } });
  base = t.service.url!;
  ada = await t.createUser({ name: 'Ada Numbers' });
  browser = await launchBrowser();
  page = browser.page;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await twilio?.close();
});

const field = (label: string) => page.getByLabel(label, { exact: true });

/** axe and the keyboard walk at desktop width, then axe and the sideways-scroll check at 390 px. */
const expectFits = (name: string) => expectFitsPhone(page, name);

async function signIn(token: string, landing: string) {
  await page.goto(`${base}/sign-in`);
  await field('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`**${landing}`);
}

describe('phone numbers and Twilio credentials in a browser', () => {
  it('the admin adds a number to a user and removes another', async () => {
    await signIn(ADMIN_TOKEN, '/admin');
    // The voices list names each voice's provider.
    await page.getByRole('columnheader', { name: 'Provider', exact: true }).waitFor();
    await expectFits('pn-01-admin');
    await page.getByRole('link', { name: 'Ada Numbers', exact: true }).click();
    await page.getByRole('heading', { name: 'User: Ada Numbers' }).waitFor();
    for (const number of ['+4930555000901', '+4930555000902']) {
      await field('Phone number').fill(number);
      await page.getByRole('button', { name: 'Add number' }).click();
      await page.getByRole('cell', { name: number, exact: true }).waitFor();
    }
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Remove +4930555000902' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('+4930555000902: phone number removed.');
    expect((await ada.get('/api/user/phone-numbers')).body.data.map((n: { phone_number: string }) => n.phone_number)).toEqual(['+4930555000901']);
    await expectFits('pn-02-admin-user-numbers');
  });

  it("the admin sees a wrong auth token refused by Twilio, then saves the user's credentials and adds a Twilio number", async () => {
    await field('Account SID').fill(twilio.accountSid);
    await field('Auth token').fill('not-the-token-' + 'x'.repeat(18));
    await page.getByRole('button', { name: 'Check and save' }).click();
    await expect.poll(() => page.getByRole('alert').allTextContents()).toEqual(
      expect.arrayContaining(['Twilio refused these credentials (401).']),
    );
    await expect.poll(() => field('Auth token').getAttribute('aria-invalid')).toBe('true');
    expect((await t.admin.get(`/api/admin/users/${ada.id}/carriers/twilio`)).status).toBe(404);
    await expectFits('pn-03-twilio-refused');

    await field('Auth token').fill(twilio.authToken);
    await page.getByRole('button', { name: 'Check and save' }).click();
    await page.getByRole('status').filter({ hasText: 'Twilio accepted the credentials; they are saved.' }).waitFor();
    await page.getByText(`••••${twilio.authToken.slice(-4)}`).waitFor();
    expect((await t.admin.get(`/api/admin/users/${ada.id}/carriers/twilio`)).body.data).toMatchObject({ account_sid: twilio.accountSid });
    // With credentials stored, a Twilio number can be added to the user.
    await field('Phone number').fill('+14155550199');
    await field('Carrier').selectOption('twilio');
    await field('Twilio number SID (optional)').fill('PN' + 'c'.repeat(32));
    await page.getByRole('button', { name: 'Add number' }).click();
    await page.getByRole('cell', { name: '+14155550199', exact: true }).waitFor();
    expect((await t.admin.get(`/api/admin/users/${ada.id}/phone-numbers`)).body.data.at(-1)).toMatchObject({ carrier: 'twilio', carrier_sid: 'PN' + 'c'.repeat(32) });
    // Twilio was asked with the account's own credentials, both times.
    const checks = twilio.requests.filter((r) => r.path === `/2010-04-01/Accounts/${twilio.accountSid}.json`).map((r) => r.status);
    expect(checks).toEqual([401, 200]);
    await expectFits('pn-04-twilio-saved');
  });

  it('the user names their number', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/sign-in');
    await signIn(ada.token, '/assistants');
    await page.goto(`${base}/account`);
    await page.getByRole('button', { name: 'Name +4930555000901' }).click();
    await field('Name (empty: none)').fill('Berlin office');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('status').filter({ hasText: '+4930555000901 is now called "Berlin office".' }).waitFor();
    await page.getByRole('cell', { name: 'Berlin office', exact: true }).waitFor();
    expect((await ada.get('/api/user/phone-numbers')).body.data.find((n: { phone_number: string }) => n.phone_number === '+4930555000901')).toMatchObject({ phone_number: '+4930555000901', label: 'Berlin office' });
    await expectFits('pn-05-account-named');
  });
});
