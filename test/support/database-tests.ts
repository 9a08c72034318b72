/**
 * Which test files use the test project's database. The second project (the machine's
 * PostgreSQL, TEST_DATABASE_URL) runs only those: a test that never reaches the database
 * (codecs, adapters against their doubles, pipeline stages, pure rules) would only run
 * again unchanged and cost CI minutes.
 *
 * A test uses the database when it, or a file under test/ it imports (transitively), reads
 * what the global setups provide (`pgServerUrl`, `pgTemplate`, `pgPrefix`) or
 * TEST_DATABASE_URL. Sources under src/ never read those, so the walk stays inside test/.
 *
 * A test that needs a database but tests something the database does not change (a process
 * under a descriptor flood, a streaming flood, real-time audio) says `@one-database` in its own
 * source: it runs on the first project only, once instead of twice.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const DATABASE_MARK = /\b(pgServerUrl|pgTemplate|pgPrefix|TEST_DATABASE_URL)\b/;
const ONE_DATABASE_MARK = /@one-database\b/;
const LOCAL_IMPORT = /(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function listFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) listFiles(full, out);
    else if (/\.tsx?$/.test(entry.name)) out.push(full);
  }
  return out;
}

function resolveImport(from: string, spec: string): string | null {
  const base = path.resolve(path.dirname(from), spec).replace(/\.js$/, '');
  for (const candidate of [`${base}.ts`, `${base}.tsx`, base]) {
    if (candidate.endsWith('.ts') || candidate.endsWith('.tsx')) {
      if (existsSync(candidate)) return candidate;
    }
  }
  return null;
}

/** Test files (relative to `root`, e.g. `test/audio/g711.test.ts`) that never use the database, or need one only (`@one-database`). */
export function testsWithoutDatabase(root: string): string[] {
  const testDir = path.join(root, 'test');
  const memo = new Map<string, boolean>();
  const usesDatabase = (file: string, seen: Set<string>): boolean => {
    const known = memo.get(file);
    if (known !== undefined) return known;
    if (seen.has(file) || !file.startsWith(testDir + path.sep)) return false;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    let result = DATABASE_MARK.test(source);
    if (!result) {
      for (const match of source.matchAll(LOCAL_IMPORT)) {
        const target = resolveImport(file, match[1] ?? match[2]!);
        if (target && usesDatabase(target, seen)) { result = true; break; }
      }
    }
    memo.set(file, result);
    return result;
  };
  return listFiles(testDir)
    .filter((file) => file.endsWith('.test.ts') && (ONE_DATABASE_MARK.test(readFileSync(file, 'utf8')) || !usesDatabase(file, new Set())))
    .map((file) => path.relative(root, file).split(path.sep).join('/'))
    .sort();
}
