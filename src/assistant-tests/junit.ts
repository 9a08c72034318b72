/**
 * A suite's result as JUnit XML, the format CI systems show test results from:
 *
 *   <testsuites name tests failures errors skipped time>
 *     <testsuite name="<file>" …>            one per scenario file
 *       <testcase name="<scenario>" classname="<file>" time>
 *         <failure message="…" type="assertion">each failing assertion, per run, with its line</failure>
 *         <error message="…" type="error">why it could not run</error>
 *         <system-out>the first failing (else first) run's transcript, skipped assertions</system-out>
 *
 * A scenario is never a skipped test case: an assertion skipped inside it (a judge with no LLM)
 * is listed in its system-out, and it does not count as passed.
 */
import type { ScenarioResult, SuiteResult } from './runner.js';

const escapeXml = (s: string) =>
  s
    // Characters XML 1.0 cannot hold at all.
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function testcase(s: ScenarioResult): string {
  const time = s.runs.reduce((sum, r) => sum + r.durationMs, 0);
  const open = `    <testcase name="${escapeXml(s.name)}" classname="${escapeXml(s.file)}" time="${seconds(time)}">`;
  const body: string[] = [];
  if (s.status === 'error') {
    body.push(`      <error message="${escapeXml(s.summary)}" type="error">${escapeXml(s.runs.map((r) => `run ${r.repeat + 1}: ${r.error ?? r.status}`).join('\n'))}</error>`);
  } else if (s.status === 'failed') {
    const details = s.runs.flatMap((r) => [
      ...(r.error ? [`run ${r.repeat + 1}: ${r.error}`] : []),
      ...r.assertions.filter((a) => a.outcome === 'failed').map((a) => `run ${r.repeat + 1}, ${s.file}:${a.line} ${a.kind}: ${a.message}`),
    ]);
    body.push(`      <failure message="${escapeXml(s.summary)}" type="assertion">${escapeXml(details.join('\n'))}</failure>`);
  }
  const shown = s.runs.find((r) => r.status !== 'passed') ?? s.runs[0];
  if (shown) {
    const skipped = shown.assertions.filter((a) => a.outcome === 'skipped').map((a) => `${s.file}:${a.line} ${a.kind}: ${a.message}`);
    const transcript = shown.transcript.map((l) => (l.role === 'note' ? l.text : `${l.role === 'assistant' ? 'AI' : 'Caller'}: ${l.text}`));
    body.push(`      <system-out>${escapeXml([...skipped, ...(skipped.length ? [''] : []), ...transcript].join('\n'))}</system-out>`);
  }
  return [open, ...body, '    </testcase>'].join('\n');
}

export function junitXml(result: SuiteResult, name = 'switchboard assistant tests'): string {
  const files = [...new Set(result.scenarios.map((s) => s.file))];
  const count = (list: ScenarioResult[], status: string) => list.filter((s) => s.status === status).length;
  const suites = files.map((file) => {
    const list = result.scenarios.filter((s) => s.file === file);
    const time = list.reduce((sum, s) => sum + s.runs.reduce((t, r) => t + r.durationMs, 0), 0);
    return [
      `  <testsuite name="${escapeXml(file)}" tests="${list.length}" failures="${count(list, 'failed')}" errors="${count(list, 'error')}" skipped="0" time="${seconds(time)}">`,
      ...list.map(testcase),
      '  </testsuite>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escapeXml(name)}" tests="${result.total}" failures="${result.failed}" errors="${result.errored}" skipped="0" time="${seconds(result.durationMs)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
