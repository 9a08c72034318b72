/**
 * Makes docs/images/dashboard.png, the README's picture: starts the built service offline on a
 * fresh embedded database (sandbox carrier, offline LLM stand-in), places a few calls through
 * the API as the README tour does, signs in to the dashboard in Chromium and photographs a
 * finished call's page. `npx tsx scripts/readme-screenshot.ts` (needs `npm ci` and Chromium:
 * `apt-get install chromium`, or CHROMIUM_PATH).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { freePort } from '../src/db/embedded.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.join(ROOT, 'docs/images/dashboard.png');

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-screenshot-'));
fs.chmodSync(dataDir, 0o755);
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const child = spawn(process.execPath, ['dist/main.js'], {
  cwd: ROOT,
  env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', SANDBOX_TIME_SCALE: '0.2' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
child.stdout!.on('data', (c) => (output += c));
child.stderr!.on('data', (c) => (output += c));

async function until<T>(what: string, get: () => Promise<T | undefined>, seconds = 120): Promise<T> {
  for (let i = 0; i < seconds * 4; i++) {
    const v = await get().catch(() => undefined);
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}\n${output}`);
}

try {
  const token = await until('the demo token', async () => /Demo user token:\s+(\S+)/.exec(output)?.[1]);
  await until('the service', async () => ((await fetch(`${base}/ready`)).ok ? true : undefined));
  const api = async (route: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') => {
    const res = await fetch(`${base}${route}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, any>>;
  };
  await api('/api/user/assistant', {
    assistant_name: 'Appointment reminder',
    voice_id: 1,
    calls_direction: 'make',
    initial_message: 'Hi {{name}}, this is Ada from the dental practice, calling about your appointment tomorrow.',
  });
  // A conversation, then a busy line and a voicemail for the calls list.
  const numbers = ['+4915123456700', '+4915123456791', '+4915123456794'];
  for (const [i, phone] of numbers.entries()) await api('/api/user/make_call', { phone_number: phone, assistant_id: 1, variables: { name: ['Sam', 'Kim', 'Alex'][i] } });
  await until('the calls to finish', async () => {
    const calls = await Promise.all(numbers.map((_, i) => api(`/api/user/calls/${i + 1}`)));
    return calls.every((c) => !['initiated', 'ringing', 'in-progress'].includes(c.status as string)) ? true : undefined;
  });

  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1200, height: 760 }, deviceScaleFactor: 1, colorScheme: 'light' });
  await page.goto(`${base}/sign-in`);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: /sign in/i }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/sign-in'));
  await page.goto(`${base}/calls/1`);
  await page.getByText('Hi Sam').first().waitFor();
  await page.screenshot({ path: OUT, type: 'png' });
  await browser.close();
  console.log(`wrote ${path.relative(process.cwd(), OUT)} (${fs.statSync(OUT).size} bytes)`);
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  fs.rmSync(dataDir, { recursive: true, force: true });
}
