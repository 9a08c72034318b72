/**
 * An assistant's tests in the dashboard, in headless Chromium: write a scenario (checked as you
 * type, the problem's line shown), run it and see it fail with its reason beside the turn, fix
 * the prompt and test the unsaved change, save it and see the scenario pass, restore the earlier
 * version; "Make a test from this call" on a call's page. The model is the chat double, which
 * answers from the system prompt; each page is checked with axe-core (no serious or critical
 * violations) and walked with the keyboard.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullProcess } from '../../src/compose.js';
import { expectAccessible as expectAccessibleOn, launchBrowser, type Browser } from '../support/browser.js';
import { ChatDouble } from '../support/doubles/chat.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';

let t: TestService;
let chat: ChatDouble;
let browser: Browser;
let page: Page;
let user: TestUser;
let base: string;
let assistantId: number;

const SCENARIO = `name: offers Tuesday
caller:
  script:
    - say: "Can I come on Tuesday?"
expect:
  - transcript_contains: "Tuesday at ten"
`;

beforeAll(async () => {
  // The model offers the day its system prompt names.
  chat = await new ChatDouble().start();
  chat.extract({ status: true, summary: 'Offered a slot.' }).decide((body) => {
    const system = String(body?.messages?.[0]?.content ?? '');
    const day = /Tuesday/.test(system) ? 'Tuesday' : 'Monday';
    return { text: `We can do ${day} at ten. Goodbye!`, toolCalls: [{ id: 'end-1', name: 'end-call', args: {} }] };
  });
  t = await startTestService({ listen: true, parts: fullProcess, env: { LLM_BASE_URL: chat.baseUrl, LLM_API_KEY: 'sk-test' } });
  base = t.service.url!;
  user = await t.createUser({ name: 'Tess Tester' });
  const res = await user.post('/api/user/assistant', { assistant_name: 'Booking line', voice_id: 1, calls_direction: 'make', system_prompt: 'Offer Monday slots.', initial_message: 'Booking line, hello.' });
  assistantId = res.body.data.id;
  browser = await launchBrowser();
  page = browser.page;
  page.on('dialog', (d) => void d.accept());
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await chat?.close();
});

const expectAccessible = (name: string) => expectAccessibleOn(page, name);

const field = (label: string) => page.getByLabel(label, { exact: true });
const tab = (name: string) => page.getByRole('navigation', { name: 'Assistant' }).getByRole('link', { name, exact: true });
const status = (text: string) => page.getByRole('status').filter({ hasText: text });

describe("an assistant's tests in the dashboard", () => {
  it('signs in and writes a scenario, checked as it is typed', async () => {
    await page.goto(`${base}/sign-in`);
    await field('API token').fill(user.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/assistants');
    await page.goto(`${base}/assistants/${assistantId}/tests`);
    await page.getByRole('heading', { name: 'Test scenarios' }).waitFor();
    await page.getByRole('button', { name: 'New scenario' }).click();
    await field('Scenario (YAML or JSON)').fill(SCENARIO.replace('    - say:', '    - shout:'));
    await expect.poll(() => page.getByTestId('scenario-check').textContent()).toMatch(/Line 4: .*shout/);
    await field('Scenario (YAML or JSON)').fill(SCENARIO);
    await expect.poll(() => page.getByTestId('scenario-check').textContent()).toBe('No problems found.');
    await page.getByRole('button', { name: 'Save scenario' }).click();
    await status('Test scenario created: offers Tuesday').waitFor();
    await expectAccessible('tests-01-scenario-written');
  });

  it('runs it and sees it fail, the failing assertion beside the turn', async () => {
    await page.getByRole('button', { name: 'Run offers Tuesday' }).click();
    await expect.poll(() => page.getByTestId('run-progress').textContent(), { timeout: 20_000 }).toMatch(/0 passed, 1 failed/);
    const aside = page.getByRole('note', { name: 'Failed assertion' });
    await expect.poll(() => aside.textContent()).toMatch(/Failed: transcript_contains \(line 6\)/);
    // Beside the assistant's turn that said Monday.
    await expect.poll(() => page.locator('li.turn-ai', { has: aside }).locator('.text').textContent()).toBe('We can do Monday at ten. Goodbye!');
    await expectAccessible('tests-02-run-failed');
  });

  it('fixes the prompt, tests the unsaved change, saves it and sees the scenario pass', async () => {
    await tab('Settings').click();
    await field('System prompt').waitFor();
    await field('System prompt').fill('Offer Tuesday slots.');
    await page.getByRole('button', { name: 'Test these changes' }).click();
    await expect.poll(() => page.getByTestId('run-progress').textContent(), { timeout: 20_000 }).toMatch(/1 passed, 0 failed.*with unsaved changes/);
    // Nothing was saved by the test.
    expect((await user.get(`/api/user/assistant/${assistantId}`)).body.data.system_prompt).toBe('Offer Monday slots.');
    await expectAccessible('tests-03-unsaved-changes-passed');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await status('Assistant updated successfully').waitFor();

    await tab('Tests').click();
    await page.getByRole('button', { name: 'Run all scenarios' }).click();
    await expect.poll(() => page.getByTestId('run-progress').textContent(), { timeout: 20_000 }).toMatch(/1 passed, 0 failed/);
    await expect.poll(() => page.getByRole('table', { name: 'Test runs of this assistant' }).locator('tbody tr').count()).toBe(3);
  });

  it('restores the earlier version, and the scenario fails again', async () => {
    await tab('Settings').click();
    await page.getByRole('button', { name: 'Restore version 1' }).click();
    await status('Assistant restored to version 1').waitFor();
    await expect.poll(() => field('System prompt').inputValue()).toBe('Offer Monday slots.');
    await expectAccessible('tests-04-version-restored');
    await tab('Tests').click();
    await page.getByRole('button', { name: 'Run all scenarios' }).click();
    await expect.poll(() => page.getByTestId('run-progress').textContent(), { timeout: 20_000 }).toMatch(/0 passed, 1 failed/);
  });

  it("makes a test from a call on the call's page", async () => {
    const number = await t.addPhoneNumber(user.id, '+493012345690');
    await user.put(`/api/user/assistant/${assistantId}`, { calls_direction: 'receive', phone_number_id: number.id });
    const sim = await user.post('/api/user/sandbox/inbound-call', { to: number.phone_number, from: '+4915123456700' });
    expect(sim.status).toBe(200);
    await t.service.ctx.services.callEngine!.whenFinished(sim.body.call_id);
    await page.goto(`${base}/calls/${sim.body.call_id}`);
    await page.getByRole('button', { name: 'Make a test from this call' }).click();
    await status(`Test scenario "Call ${sim.body.call_id} replayed" saved.`).waitFor();
    await expectAccessible('tests-05-test-from-call');
    await page.getByRole('link', { name: "Open the assistant's tests" }).click();
    await page.getByRole('button', { name: `Run Call ${sim.body.call_id} replayed` }).click();
    await expect.poll(() => page.getByTestId('run-progress').textContent(), { timeout: 20_000 }).toMatch(/1 passed, 0 failed/);
  });
});
