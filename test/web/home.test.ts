/**
 * The home page (results) in headless Chromium, on calls seeded into the database: its first
 * load stays within the transfer budget, the summary and both charts show the seeded numbers
 * with their axes, switching the period redraws them, the numbers are also a table, an account
 * without calls is told what to do, and the page passes axe-core and fits a 390 px phone.
 */
import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTurns } from '../../src/db/schema.js';
import { rowsOf } from '../../src/db/pool.js';
import { insertCalls } from '../api/calls/support.js';
import { expectAccessible as expectAccessibleOn, launchBrowser, type Browser } from '../support/browser.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';

/** First load of `/`, everything the browser fetched (compressed bytes on the wire). */
const FIRST_LOAD_BUDGET = 150 * 1024;
const DAYS = 60;

let t: TestService;
let browser: Browser;
let page: Page;
let user: TestUser;
let base: string;
let firstLoadBytes = 0;

/** Per day k (0 = today, back to DAYS - 1): 2 answered calls (one is voicemail every third day) and 1 unanswered. */
function seededCalls(assistantId: number) {
  const now = Date.now();
  const list = [];
  for (let k = 0; k < DAYS; k++) {
    const createdAt = new Date(now - k * 86_400_000 - 1000).toISOString();
    const common = { assistantId, assistantName: 'Front desk', createdAt };
    list.push({ ...common, status: 'completed', answeredAt: createdAt, answeredBy: 'human', duration: 60, totalCost: '0.05' });
    list.push(k % 3 === 0
      ? { ...common, status: 'completed', answeredAt: createdAt, answeredBy: 'machine', duration: 20, totalCost: '0.02' }
      : { ...common, status: 'completed', answeredAt: createdAt, answeredBy: 'human', duration: 60, totalCost: '0.05' });
    list.push({ ...common, status: 'no-answer', totalCost: '0' });
  }
  return list;
}

const expectAccessible = (name: string) => expectAccessibleOn(page, name);

const bars = (chart: string) => page.locator(`[data-testid="${chart}"] g.bars > g`);
const barTotals = async (chart: string) => (await bars(chart).evaluateAll((gs) => gs.map((g) => Number(g.getAttribute('data-total')))));

