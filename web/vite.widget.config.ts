/**
 * The embeddable widget's build: one self-contained script, web/dist/widget.js (served at
 * /widget.js with the dashboard), built after the dashboard into the same folder.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

/** The same .br/.gz siblings the dashboard's files get (src/http/web.ts serves them). */
function precompressWidget(): Plugin {
  return {
    name: 'switchboard-widget-precompress',
    apply: 'build',
    writeBundle(options) {
      const file = path.join(options.dir!, 'widget.js');
      const data = readFileSync(file);
      writeFileSync(`${file}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
      console.log(`widget.js: ${(gzipSync(data).length / 1024).toFixed(1)} KB gzipped`);
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  plugins: [precompressWidget()],
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    sourcemap: false,
    target: 'es2022',
    lib: { entry: path.join(import.meta.dirname, 'widget/widget.ts'), formats: ['iife'], name: 'SwitchboardWidget', fileName: () => 'widget.js' },
  },
});
