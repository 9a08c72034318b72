/**
 * Summarises a V8 CPU profile (.cpuprofile, e.g. from BENCH_TURN_PROFILE of
 * bench/turn-taking/load.ts): the functions with the most self time, and the files (or
 * packages) whose functions have it, as a share of the profiled wall time.
 *
 *   npx tsx bench/cpuprofile-top.ts file.cpuprofile [rows]
 */
import fs from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const [file, rowsArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: npx tsx bench/cpuprofile-top.ts file.cpuprofile [rows]\n');
  process.exit(2);
}
const rows = Number(rowsArg ?? 30);
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
// Self time per node: each sample's time delta goes to the node sampled.
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0)));
const wall = profile.endTime - profile.startTime;

/** node_modules/<package> or the path under the repository, without the file:// prefix. */
function where(url: string): string {
  if (!url) return '(native)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return `npm:${rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (url.startsWith('node:')) return url;
  const src = url.search(/\/(src|bench|test)\//);
  return src >= 0 ? url.slice(src + 1) : url.replace(/^file:\/\//, '');
}

const fns = new Map<string, number>();
const files = new Map<string, number>();
for (const [id, us] of self) {
  const n = byId.get(id)!;
  const at = where(n.callFrame.url);
  const name = `${n.callFrame.functionName || '(anonymous)'}  ${at}${n.callFrame.url ? `:${n.callFrame.lineNumber + 1}` : ''}`;
  fns.set(name, (fns.get(name) ?? 0) + us);
  const group = ['(idle)', '(program)', '(garbage collector)'].includes(n.callFrame.functionName) ? n.callFrame.functionName : at;
  files.set(group, (files.get(group) ?? 0) + us);
}
const pct = (us: number) => `${((us / wall) * 100).toFixed(1).padStart(5)} %`;
const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, rows);
process.stdout.write(`profiled ${(wall / 1e6).toFixed(1)} s of wall time\n\nself time by function\n`);
for (const [name, us] of top(fns)) process.stdout.write(`${pct(us)}  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}\n`);
process.stdout.write('\nself time by file or package\n');
for (const [name, us] of top(files)) process.stdout.write(`${pct(us)}  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}\n`);
