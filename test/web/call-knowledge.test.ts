/**
 * The call page in a browser shows the knowledge base's passages each turn used (from
 * GET /api/user/calls/{id}/turns): how the base was searched, the document, the passage and its
 * score; a call without any shows no such table. Checked with axe-core and the keyboard walk.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTurns } from '../../src/db/schema.js';
import { insertCall } from '../api/calls/support.js';
import { checkPage, launchBrowser, type Browser } from '../support/browser.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';

let t: TestService;
let browser: Browser;
let page: Page;
let user: TestUser;

beforeAll(async () => {
  t = await startTestService({ listen: true });
  user = await t.createUser({ name: 'Kim Knowledge' });
  browser = await launchBrowser();
  page = browser.page;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the call page', () => {
  it('lists the knowledge base passages and the tool calls per turn', async () => {
    const call = await insertCall(t, user.id, { transcript: 'AI: Hello!\nCustomer: How much is a cleaning?\nAI: 89 euros.' });
    const plain = await insertCall(t, user.id, { transcript: 'AI: Hello!' });
    await t.service.ctx.database.db.insert(callTurns).values([
      { callId: call.id, position: 0, kind: 'greeting', startedAt: '2026-11-29 10:00:00+00', assistantText: 'Hello!' },
      {
        callId: call.id,
        position: 1,
        kind: 'reply',
        startedAt: '2026-11-29 10:00:03+00',
        callerText: 'How much is a cleaning?',
        assistantText: '89 euros.',
        knowledge: [
          {
            mode: 'function_call',
            query: 'cleaning price',
            passages: [
              { document_id: 4, document_name: 'Price list', chunk_id: 812, heading: 'Prices > Dental hygiene', score: 0.0327868852 },
              { document_id: 5, document_name: 'Opening hours', chunk_id: 815, heading: '', score: 0.0161290323 },
            ],
          },
          { mode: 'prompt', query: null, passages: [{ document_id: 4, document_name: 'Price list', chunk_id: null, heading: '', score: null }] },
        ],
        toolCalls: [
          { at_ms: 120, name: 'search_knowledge_base', arguments: '{"query": "cleaning price"}', ok: true, answer: '{"passages":[]}', duration_ms: 9 },
          { at_ms: 400, name: 'book_cleaning', arguments: '{"day":"Friday"}', ok: false, answer: '{"status":503,"body":"busy"}', duration_ms: 1502 },
        ],
      },
      { callId: plain.id, position: 0, kind: 'greeting', startedAt: '2026-11-29 10:00:00+00', assistantText: 'Hello!' },
    ]);

    await page.goto(`${t.service.url}/`);
    await page.waitForURL('**/sign-in');
    await page.getByLabel('API token', { exact: true }).fill(user.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/assistants');

    await page.goto(`${t.service.url}/calls/${call.id}`);
    const table = page.getByRole('table', { name: 'Knowledge base passages used per turn' });
    await table.waitFor();
    const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows).toEqual([
      ['2', 'searched “cleaning price”', 'Price list', 'Prices > Dental hygiene · passage 812', '0.0328'],
      ['2', 'searched “cleaning price”', 'Opening hours', '(no heading) · passage 815', '0.0161'],
      ['2', 'whole base in the prompt', 'Price list', 'the whole document', '—'],
    ]);
    // The functions the model called, with what was asked and answered, in the turn's order.
    const tools = page.getByRole('table', { name: 'Tool calls per turn' });
    const toolRows = await tools.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(toolRows.map((r) => [r[0], r[2], r[3], r[4], r[5], r[6]])).toEqual([
      ['2', 'search_knowledge_base', '{"query":"cleaning price"}', '{"passages":[]}', 'ok', '9 ms'],
      ['2', 'book_cleaning', '{"day":"Friday"}', '{"status":503,"body":"busy"}', 'failed (503)', '1502 ms'],
    ]);
    expect(await tools.locator('tbody tr time').first().getAttribute('title')).toBe('2026-11-29 10:00:03.120 UTC');
    const { violations, unreachable } = await checkPage(page, 'call-knowledge');
    expect(violations, JSON.stringify(violations, null, 2)).toEqual([]);
    expect(unreachable).toEqual([]);

    // A call whose turns used no knowledge base has no such table.
    await page.goto(`${t.service.url}/calls/${plain.id}`);
    await page.getByRole('heading', { name: 'Turns and timings' }).waitFor();
    await page.getByRole('table', { name: 'Turns and their timings' }).waitFor();
    expect(await page.getByRole('table', { name: 'Knowledge base passages used per turn' }).count()).toBe(0);
    expect(await page.getByRole('table', { name: 'Tool calls per turn' }).count()).toBe(0);
  });

  it('a running call shows its turns so far as they come, and a running clock', async () => {
    const running = await insertCall(t, user.id, { status: 'in-progress', transcript: '' });
    await t.service.ctx.database.db.insert(callTurns).values([{ callId: running.id, position: 0, kind: 'greeting', startedAt: '2026-11-29 10:00:00+00', assistantText: 'Hello, Kim here.' }]);
    await page.goto(`${t.service.url}/calls/${running.id}`);
    const live = page.getByTestId('live-call-transcript');
    await expect.poll(() => live.textContent()).toBe('AssistantHello, Kim here.');
    await expect.poll(() => page.getByTestId('call-duration').textContent()).toMatch(/^running for \d+:\d\d$/);
    // The next turn is stored: the page shows it without a reload.
    await t.service.ctx.database.db
      .insert(callTurns)
      .values([{ callId: running.id, position: 1, kind: 'reply', startedAt: '2026-11-29 10:00:04+00', callerText: 'Is the clinic open today?', assistantText: 'Until six.' }]);
    await expect.poll(() => live.textContent(), { timeout: 10_000 }).toBe('AssistantHello, Kim here.CustomerIs the clinic open today?AssistantUntil six.');
    const { violations } = await checkPage(page, 'call-live');
    expect(violations, JSON.stringify(violations, null, 2)).toEqual([]);
  });
});