beforeAll(async () => {
  t = await startTestService({ listen: true });
  base = t.service.url!;
  user = await t.createUser({ name: 'Hana Home' });
  const res = await t.service.ctx.database.db.execute(sql`
    insert into assistants (user_id, name, type, voice_id, language, language_id, llm_model_id)
    values (${user.id}, 'Front desk', 'inbound', (select min(id) from voices), 'English', (select min(id) from languages), (select min(id) from llm_models))
    returning id`);
  const assistantId = rowsOf<{ id: number }>(res)[0].id;
  const ids = await insertCalls(t, user.id, seededCalls(assistantId));
  await t.service.ctx.database.db.insert(callTurns).values([
    { callId: ids[0], position: 0, kind: 'reply', startedAt: new Date().toISOString(), firstAudioMs: 400 },
    { callId: ids[0], position: 1, kind: 'reply', startedAt: new Date().toISOString(), firstAudioMs: 600 },
  ]);
  browser = await launchBrowser();
  page = browser.page;
  await page.addInitScript((session) => sessionStorage.setItem('switchboard.session', session), JSON.stringify({ token: user.token, role: 'user', name: 'Hana Home' }));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the home page', () => {
  it(`loads / in under ${FIRST_LOAD_BUDGET / 1024} KB transferred, charts and all`, async () => {
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Network.enable');
    const requests: string[] = [];
    cdp.on('Network.requestWillBeSent', (e) => requests.push(e.request.url));
    cdp.on('Network.loadingFinished', (e) => (firstLoadBytes += e.encodedDataLength));
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Results', level: 1 }).waitFor();
    await bars('calls-chart').first().waitFor();
    await page.waitForLoadState('networkidle');
    await cdp.detach();
    console.log(`first load of /: ${requests.length} requests, ${(firstLoadBytes / 1024).toFixed(1)} KB transferred`);
    expect(requests.some((u) => u.includes('/api/user/results'))).toBe(true);
    expect(firstLoadBytes, `first load: ${requests.length} requests, ${firstLoadBytes} bytes`).toBeLessThan(FIRST_LOAD_BUDGET);
    expect(firstLoadBytes).toBeGreaterThan(10_000); // measured something: the app's JavaScript at least
  });

  it('shows the last 30 days: summary, calls per day by outcome and cost per day, with axes', async () => {
    // 30 days × 3 calls; answered by a person: 20 days × 2 + 10 days × 1 = 50 of 90; cost 50 × 0.05 + 10 × 0.02.
    await expect.poll(() => page.getByTestId('total-calls').textContent()).toBe('90');
    expect(await page.getByTestId('answer-rate').textContent()).toBe('55.6 %');
    expect(await page.getByTestId('average-duration').textContent()).toBe('1:00');
    expect(await page.getByTestId('total-cost').textContent()).toBe('$2.70');
    expect(await page.getByTestId('latency').textContent()).toBe('500 ms / 590 ms');
    expect(await barTotals('calls-chart')).toEqual(Array(30).fill(3));
    // The y axis: round ticks from 0 past the highest bar; the x axis names days.
    const yTicks = await page.locator('[data-testid="calls-chart"] .y-axis text').allTextContents();
    expect(yTicks[0]).toBe('0');
    expect(Number(yTicks.at(-1))).toBeGreaterThanOrEqual(3);
    const xLabels = await page.locator('[data-testid="calls-chart"] .x-axis text').allTextContents();
    expect(xLabels.length).toBeGreaterThan(3);
    expect(xLabels.every((l) => /\d/.test(l))).toBe(true);
    expect(await page.locator('[data-testid="calls-chart"] .legend li').allTextContents()).toEqual(['Answered', 'Voicemail', 'No answer']);
    // Cost per day: 0.07 on voicemail days (every third, today among them), else 0.10; ticks in dollars.
    const cost = await barTotals('cost-chart');
    expect(cost).toHaveLength(30);
    expect(cost.at(-1)).toBeCloseTo(0.07, 6);
    expect(cost.at(-2)).toBeCloseTo(0.1, 6);
    expect((await page.locator('[data-testid="cost-chart"] .y-axis text').allTextContents()).at(-1)).toMatch(/^\$0\.\d+$/);
    // The same numbers as a table.
    await page.locator('[data-testid="calls-chart"] summary').click();
    const table = page.getByRole('table', { name: 'Calls per day by outcome' });
    expect(await table.locator('thead th').allTextContents()).toEqual(['Day', 'Answered', 'Voicemail', 'No answer', 'Calls']);
    expect(await table.locator('tbody tr').count()).toBe(30);
    expect(await table.locator('tbody tr').last().locator('td').allTextContents()).toEqual(['1', '1', '1', '3']);
    // Per assistant.
    const perAssistant = page.getByRole('table', { name: 'Results per assistant' });
    expect(await perAssistant.locator('tbody tr').first().locator('td').allTextContents()).toEqual(['Front desk', '90', '55.6 %', '1:00', '$2.70', '500 ms / 590 ms']);
    await expectAccessible('home-30-days');
  });

  it('redraws for another period: 7 and 90 days', async () => {
    await page.getByLabel('Period', { exact: true }).selectOption('7');
    await expect.poll(() => page.getByTestId('total-calls').textContent()).toBe('21');
    expect(await barTotals('calls-chart')).toEqual(Array(7).fill(3));
    expect(new URL(page.url()).searchParams.get('period')).toBe('7');
    await page.getByLabel('Period', { exact: true }).selectOption('90');
    // 60 days of calls, 30 empty days before them.
    await expect.poll(() => page.getByTestId('total-calls').textContent()).toBe('180');
    const totals = await barTotals('calls-chart');
    expect(totals).toHaveLength(90);
    expect(totals.slice(0, 30)).toEqual(Array(30).fill(0));
  });

  it('takes custom dates, and says what to do when the period has no calls', async () => {
    await page.getByLabel('Period', { exact: true }).selectOption('custom');
    await page.getByLabel('From (date)', { exact: true }).fill('2020-01-01');
    await page.getByLabel('To (date)', { exact: true }).fill('2020-01-31');
    await page.getByRole('button', { name: 'Show these dates' }).click();
    await expect.poll(() => page.getByTestId('results').textContent()).toContain("No calls in this period — call a number from an assistant's page");
    await expectAccessible('home-empty');
    // Too long a period: the service's message at the field.
    await page.getByLabel('From (date)', { exact: true }).fill('2018-01-01');
    await page.getByRole('button', { name: 'Show these dates' }).click();
    await expect.poll(() => page.locator('.field-error').first().textContent()).toContain('366 days');
  });

  it('fits a phone (390 px): nothing scrolls sideways, tables become cards, axe passes', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${base}/?period=30`);
      await bars('calls-chart').first().waitFor();
      await page.waitForLoadState('networkidle');
      const widths = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        view: window.innerWidth,
        wide: [...document.querySelectorAll('main *, header *')]
          .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
          .slice(0, 5)
          .map((el) => `${el.tagName.toLowerCase()}.${el.className} (${Math.round(el.getBoundingClientRect().right)} px)`),
      }));
      expect(widths.scroll, `scrolls sideways: ${widths.wide.join(', ')}`).toBeLessThanOrEqual(widths.view);
      expect(await page.locator('table.cards td[data-label="Answer rate"]').first().isVisible()).toBe(true);
      const svgWidth = await page.locator('[data-testid="calls-chart"] svg').evaluate((el) => el.getBoundingClientRect().width);
      expect(svgWidth).toBeLessThanOrEqual(390);
      await expectAccessible('home-phone');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
});
