/**
 * The provider keys page in headless Chromium: sign in, add an OpenAI key and test it against a
 * local OpenAI-compatible double (accepted), then a wrong key (refused, with the vendor's words);
 * remove it; reach the page from the talk panel's offline note. axe at desktop width and at
 * 390 px, and no sideways scrolling on a phone.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPage, launchBrowser, type Browser } from '../support/browser.js';
import { ChatDouble } from '../support/doubles/chat.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';

const GOOD_KEY = 'sk-browser-good-key-7777';
let openai: ChatDouble;
let t: TestService;
let browser: Browser;
let page: Page;
let user: TestUser;
let base: string;

beforeAll(async () => {
  openai = await new ChatDouble({ apiKey: GOOD_KEY }).start();
  t = await startTestService({ listen: true, env: { SECRET_KEY: 'k'.repeat(40), OPENAI_API_URL: openai.baseUrl } });
  base = t.service.url!;
  user = await t.createUser({ name: 'Kim Keys' });
  browser = await launchBrowser();
  page = browser.page;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await openai?.close();
});

async function expectAccessible(name: string) {
  const { violations, unreachable } = await checkPage(page, name);
  expect(violations, `${name}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
  expect(unreachable, `${name}: controls the keyboard cannot reach`).toEqual([]);
}

const openaiSection = () => page.getByTestId('provider-openai');
const result = () => page.getByTestId('test-result-openai');

describe('provider keys in the browser', () => {
  it('adds an OpenAI key, tests it (accepted), replaces it with a wrong one (refused, in words), removes it', async () => {
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('API token', { exact: true }).fill(user.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/assistants');
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('heading', { name: 'Provider keys' }).waitFor();
    await expectAccessible('keys-00-account');
    await page.getByRole('link', { name: 'Provider keys' }).click();
    await page.waitForURL('**/settings/keys');
    await page.getByRole('heading', { name: 'OpenAI' }).waitFor();
    expect(await openaiSection().textContent()).toContain('Speech-to-text, text-to-speech');
    expect(await openaiSection().textContent()).toContain('No key stored');
    await expectAccessible('keys-01-empty');

    const keyField = openaiSection().getByLabel('OpenAI key', { exact: true });
    expect(await keyField.getAttribute('type')).toBe('password');
    await keyField.fill(GOOD_KEY);
    await openaiSection().getByRole('button', { name: 'Save the OpenAI key' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('OpenAI key saved (••••7777)');
    await expect.poll(() => openaiSection().textContent()).toContain('••••7777');

    await openaiSection().getByRole('button', { name: 'Test the OpenAI key' }).click();
    await expect.poll(() => result().textContent()).toContain('It works. OpenAI accepted the key (200 OK).');
    expect(await result().getAttribute('role')).toBe('status');
    expect(openai.received.at(-1)!.headers.authorization).toBe(`Bearer ${GOOD_KEY}`);
    await expectAccessible('keys-02-tested');

    await openaiSection().getByLabel('New OpenAI key (replaces the stored one)').fill('sk-browser-wrong-key-0000');
    await openaiSection().getByRole('button', { name: 'Replace the OpenAI key' }).click();
    await expect.poll(() => openaiSection().textContent()).toContain('••••0000');
    await openaiSection().getByRole('button', { name: 'Test the OpenAI key' }).click();
    await expect.poll(() => result().textContent()).toContain('It failed. OpenAI refused the key (401 Unauthorized): Incorrect API key provided.');
    await expectAccessible('keys-03-refused');

    // A field the service refuses says why, at the field.
    await openaiSection().getByLabel('New OpenAI key (replaces the stored one)').fill('short');
    await openaiSection().getByRole('button', { name: 'Replace the OpenAI key' }).click();
    await expect.poll(() => openaiSection().locator('.field-error').textContent()).toContain('must be between 8 and 512 characters');

    page.once('dialog', (d) => void d.accept());
    await openaiSection().getByRole('button', { name: 'Remove the OpenAI key' }).click();
    await expect.poll(() => openaiSection().textContent()).toContain('No key stored');
    expect((await user.get('/api/user/provider-keys')).body.data).toEqual([]);
  });

  it('fits a phone (390 px): no sideways scrolling, axe clean', async () => {
    await user.put('/api/user/provider-keys/openai', { api_key: 'sk-browser-wrong-key-0000' });
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${base}/settings/keys`);
      await openaiSection().getByRole('button', { name: 'Test the OpenAI key' }).click();
      await expect.poll(() => result().textContent()).toContain('refused the key');
      const widths = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        view: window.innerWidth,
        wide: [...document.querySelectorAll('main *, header *')]
          .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
          .slice(0, 5)
          .map((el) => `${el.tagName.toLowerCase()}.${el.className} (${Math.round(el.getBoundingClientRect().right)} px)`),
      }));
      expect(widths.scroll, `scrolls sideways: ${widths.wide.join(', ')}`).toBeLessThanOrEqual(widths.view);
      await expectAccessible('keys-04-phone');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it("the talk panel's offline note links to the keys page", async () => {
    const assistant = await insertAssistant(t, user.id, { name: 'Front desk' });
    await page.goto(`${base}/assistants/${assistant.id}#talk`);
    const note = page.getByTestId('talk-offline');
    await expect.poll(() => note.textContent()).toContain('the replies come from the offline stand-in');
    expect(await note.textContent()).toContain('serve speech in your calls (Deepgram, ElevenLabs, OpenAI), not the LLM');
    await expectAccessible('keys-05-talk-panel-note');
    await note.getByRole('link', { name: 'Provider keys' }).click();
    await page.waitForURL('**/settings/keys');
    await page.getByRole('heading', { name: 'Provider keys' }).waitFor();
  });
});
