/**
 * An LLM that streams as fast as the socket allows (flooding-llm-server.ts, in a child process):
 * `startFloodingLlm()` → its LLM_BASE_URL, the bytes it sent so far, and `close()`.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface FloodingLlm {
  /** LLM_BASE_URL (with `/v1`). */
  baseUrl: string;
  stats(): Promise<{ requests: number; bytesSent: number }>;
  close(): Promise<void>;
}

export async function startFloodingLlm(): Promise<FloodingLlm> {
  const script = fileURLToPath(new URL('./flooding-llm-server.ts', import.meta.url));
  // A vendor's server runs on another machine; here it shares the cores with the process under
  // test, so it yields the CPU first (nice 10): it still sends as fast as the socket drains.
  const child = spawn('nice', ['-n', '10', process.execPath, '--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  const waiters: ((line: string) => void)[] = [];
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    out += c;
    let nl: number;
    while ((nl = out.indexOf('\n')) >= 0) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      waiters.shift()?.(line);
    }
  });
  const next = () => new Promise<string>((resolve, reject) => {
    waiters.push(resolve);
    child.once('exit', (code) => reject(new Error(`the flooding LLM exited (${code})`)));
  });
  const port = Number((await next()).replace(/^port /, ''));
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    async stats() {
      const line = next();
      child.stdin!.write('?\n');
      return JSON.parse((await line).replace(/^stats /, ''));
    },
    async close() {
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin!.end();
      await exited;
    },
  };
}
