/**
 * Browser calls in headless Chromium (issue 17): the dashboard's "Talk to this assistant" as a
 * typed conversation (no speech-to-text here), the website widget on a page of another origin
 * (it places a call; a wrong origin and a wrong key are refused), each page checked with axe.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../src/calls/index.js';
import { checkPage, launchBrowser, screenshot, type Browser } from '../support/browser.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';

let t: TestService;
let browser: Browser;
let page: Page;
let user: TestUser;
let base: string;
/** A customer's website on another origin (another port), serving pages that embed the widget. */
let site: http.Server;
let siteUrl: string;
const sitePages = new Map<string, string>();

beforeAll(async () => {
  t = await startTestService({ listen: true, parts: [callEnginePart] });
  base = t.service.url!;
  user = await t.createUser({ name: 'Wendy Web' });
  site = http.createServer((req, res) => {
    const html = sitePages.get(req.url ?? '');
    res.writeHead(html ? 200 : 404, { 'content-type': 'text/html' }).end(html ?? 'not found');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  browser = await launchBrowser();
  page = browser.page;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await new Promise((resolve) => site?.close(resolve));
});

async function signIn() {
  await page.goto(`${base}/sign-in`);
  await page.getByLabel('API token', { exact: true }).fill(user.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/assistants');
}

describe('browser calls', () => {
  it('talks to an assistant from its page as a typed conversation, labelled so, and the call has its record', async () => {
    const assistant = await insertAssistant(t, user.id, { name: 'Front desk', initialMessage: 'Welcome to the front desk.' });
    await signIn();
    await page.goto(`${base}/assistants/${assistant.id}#talk`);
    await expect.poll(() => page.getByTestId('talk-mode').textContent()).toContain('Typed conversation: no speech-to-text provider is configured');
    // No LLM on this service: the panel says the replies are the offline stand-in's, before a call starts.
    await expect.poll(() => page.getByTestId('talk-offline').textContent()).toContain('the replies come from the offline stand-in');
    expect(await page.getByTestId('talk-offline').textContent()).toContain('LLM_BASE_URL');
    await page.getByRole('button', { name: 'Start a typed conversation' }).click();
    const transcript = page.getByTestId('live-transcript');
    await expect.poll(() => transcript.textContent()).toContain('Welcome to the front desk.');
    await page.getByLabel('Your message').fill('Do you have a table for two tonight?');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => transcript.locator('.turn-ai').count()).toBeGreaterThanOrEqual(2);
    const { violations } = await checkPage(page, '20-talk-typed');
    expect(violations).toEqual([]);
    // The offline stand-in LLM closes the call after the caller's first answer (a real one when asked).
    await expect.poll(() => transcript.textContent()).toContain('The call has ended.');
    await page.getByRole('link', { name: 'Open the call record' }).click();
    await expect.poll(() => page.getByTestId('transcript').textContent()).toContain('Do you have a table for two tonight?');
    // The call's turns with their timings: the chart and its table.
    const turnsTable = page.getByRole('table', { name: 'Turns and their timings' });
    await turnsTable.waitFor();
    expect(await turnsTable.locator('tbody tr').count()).toBeGreaterThanOrEqual(2);
    await page.getByRole('img', { name: /Stage timings per turn/ }).waitFor();
    expect(await turnsTable.textContent()).toContain('Do you have a table for two tonight?');
    const record = await checkPage(page, '21-talk-call-record');
    expect(record.violations).toEqual([]);
    const calls = (await user.get('/api/user/calls?type=web')).body;
    expect(calls.data[0]).toMatchObject({ type: 'web', assistant_name: 'Front desk' });
  });

  it('manages widget keys on the assistant page', async () => {
    const assistant = await insertAssistant(t, user.id, { name: 'Widget keys' });
    await page.goto(`${base}/assistants/${assistant.id}`);
    const origins = page.getByLabel('Allowed origins (space or comma separated)');
    await origins.fill('not-an-origin');
    await page.getByRole('button', { name: 'Create a widget key' }).click();
    await expect.poll(() => page.locator('.field-error').last().textContent()).toContain('must be an origin');
    await origins.fill(siteUrl);
    await page.getByRole('button', { name: 'Create a widget key' }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Widget keys' }).textContent()).toContain(`${base}/widget.js`);
    const { violations } = await checkPage(page, '22-widget-keys');
    expect(violations).toEqual([]);
  });

  it('the widget on another origin places a call; a wrong origin and a wrong key are refused', async () => {
    const assistant = await insertAssistant(t, user.id, { name: 'Shop line', initialMessage: 'Thanks for calling the shop.' });
    const allowed = (await user.post(`/api/user/assistants/${assistant.id}/widget-keys`, { allowed_origins: [siteUrl] })).body.data.key;
    const elsewhere = (await user.post(`/api/user/assistants/${assistant.id}/widget-keys`, { allowed_origins: ['https://another.example'] })).body.data.key;
    const embed = (key: string) =>
      `<!doctype html><html lang="en"><head><title>Shop</title></head><body><main><h1>Our shop</h1></main><script src="${base}/widget.js" data-key="${key}" data-label="Call the shop" async></script></body></html>`;
    sitePages.set('/ok.html', embed(allowed));
    sitePages.set('/other-origin.html', embed(elsewhere));
    sitePages.set('/wrong-key.html', embed('wk_thisisnotakeyatall00000'));

    await page.goto(`${siteUrl}/ok.html`);
    const widget = page.locator('[data-switchboard-widget]');
    await widget.getByRole('button', { name: 'Call the shop' }).click();
    // The input is there at once (before the first reply), below the conversation, and has the focus.
    const input = widget.getByLabel('Your message');
    await input.waitFor({ timeout: 5_000 });
    await expect.poll(() => input.evaluate((el) => el === (el.getRootNode() as ShadowRoot).activeElement)).toBe(true);
    await expect.poll(() => widget.getByRole('log').textContent()).toContain('Thanks for calling the shop.');
    const [logBox, inputBox] = [await widget.getByRole('log').boundingBox(), await input.boundingBox()];
    expect(inputBox!.y).toBeGreaterThanOrEqual(logBox!.y + logBox!.height - 1);
    await widget.getByLabel('Your message').fill('Is the blue jacket in stock?');
    await widget.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => widget.getByRole('log').textContent()).toContain('Is the blue jacket in stock?');
    await screenshot(page, '23-widget-call');
    const { violations } = await checkPage(page, '23-widget-call');
    expect(violations).toEqual([]);
    await expect.poll(() => widget.getByRole('log').textContent()).toContain('The call has ended.');
    await expect.poll(async () => (await user.get('/api/user/calls?type=web')).body.data.find((c: { assistant_name: string }) => c.assistant_name === 'Shop line')?.status).toBe('completed');

    await page.goto(`${siteUrl}/other-origin.html`);
    await page.locator('[data-switchboard-widget]').getByRole('button', { name: 'Call the shop' }).click();
    await expect.poll(() => page.locator('[data-switchboard-widget]').getByRole('log').textContent()).toContain('This origin may not use this widget key.');

    await page.goto(`${siteUrl}/wrong-key.html`);
    await page.locator('[data-switchboard-widget]').getByRole('button', { name: 'Call the shop' }).click();
    await expect.poll(() => page.locator('[data-switchboard-widget]').getByRole('log').textContent()).toContain('Unknown or revoked widget key.');
    // Only the allowed page's call exists.
    const shopCalls = (await user.get('/api/user/calls?type=web')).body.data.filter((c: { assistant_name: string }) => c.assistant_name === 'Shop line');
    expect(shopCalls).toHaveLength(1);
  });
});
