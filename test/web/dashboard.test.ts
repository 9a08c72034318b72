/**
 * The dashboard end to end in headless Chromium (issue 17): sign in, create an assistant and
 * a tool, import a CSV of leads, start a campaign on the sandbox carrier and see it complete,
 * open a call and read its transcript, the account and admin pages; an assistant's versions
 * (what a save changed, restoring an earlier one); a knowledge base with a text document, searched,
 * and chosen in the assistant editor. Every page is
 * screenshotted (test-artifacts/screenshots), checked with axe-core (no serious or critical
 * violations) and walked with the keyboard (every control reachable).
 */
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullProcess } from '../../src/compose.js';
import { expectAccessible as expectAccessibleOn, launchBrowser, type Browser } from '../support/browser.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { ADMIN_TOKEN, startTestService, type TestService, type TestUser } from '../support/service.js';

let t: TestService;
let browser: Browser;
let page: Page;
let receiver: Receiver;
let user: TestUser;
let base: string;

beforeAll(async () => {
  receiver = await startReceiver(() => ({ status: 200, body: JSON.stringify({ slot: '10:30' }) }));
  t = await startTestService({ listen: true, parts: fullProcess, env: { ALLOW_PRIVATE_TARGETS: 'true' } });
  base = t.service.url!;
  user = await t.createUser({ name: 'Dana Dashboard' });
  await t.addPhoneNumber(user.id, '+4930123456780');
  browser = await launchBrowser();
  page = browser.page;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await receiver?.close();
});

/** Screenshot, axe and keyboard walk of the page as shown now. */
const expectAccessible = (name: string) => expectAccessibleOn(page, name);

const field = (label: string) => page.getByLabel(label, { exact: true });

