/**
 * The provider keys page in headless Chromium: sign in, add an OpenAI key and test it against a
 * local OpenAI-compatible double (accepted), then a wrong key (refused, with the vendor's words);
 * remove it; from the talk panel's offline note, add an LLM key whose base URL is another local
 * chat double, test it, and the talk panel no longer says the stand-in answers. axe at desktop
 * width and at 390 px, and no sideways scrolling on a phone.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../src/calls/index.js';
import { expectAccessible as expectAccessibleOn, launchBrowser, type Browser } from '../support/browser.js';
import { ChatDouble } from '../support/doubles/chat.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';

const GOOD_KEY = 'sk-browser-good-key-7777';
const LLM_KEY = 'sk-browser-llm-key-4321';
let openai: ChatDouble;
let llm: ChatDouble;
let t: TestService;
let browser: Browser;
let page: Page;
let user: TestUser;
let base: string;

beforeAll(async () => {
  openai = await new ChatDouble({ apiKey: GOOD_KEY }).start();
  llm = await new ChatDouble({ apiKey: LLM_KEY }).start();
  // Private targets allowed: the LLM key's base URL is a local double.
  t = await startTestService({ listen: true, parts: [callEnginePart], env: { SECRET_KEY: 'k'.repeat(40), OPENAI_API_URL: openai.baseUrl, ALLOW_PRIVATE_TARGETS: 'true' } });
  base = t.service.url!;
  user = await t.createUser({ name: 'Kim Keys' });
  browser = await launchBrowser();
  page = browser.page;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await openai?.close();
  await llm?.close();
});

const expectAccessible = (name: string) => expectAccessibleOn(page, name);

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
    await page.getByRole('heading', { name: 'OpenAI', exact: true }).waitFor();
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

  it("from the talk panel's offline note: adds an LLM key at a local server's base URL, tests it, and the stand-in note is gone", async () => {
    const assistant = await insertAssistant(t, user.id, { name: 'Front desk' });
    await page.goto(`${base}/assistants/${assistant.id}#talk`);
    const note = page.getByTestId('talk-offline');
    await expect.poll(() => note.textContent()).toContain('the replies come from the offline stand-in');
    await expectAccessible('keys-05-talk-panel-note');
    await note.getByRole('link', { name: 'Add an LLM key' }).click();
    await page.waitForURL('**/settings/keys');
    const section = page.getByTestId('provider-llm');
    await section.getByRole('heading', { name: 'LLM (OpenAI-compatible)' }).waitFor();
    expect(await section.textContent()).toContain('offline stand-in');

    await section.getByLabel('Base URL').fill(llm.baseUrl);
    await section.getByLabel('LLM key', { exact: true }).fill(LLM_KEY);
    await section.getByRole('button', { name: 'Save the LLM key' }).click();
    await expect.poll(() => section.textContent()).toContain('••••4321');
    expect(await section.textContent()).toContain(llm.baseUrl);
    await section.getByRole('button', { name: 'Test the LLM key' }).click();
    const tried = page.getByTestId('test-result-llm');
    await expect.poll(() => tried.textContent()).toContain('It works. The LLM server accepted the key (200 OK).');
    expect(await tried.textContent()).toContain(`GET ${llm.baseUrl}/models`);
    expect(llm.received.at(-1)!.headers.authorization).toBe(`Bearer ${LLM_KEY}`);
    await expectAccessible('keys-06-llm-tested');

    // A base URL that is not one says so at the field.
    await section.getByLabel('Base URL').fill('ftp://not-http.example/v1');
    await section.getByLabel('New LLM key (replaces the stored one)').fill(LLM_KEY);
    await section.getByRole('button', { name: 'Replace the LLM key' }).click();
    await expect.poll(() => section.locator('.field-error').textContent()).toContain('The base url field must be a valid URL.');

    // The account now thinks with its own model: the talk panel no longer speaks of the stand-in.
    await page.goto(`${base}/assistants/${assistant.id}#talk`);
    // The start button is enabled once the capabilities are in (the note would be shown by then).
    await expect.poll(() => page.getByRole('button', { name: /^Start a/ }).isEnabled()).toBe(true);
    expect(await page.getByTestId('talk-offline').count()).toBe(0);
  });
});
