/**
 * Headless Chromium for the browser tests (Debian's `chromium`, driven by playwright-core;
 * VOICE.md B5): a fresh profile per launch, screenshots saved as test artifacts under
 * test-artifacts/ (ignored by git), an axe-core accessibility check and a keyboard walk.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = path.resolve(import.meta.dirname, '../../test-artifacts');

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install it (apt-get install chromium) or set CHROMIUM_PATH`);
  }
  const profile = await mkdtemp(path.join(tmpdir(), 'sb-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extraArgs],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20_000);
  return {
    context,
    page,
    async close() {
      await context.close().catch(() => undefined);
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a full-page screenshot as test-artifacts/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = path.join(ARTIFACTS, 'screenshots');
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

let axeSource: string | undefined;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** axe-core's violations of impact serious or critical on the page as it is now. */
export async function seriousA11yViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axeSource });
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe.run(document, {
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => JSON.stringify(n.target)) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * Presses Tab through the page and returns the visible, enabled controls that were never
 * focused (each described by its tag and label), i.e. the ones a keyboard user cannot reach.
 */
export async function unreachableByKeyboard(page: Page): Promise<string[]> {
  const total = await page.evaluate(() => {
    const controls = [...document.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, summary, [tabindex]')].filter((el) => {
      const r = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      return !(el as HTMLButtonElement).disabled && r.width > 0 && r.height > 0 && style.visibility !== 'hidden' && el.tabIndex !== -1;
    });
    controls.forEach((el, i) => el.setAttribute('data-kb', String(i)));
    document.querySelectorAll('[tabindex="-1"]').forEach((el) => el.removeAttribute('data-kb'));
    (document.activeElement as HTMLElement | null)?.blur();
    return controls.length;
  });
  const seen = new Set<string>();
  // Some controls take several presses (a date input's day, month and year), hence the margin.
  for (let i = 0; i < total * 4 + 10 && seen.size < total; i++) {
    await page.keyboard.press('Tab');
    const kb = await page.evaluate(() => document.activeElement?.getAttribute('data-kb') ?? null);
    if (kb !== null) seen.add(kb);
  }
  return page.evaluate((reached) => {
    const out: string[] = [];
    document.querySelectorAll<HTMLElement>('[data-kb]').forEach((el) => {
      const key = el.getAttribute('data-kb')!;
      if (!reached.includes(key)) out.push(`${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}"`);
      el.removeAttribute('data-kb');
    });
    return out;
  }, [...seen]);
}

/** Screenshot, accessibility check and keyboard walk of one page, as the browser tests do for each. */
export async function checkPage(page: Page, name: string): Promise<{ violations: AxeViolation[]; unreachable: string[] }> {
  await screenshot(page, name);
  return { violations: await seriousA11yViolations(page), unreachable: await unreachableByKeyboard(page) };
}

/** `checkPage`, asserted: no serious or critical axe violation, every control reachable by keyboard. */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  const { violations, unreachable } = await checkPage(page, name);
  expect(violations, `${name}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
  expect(unreachable, `${name}: controls the keyboard cannot reach`).toEqual([]);
}

/**
 * `expectAccessible` at desktop width, then axe again at 390 px and no sideways scrolling there
 * (naming the first elements that stick out); the viewport goes back to 1280 × 900.
 */
export async function expectFitsPhone(page: Page, name: string): Promise<void> {
  await expectAccessible(page, name);
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    const phone = await checkPage(page, `${name}-390`);
    expect(phone.violations, `${name} at 390 px: ${JSON.stringify(phone.violations, null, 2)}`).toEqual([]);
    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      view: window.innerWidth,
      wide: [...document.querySelectorAll('main *, header *')]
        .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
        .slice(0, 5)
        .map((el) => `${el.tagName.toLowerCase()}.${el.className} (${Math.round(el.getBoundingClientRect().right)} px)`),
    }));
    expect(widths.scroll, `${name} scrolls sideways at 390 px: ${widths.wide.join(', ')}`).toBeLessThanOrEqual(widths.view);
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
}
