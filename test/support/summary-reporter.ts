/**
 * Prints the slowest test files (where the run's time goes: the CI budget is kept by moving
 * long ones to their own scripts) and then one plain closing line,
 * `tests: N passed, N failed, N skipped`, after the default reporter's summary, so that tools
 * reading a run's last lines can count it.
 */
import type { Reporter, TestModule } from 'vitest/node';

/** How many of the slowest files the run names. */
const SLOWEST = 15;

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const durations: { file: string; ms: number }[] = [];
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (mod.state() === 'failed' && [...mod.children.allTests()].length === 0) failed++;
      const project = mod.project.name ? `${mod.project.name} ` : '';
      durations.push({ file: `${project}${mod.relativeModuleId}`, ms: mod.diagnostic().duration });
    }
    if (durations.length > SLOWEST) {
      const total = durations.reduce((s, d) => s + d.ms, 0);
      const top = durations.sort((a, b) => b.ms - a.ms).slice(0, SLOWEST);
      const lines = top.map((d) => `  ${(d.ms / 1000).toFixed(1).padStart(7)} s  ${d.file}`);
      process.stdout.write(`\nslowest test files (of ${(total / 1000).toFixed(0)} s in ${durations.length} files):\n${lines.join('\n')}\n`);
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