describe('the dashboard in a browser', () => {
  it('signs in with an API token (and refuses a wrong one)', async () => {
    await page.goto(`${base}/`);
    await page.waitForURL('**/sign-in');
    await expectAccessible('01-sign-in');
    await field('API token').fill('sb_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('This token is not valid');
    await field('API token').fill(user.token);
    await page.getByLabel('Keep me signed in on this browser').check();
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/assistants');
    await page.getByRole('heading', { name: 'Assistants' }).waitFor();
    await expectAccessible('02-assistants-empty');
    // A new tab (and a reload) stays signed in; signing out there ends the session in both.
    const tab = await browser.context.newPage();
    await tab.goto(`${base}/assistants`);
    await tab.getByRole('heading', { name: 'Assistants' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Assistants' }).waitFor();
    await tab.getByRole('button', { name: 'Sign out' }).click();
    await tab.waitForURL('**/sign-in');
    await page.waitForURL('**/sign-in');
    await tab.close();
    await field('API token').fill(user.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/assistants');
  });

  it('creates a mid-call tool and sends it a test request', async () => {
    await page.getByRole('link', { name: 'Mid-call tools' }).click();
    await page.getByRole('link', { name: 'New tool' }).click();
    await field('Name').fill('Book Slot');
    await field('Description').fill('Books an appointment slot');
    await field('Endpoint URL').fill(`${receiver.url}/book`);
    await page.getByRole('button', { name: 'Add a parameter' }).click();
    await field('Parameter 1 name').fill('day');
    await field('Parameter 1 description').fill('the day to book');
    await page.getByRole('button', { name: 'Create tool' }).click();
    // The service's own message, at the field.
    await expect.poll(() => page.locator('.field-error').first().textContent()).toBe('The name field format is invalid.');
    await expect.poll(() => field('Name').getAttribute('aria-invalid')).toBe('true');
    await field('Name').fill('book_slot');
    await page.getByRole('button', { name: 'Create tool' }).click();
    await page.getByRole('heading', { name: 'Send a test request' }).waitFor();
    await field('day (string)').fill('Monday');
    await page.getByRole('button', { name: 'Send a test request' }).click();
    await expect.poll(() => page.locator('.test-answer').textContent()).toContain('"slot": "10:30"');
    expect(JSON.parse(receiver.received.at(-1)!.body)).toEqual({ day: 'Monday' });
    await expectAccessible('03-tool');
  });

  it('creates an assistant with the service\'s validation messages shown at the field, and attaches the tool', async () => {
    await page.getByRole('link', { name: 'Assistants' }).click();
    await page.getByRole('link', { name: 'New assistant' }).click();
    await field('Name').fill('Sales caller');
    await field('Phone number').selectOption({ label: '+4930123456780 (Normal)' });
    await field('Initial message').fill('Hi {{name}}, this is the dashboard test.');
    // The editor lists the placeholders the message uses.
    await expect.poll(() => page.getByTestId('placeholders').textContent()).toContain('{{name}} (no default)');
    await field('Speech speed (0.7–1.2)').fill('3');
    await field('Maximum call duration, seconds (20–1200)').fill('5');
    await page.getByLabel(/^book_slot/).check();
    await page.getByRole('button', { name: 'Create assistant' }).click();
    await expect.poll(() => page.getByRole('alert').allTextContents()).toEqual(
      expect.arrayContaining(['The speech speed field must be between 0.7 and 1.2.', 'The max call duration field must be between 20 and 1200.', 'Validation failed']),
    );
    // A summary at the top links each refused field; the focus is on the first of them.
    const summary = page.locator('.error-summary');
    await expect.poll(() => summary.locator('h2').textContent()).toBe('2 fields need attention');
    expect(await summary.locator('li').allTextContents()).toEqual([
      'Speech speed (0.7–1.2): The speech speed field must be between 0.7 and 1.2.',
      'Maximum call duration, seconds (20–1200): The max call duration field must be between 20 and 1200.',
    ]);
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe(await field('Speech speed (0.7–1.2)').getAttribute('id'));
    // Leaving with unsaved changes asks first; dismissed, the page and its edits stay.
    page.once('dialog', (d) => void d.dismiss());
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await expect.poll(() => page.url()).toContain('/assistants/new');
    expect(await field('Name').inputValue()).toBe('Sales caller');
    await expectAccessible('04-assistant-errors');
    await field('Speech speed (0.7–1.2)').fill('1.1');
    await field('Maximum call duration, seconds (20–1200)').fill('300');
    await page.getByRole('button', { name: 'Create assistant' }).click();
    await page.getByRole('heading', { name: 'Assistant: Sales caller' }).waitFor();
    await expect.poll(() => field('Speech speed (0.7–1.2)').inputValue()).toBe('1.1');
    expect(await page.getByLabel(/^book_slot/).isChecked()).toBe(true);
    await expectAccessible('05-assistant');
    const list = await user.get('/api/user/assistants/get');
    expect(list.body.data[0]).toMatchObject({ name: 'Sales caller', speech_speed: '1.10', max_duration: 300, type: 'outbound' });
  });

  it('keeps every saved change as a version, shows what it changed and restores an earlier one', async () => {
    await field('System prompt').fill('Always answer in one sentence.');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByText('Assistant updated successfully').count()).toBe(1);
    const versions = page.getByRole('table', { name: 'Versions of this assistant' });
    await expect.poll(() => versions.locator('tbody tr').first().textContent()).toContain('Edited: system_prompt');
    await expect.poll(() => versions.locator('tbody tr').first().textContent()).toContain('Dana Dashboard (dashboard)');
    await page.getByRole('button', { name: 'Show version 2' }).click();
    const changes = page.getByRole('table', { name: 'Changes in version 2' });
    await expect.poll(() => changes.locator('tr', { hasText: 'system_prompt' }).textContent()).toContain('Always answer in one sentence.');
    await expectAccessible('05b-assistant-versions');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Restore version 1' }).click();
    await expect.poll(() => page.getByText('Assistant restored to version 1').count()).toBe(1);
    await expect.poll(() => field('System prompt').inputValue()).toBe('');
    await expect.poll(() => versions.locator('tbody tr').first().textContent()).toContain('Restored: system_prompt');
    const restored = await user.get('/api/user/assistants/get');
    expect(restored.body.data[0]).toMatchObject({ name: 'Sales caller', system_prompt: '', speech_speed: '1.10' });
  });

  it('creates a campaign', async () => {
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('link', { name: 'New campaign' }).click();
    await field('Name').fill('Autumn outreach');
    await field('Calls in parallel (1–100)').fill('5');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByRole('heading', { name: 'Campaign: Autumn outreach' }).waitFor();
    await expectAccessible('06-campaign-draft');
    // Started with no leads: it says so, and offers no start.
    await page.getByRole('button', { name: 'Start campaign' }).click();
    await expect.poll(() => page.getByTestId('start-warnings').textContent()).toContain('This campaign has no leads');
    expect(await page.getByRole('button', { name: 'Start anyway' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Close' }).click();
    expect((await user.get('/api/user/campaigns')).body.find((c: { name: string }) => c.name === 'Autumn outreach')).toMatchObject({ status: 'draft' });
  });

  it('imports a CSV of leads: numbers normalised, bad rows listed with their line', async () => {
    await page.getByRole('link', { name: 'Import leads from a CSV file' }).click();
    // A file whose columns miss the assistant's {{name}}: warned before anything is sent, and mapped by hand.
    await page.getByLabel('CSV file (first line: column names)').setInputFiles({ name: 'first.csv', mimeType: 'text/csv', buffer: Buffer.from('first_name,Mobile\nKim,0151 22334499\n') });
    const warnings = page.getByTestId('placeholder-warnings');
    await expect.poll(() => warnings.textContent()).toContain('{{name}}: no column fills it');
    await expectAccessible('07a-lead-import-warning');
    await field('Column for {{name}}').selectOption('first_name');
    await expect.poll(() => warnings.count()).toBe(0);
    const lines = ['name,Mobile,City'];
    for (let i = 0; i < 20; i++) lines.push(`Person ${i},0151 ${String(22334400 + i)},Berlin`);
    lines.push('Nobody,not-a-number,Paris');
    await page.getByLabel('CSV file (first line: column names)').setInputFiles({ name: 'leads.csv', mimeType: 'text/csv', buffer: Buffer.from(lines.join('\n')) });
    await expect.poll(() => field('Phone number column').inputValue()).toBe('Mobile');
    await page.getByRole('button', { name: 'Import 21 leads' }).click();
    await expect.poll(() => page.getByTestId('import-status').textContent()).toContain('20 leads created, 1 rows refused. Done.');
    const refused = page.getByRole('table', { name: 'Refused rows' });
    expect(await refused.locator('tbody tr').first().textContent()).toBe('22not-a-numberThe phone number field must be a valid phone number.');
    await expectAccessible('07-lead-import');
    const leads = (await user.get('/api/user/leads')).body;
    expect(leads).toHaveLength(20);
    expect(leads[0]).toMatchObject({ phone_number: '+4915122334400', variables: { name: 'Person 0', City: 'Berlin' } });
  });

  it('lists, edits and deletes leads', async () => {
    await page.getByRole('link', { name: 'Leads', exact: true }).click();
    await page.getByRole('cell', { name: '+4915122334419', exact: true }).waitFor();
    // Where the dialer stands with each lead: none called yet.
    expect(await page.locator('[data-testid^="lead-calls-"]').first().textContent()).toBe('0 made');
    await expectAccessible('08-leads');
    await page.getByRole('button', { name: 'Edit +4915122334401' }).click();
    await field('Variables to merge (JSON object)').fill('{"vip": true}');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: '{"vip":true,"City":"Berlin","name":"Person 1"}' }).waitFor();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete +4915122334419' }).click();
    await expect.poll(async () => (await user.get('/api/user/leads')).body.length).toBe(19);
  });

  it('starts the campaign on the sandbox and shows it complete', async () => {
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('link', { name: 'Autumn outreach' }).click();
    // A lead without a value for {{name}}: the start says so first; cancelled, nothing is dialled.
    const lead = (await user.get('/api/user/leads')).body.find((l: { phone_number: string }) => l.phone_number === '+4915122334402');
    await user.put(`/api/user/leads/${lead.id}`, { variables: { name: '' } });
    await page.getByRole('button', { name: 'Start campaign' }).click();
    await expect.poll(() => page.getByTestId('start-warnings').textContent()).toContain('{{name}} is empty for 1 of 19 waiting leads');
    await expectAccessible('09a-campaign-start-warning');
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect((await user.get('/api/user/calls')).body.data).toHaveLength(0);
    await user.put(`/api/user/leads/${lead.id}`, { variables: { name: 'Person 2' } });
    await page.getByRole('button', { name: 'Start campaign' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Campaign started successfully.');
    await expect.poll(() => page.getByTestId('leads-completed').textContent(), { timeout: 90_000 }).toBe('19');
    await expect.poll(() => page.locator('.badge').first().textContent(), { timeout: 30_000 }).toBe('completed');
    await expect.poll(() => page.locator('table.calls tbody tr').count()).toBe(15);
    await expectAccessible('09-campaign-completed');
  }, 150_000);

  it('filters the call list and opens a call with its transcript', async () => {
    await page.getByRole('link', { name: 'Calls', exact: true }).click();
    await field('Status').selectOption('completed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL('**/calls?status=completed');
    await expect.poll(() => page.getByText('Page 1 of 2 (19 in all)').count()).toBe(1);
    await expectAccessible('10-calls');
    // Straight to a page.
    await page.getByLabel('Go to page').fill('2');
    await page.getByRole('button', { name: 'Go', exact: true }).click();
    await expect.poll(() => page.getByText('Page 2 of 2 (19 in all)').count()).toBe(1);
    expect(await page.locator('table.calls tbody tr').count()).toBe(4);
    // Every call the filter finds, as CSV.
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const csv = (await readFile((await file.path())!, 'utf8')).trim().split('\r\n');
    expect(csv[0]).toBe('id,created_at,status,type,client_phone_number,assistant_phone_number,assistant_name,campaign_name,duration,answered_by,carrier_cost,total_cost');
    expect(csv).toHaveLength(20);
    expect(csv.slice(1).every((line) => line.split(',')[2] === 'completed' && line.includes('Sales caller,Autumn outreach'))).toBe(true);
    await expect.poll(() => page.getByTestId('export-status').textContent()).toBe('Exported 19 calls.');
    await page.getByRole('button', { name: 'Previous page' }).click();
    // Sorted by a column header: longest first, said by aria-sort and the caption; back to page 1.
    await page.getByRole('button', { name: /^Duration/ }).click();
    await page.waitForURL(/sort=-duration/);
    await expect.poll(() => page.locator('th[aria-sort="descending"]').textContent()).toContain('Duration');
    expect(await page.locator('table.calls caption').textContent()).toBe('Your calls, longest first');
    const durations = (await page.locator('table.calls tbody tr td:nth-child(8)').allTextContents()).map((d) => parseFloat(d));
    expect(durations).toEqual([...durations].sort((a, b) => b - a));
    await field('Order').selectOption('created_at');
    await page.waitForURL(/sort=created_at/);
    await expect.poll(() => page.locator('th[aria-sort="ascending"]').textContent()).toContain('When');
    // Searched by the customer's number, as a person writes it (spaces), the order kept.
    const number = (await page.locator('table.calls tbody tr td:nth-child(5)').first().textContent())!.trim();
    await field('Customer number').fill(`${number.slice(0, 3)} ${number.slice(3, 6)} ${number.slice(6)}`);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/phone_number=/);
    expect(page.url()).toContain('sort=created_at');
    await expect.poll(() => page.locator('table.calls tbody tr td:nth-child(5)').allTextContents()).toEqual([number]);
    // Times in the browser's zone, the UTC time on hover.
    expect(await page.locator('table.calls tbody tr time').first().getAttribute('title')).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
    await page.locator('table.calls tbody tr a').first().click();
    await page.getByRole('heading', { name: /^Call #\d+$/ }).waitFor();
    // The cost in the service's currency (USD by default), a small amount with four decimals.
    await expect.poll(() => page.getByTestId('call-cost').textContent()).toMatch(/^\$\d+\.\d{2,4} \(carrier \$\d+\.\d{2,4}\)$/);
    const transcript = page.getByTestId('transcript');
    await expect.poll(() => transcript.textContent()).toContain('AssistantHi Person');
    expect(await transcript.textContent()).toContain('CustomerHello, yes, speaking.');
    await expectAccessible('11-call');
  });

  it('calls a number from the assistant page, warned about an empty placeholder first, and follows the call', async () => {
    await page.getByRole('link', { name: 'Assistants' }).click();
    await page.getByRole('link', { name: 'Sales caller' }).first().click();
    await field('Number to call').fill('+4915123456700');
    await expect.poll(() => page.getByTestId('call-warnings').textContent()).toContain('{{name}} has no value');
    await field('Value for {{name}}').fill('Sam');
    await expect.poll(() => page.getByTestId('call-warnings').count()).toBe(0);
    await page.getByRole('button', { name: 'Call this number' }).click();
    await page.getByRole('link', { name: /^Follow call #\d+$/ }).click();
    await page.getByRole('heading', { name: /^Call #\d+$/ }).waitFor();
    await expect.poll(() => page.getByTestId('transcript').textContent(), { timeout: 30_000 }).toContain('Hi Sam, this is the dashboard test.');
    await expectAccessible('11b-called-number');
    // And a lead, with its own variables, from the leads page.
    await page.getByRole('link', { name: 'Leads', exact: true }).click();
    await page.getByRole('button', { name: 'Call now: +4915122334400' }).click();
    await page.getByRole('link', { name: /^Follow call #\d+$/ }).click();
    await expect.poll(() => page.getByTestId('transcript').textContent(), { timeout: 30_000 }).toContain('Hi Person 0, this is the dashboard test.');
  });

  it('shows the account: numbers and the webhook secret', async () => {
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('cell', { name: '+4930123456780', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Reveal the webhook secret' }).click();
    const secret = (await user.get('/api/user/webhook-secret')).body.secret as string;
    await page.getByText(secret).waitFor();
    await expectAccessible('12-account');
  });

  it('creates a knowledge base, adds a text that becomes ready, finds it by search, and gives it to an assistant', async () => {
    await page.getByRole('link', { name: 'Knowledge' }).click();
    await page.getByRole('heading', { name: 'Knowledge bases' }).waitFor();
    await field('Name').fill('Clinic');
    await page.getByRole('button', { name: 'Create knowledge base' }).click();
    await page.getByRole('link', { name: 'Clinic' }).click();
    await page.getByRole('heading', { name: 'Clinic' }).waitFor();
    await field('Text').fill('# Parking\n\nThe car park behind the clinic is free for patients on weekdays.');
    await page.getByRole('button', { name: 'Add document' }).click();
    // The page looks again while the document is processing, until it is ready.
    await page.locator('td .badge-ready').waitFor({ timeout: 20_000 });
    await field('Question').fill('Where can I park?');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByRole('list', { name: 'Passages found' }).textContent()).toContain('car park behind the clinic');
    await expectAccessible('13-knowledge-base');
    await page.getByRole('link', { name: 'Knowledge bases' }).first().click();
    await page.getByRole('cell', { name: 'Clinic', exact: true }).waitFor();
    await expectAccessible('14-knowledge-bases');

    await page.getByRole('link', { name: 'Assistants' }).click();
    await page.getByRole('link', { name: 'Sales caller', exact: true }).first().click();
    await field('Knowledge base').selectOption({ label: 'Clinic (ready)' });
    await field('How the assistant uses it').selectOption('prompt');
    await expectAccessible('15-assistant-knowledge');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const kb = (await user.get('/api/user/knowledgebases')).body.data[0];
    await expect.poll(async () => (await user.get('/api/user/assistants/get')).body.data.find((a: { name: string }) => a.name === 'Sales caller')).toMatchObject({
      knowledgebase_id: kb.id,
      knowledgebase_mode: 'prompt',
    });
  });

  it('fits a phone (390 px): list pages do not scroll sideways, rows are cards with their actions in view', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const path of ['/assistants', '/tools', '/knowledge', '/campaigns', '/leads', '/calls', '/account']) {
        await page.goto(`${base}${path}`);
        await page.locator('main h1').waitFor();
        await page.waitForLoadState('networkidle');
        const widths = await page.evaluate(() => ({
          scroll: document.documentElement.scrollWidth,
          view: window.innerWidth,
          // What sticks out, to name in a failure.
          wide: [...document.querySelectorAll('main *, header *')]
            .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
            .slice(0, 5)
            .map((el) => `${el.tagName.toLowerCase()}.${el.className} (${Math.round(el.getBoundingClientRect().right)} px)`),
        }));
        expect(widths.scroll, `${path} scrolls sideways: ${widths.wide.join(', ')}`).toBeLessThanOrEqual(widths.view);
      }
      // The leads page: each lead a card, its Edit and Delete buttons on screen.
      await page.goto(`${base}/leads`);
      const edit = page.getByRole('button', { name: /^Edit \+49/ }).first();
      await edit.waitFor();
      const box = (await edit.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      expect(await page.locator('table.cards td[data-label="Phone number"]').first().isVisible()).toBe(true);
      await expectAccessible('12-phone-leads');
      await page.goto(`${base}/calls`);
      await page.locator('table.calls tbody tr').first().waitFor();
      await expectAccessible('12-phone-calls');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('signs in as the admin and sees the admin pages only', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/sign-in');
    await field('API token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/admin');
    await page.getByRole('link', { name: 'Dana Dashboard', exact: true }).waitFor();
    await expectAccessible('13-admin');
    await page.getByRole('link', { name: 'Dana Dashboard', exact: true }).click();
    await page.getByRole('heading', { name: 'User: Dana Dashboard' }).waitFor();
    await page.getByRole('cell', { name: '+4930123456780', exact: true }).waitFor();
    await expectAccessible('14-admin-user');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Disable user' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('User disabled successfully');
    await expect.poll(async () => (await user.get('/api/user/me')).status).toBe(401);
    await page.getByRole('button', { name: 'Enable user' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('User enabled successfully');
    await expect.poll(async () => (await user.get('/api/user/me')).status).toBe(200);
  });
});
