/**
 * The dashboard's build: `npm ci` runs it (the root package's prepare step) into web/dist,
 * which the service serves at `/` (src/http/web.ts). After building it prints the gzipped
 * size of the JavaScript the first page loads, against the 250 KB budget of issue 17.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const FIRST_PAGE_BUDGET = 250 * 1024;

/** Prints the first page's JavaScript (the entry and what it imports statically), gzipped. */
function bundleReport(): Plugin {
  return {
    name: 'switchboard-bundle-report',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((c) => c.type === 'chunk');
      const byName = new Map(chunks.map((c) => [c.fileName, c]));
      const entry = chunks.find((c) => c.isEntry);
      if (!entry) return;
      const first = new Set<string>();
      const visit = (name: string) => {
        if (first.has(name)) return;
        first.add(name);
        for (const imp of byName.get(name)?.imports ?? []) visit(imp);
      };
      visit(entry.fileName);
      const gz = (name: string) => gzipSync((byName.get(name) as { code: string }).code).length;
      const firstBytes = [...first].reduce((n, name) => n + gz(name), 0);
      const lazy = chunks.filter((c) => !first.has(c.fileName));
      const lazyBytes = lazy.reduce((n, c) => n + gz(c.fileName), 0);
      const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
      const rows = [
        ['first page JS (gzip)', kb(firstBytes), `< ${kb(FIRST_PAGE_BUDGET)}`, firstBytes < FIRST_PAGE_BUDGET ? 'yes' : 'NO'],
        [`lazy pages JS (gzip, ${lazy.length} chunks)`, kb(lazyBytes), '', ''],
      ];
      const table = [['measure', 'value', 'target', 'met'], ...rows];
      const widths = table[0].map((_, i) => Math.max(...table.map((r) => r[i].length)));
      const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
      console.log(['', 'dashboard bundle', line(table[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line), ''].join('\n'));
      if (firstBytes >= FIRST_PAGE_BUDGET) this.error(`the first page's JavaScript is ${kb(firstBytes)} gzipped, over the ${kb(FIRST_PAGE_BUDGET)} budget`);
    },
  };
}

/**
 * Writes a .br and a .gz beside every built text file: the service serves the smallest one
 * the browser accepts (@fastify/static preCompressed), compressed once here, never per request.
 */
function precompress(): Plugin {
  return {
    name: 'switchboard-precompress',
    apply: 'build',
    writeBundle(options) {
      const walk = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
      for (const file of walk(options.dir!)) {
        if (!/\.(js|css|html|svg|json)$/.test(file)) continue;
        const data = readFileSync(file);
        writeFileSync(`${file}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react(), bundleReport(), precompress()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, target: 'es2022' },
  server: { proxy: { '/api': 'http://localhost:8080', '/openapi.json': 'http://localhost:8080' } },
});
