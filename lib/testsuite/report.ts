// The outcome of `test` in the three forms it prints: text for people (a failing case shows its expected and actual
// answer side by side), JUnit XML for CI systems, JSON for programs.
import type { CaseResult } from './run.js';
import type { Row } from './expect.js';

export interface SuiteReport {
  readonly file: string;
  readonly name: string;
  /** the suite could not run (bad suite, configuration or manifests): its cases were not run */
  readonly error?: string;
  readonly cases: readonly CaseResult[];
  readonly durationMs: number;
}

export interface Totals {
  readonly passed: number;
  readonly failed: number;
  /** suites that could not run */
  readonly errors: number;
}

export function totals(reports: readonly SuiteReport[]): Totals {
  let passed = 0;
  let failed = 0;
  let errors = 0;
  for (const r of reports) {
    if (r.error !== undefined) errors++;
    for (const c of r.cases) c.passed ? passed++ : failed++;
  }
  return { passed, failed, errors };
}

const ms = (d: number): string => (d < 10 ? d.toFixed(2) : d.toFixed(0));

/** Breaks `text` into lines of at most `width` characters, at a space when there is one. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let rest = paragraph;
    while (rest.length > width) {
      let cut = rest.lastIndexOf(' ', width);
      if (cut <= width / 2) cut = width;
      lines.push(rest.slice(0, cut).trimEnd());
      rest = rest.slice(cut).trimStart();
    }
    lines.push(rest);
  }
  return lines;
}

/** The rows as a three-column table (field, expected, actual), mismatches marked with `✗`. */
export function sideBySide(rows: readonly Row[], indent = '    ', columnWidth = 50): string {
  const fieldWidth = Math.min(Math.max(5, ...rows.map((r) => r.field.length)), 40);
  const out: string[] = [`${indent}  ${'field'.padEnd(fieldWidth)}  ${'expected'.padEnd(columnWidth)}  actual`];
  for (const r of rows) {
    const field = wrap(r.field, fieldWidth);
    const expected = wrap(r.expected, columnWidth);
    const actual = wrap(r.actual, columnWidth);
    const n = Math.max(field.length, expected.length, actual.length);
    for (let i = 0; i < n; i++) {
      const mark = i === 0 && !r.ok ? '✗ ' : '  ';
      out.push(`${indent}${mark}${(field[i] ?? '').padEnd(fieldWidth)}  ${(expected[i] ?? '').padEnd(columnWidth)}  ${actual[i] ?? ''}`.trimEnd());
    }
  }
  return out.join('\n') + '\n';
}

function caseText(c: CaseResult): string {
  let out = `${c.passed ? 'ok  ' : 'FAIL'}  ${c.name}  (${ms(c.durationMs)} ms)\n`;
  if (c.error !== undefined) out += `      error: ${c.error}\n`;
  else if (!c.passed) out += sideBySide(c.rows, '    ');
  for (const n of c.notes) out += `      note: ${n}\n`;
  return out;
}

export function textReport(reports: readonly SuiteReport[]): string {
  let out = '';
  for (const r of reports) {
    out += `=== ${r.name} (${r.file})\n`;
    if (r.error !== undefined) {
      out += `ERROR ${r.error}\n`;
      continue;
    }
    for (const c of r.cases) out += caseText(c);
    const t = totals([r]);
    out += `--- ${t.failed === 0 ? 'PASS' : 'FAIL'} ${r.name}: ${t.passed} passed, ${t.failed} failed in ${ms(r.durationMs)} ms\n`;
  }
  const t = totals(reports);
  if (t.errors > 0) out += `${t.errors} suite${t.errors === 1 ? '' : 's'} could not run\n`;
  out += `${t.passed} passed, ${t.failed} failed\n`;
  return out;
}

export function jsonReport(reports: readonly SuiteReport[]): string {
  const t = totals(reports);
  return JSON.stringify({
    suites: reports.map((r) => ({
      name: r.name,
      file: r.file,
      ...(r.error === undefined ? {} : { error: r.error }),
      durationMs: r.durationMs,
      cases: r.cases.map((c) => ({
        name: c.name,
        passed: c.passed,
        durationMs: c.durationMs,
        ...(c.error === undefined ? {} : { error: c.error }),
        rows: c.rows,
        ...(c.answer === undefined ? {} : { answer: c.answer }),
        notes: c.notes,
      })),
    })),
    ...t,
  }, null, 2) + '\n';
}

/** XML 1.0 text: the five entities escaped, characters XML cannot carry dropped. */
export function xmlEscape(s: string): string {
  return s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const seconds = (d: number): string => (d / 1000).toFixed(6);

/** JUnit XML as Jenkins, GitLab and GitHub reporters read it: one <testsuite> per suite file. */
export function junitReport(reports: readonly SuiteReport[]): string {
  const t = totals(reports);
  const total = reports.reduce((n, r) => n + (r.error === undefined ? r.cases.length : 1), 0);
  const time = reports.reduce((n, r) => n + r.durationMs, 0);
  let out = '<?xml version="1.0" encoding="UTF-8"?>\n';
  out += `<testsuites name="static-admissiond test" tests="${total}" failures="${t.failed}" errors="${t.errors}" time="${seconds(time)}">\n`;
  for (const r of reports) {
    const name = xmlEscape(r.name);
    const file = xmlEscape(r.file);
    if (r.error !== undefined) {
      out += `  <testsuite name="${name}" file="${file}" tests="1" failures="0" errors="1" skipped="0" time="${seconds(r.durationMs)}">\n`;
      out += `    <testcase name="(suite)" classname="${name}" file="${file}" time="0"><error message="${xmlEscape(r.error)}" type="BadSuite"/></testcase>\n`;
      out += '  </testsuite>\n';
      continue;
    }
    const s = totals([r]);
    const errors = r.cases.filter((c) => c.error !== undefined).length;
    out += `  <testsuite name="${name}" file="${file}" tests="${r.cases.length}" failures="${s.failed - errors}" errors="${errors}" skipped="0" time="${seconds(r.durationMs)}">\n`;
    for (const c of r.cases) {
      const open = `    <testcase name="${xmlEscape(c.name)}" classname="${name}" file="${file}" time="${seconds(c.durationMs)}"`;
      const notes = c.notes.length === 0 ? '' : `<system-out>${xmlEscape(c.notes.join('\n'))}</system-out>`;
      if (c.passed) {
        out += notes === '' ? `${open}/>\n` : `${open}>${notes}</testcase>\n`;
      } else if (c.error !== undefined) {
        out += `${open}><error message="${xmlEscape(c.error)}" type="AdmissionError"/>${notes}</testcase>\n`;
      } else {
        const summary = c.rows.filter((row) => !row.ok).map((row) => `${row.field}: expected ${row.expected}, got ${row.actual}`).join('; ');
        out += `${open}><failure message="${xmlEscape(summary)}" type="AdmissionTestFailure">${xmlEscape(sideBySide(c.rows, ''))}</failure>${notes}</testcase>\n`;
      }
    }
    out += '  </testsuite>\n';
  }
  return out + '</testsuites>\n';
}
