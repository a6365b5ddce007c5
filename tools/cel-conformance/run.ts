// Runs the cel-spec simple conformance tests against lib/cel and prints per-file pass counts over the runnable
// tests (skips: protobuf messages, check_only, unknowns; see spec.ts).
//
//   npm run build && node dist/tools/cel-conformance/run.js [file-regex] [--failures] [--json out.json]
//
// The test data directory is $CEL_SPEC_DIR, else ../shared/cel-spec-testdata next to the repository.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { libCelAdapter } from './adapter.js';
import type { ConformanceAdapter } from './adapter.js';
import { canonEqual, canonString, readSpecFile } from './spec.js';
import type { SpecTest } from './spec.js';

/** The files whose pass rate the project holds to ≥97% (the ones admission policies lean on). */
export const CORE_FILES = [
  'basic',
  'comparisons',
  'conversions',
  'fields',
  'fp_math',
  'integer_math',
  'lists',
  'logic',
  'macros',
  'parse',
  'plumbing',
  'string',
  'timestamps',
] as const;

/** Files held to ≥90%. */
export const EXTENSION_FILES = ['string_ext', 'optionals'] as const;

export interface FileResult {
  readonly file: string;
  readonly total: number;
  readonly runnable: number;
  readonly passed: number;
  readonly skipped: Readonly<Record<string, number>>;
  readonly failures: readonly string[];
}

export function defaultSpecDir(): string {
  if (process.env['CEL_SPEC_DIR']) return process.env['CEL_SPEC_DIR'];
  // dist/tools/cel-conformance → repository root → ../shared
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, '../../../../shared/cel-spec-testdata'), path.resolve(here, '../../../shared/cel-spec-testdata')];
  return candidates.find((c) => fs.existsSync(c)) ?? candidates[0]!;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.slice(0, 200);
}

/** Runs one test: undefined when it passes, otherwise why not. */
export function runTest(adapter: ConformanceAdapter, test: SpecTest): string | undefined {
  let stage = 'compile';
  try {
    const compiled = adapter.compile(test);
    stage = 'bind';
    const bindings: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(test.bindings)) bindings[name] = adapter.toInput(value);
    stage = 'eval';
    const result = compiled.run(bindings);
    stage = 'result';
    const got = adapter.toCanon(result);
    if (test.expectError) return `want error, got ${canonString(got)}`;
    if (test.expected !== undefined && canonEqual(got, test.expected)) return undefined;
    return `want ${canonString(test.expected)}, got ${canonString(got)}`;
  } catch (error) {
    if (test.expectError && (stage === 'compile' || stage === 'eval')) return undefined;
    return `want ${test.expectError ? 'error' : canonString(test.expected)}, got ${stage} error: ${firstLine(error)}`;
  }
}

export function runFile(adapter: ConformanceAdapter, file: string): FileResult {
  const tests = readSpecFile(file);
  const skipped: Record<string, number> = {};
  const failures: string[] = [];
  let passed = 0;
  let runnable = 0;
  for (const test of tests) {
    if (test.skip !== undefined) {
      skipped[test.skip] = (skipped[test.skip] ?? 0) + 1;
      continue;
    }
    runnable++;
    const why = runTest(adapter, test);
    if (why === undefined) passed++;
    else failures.push(`${test.name}\n    expr: ${test.expr}${test.container ? `  [container ${test.container}]` : ''}${test.disableCheck ? '  [unchecked]' : ''}\n    ${why}`);
  }
  return { file: path.basename(file, '.textproto'), total: tests.length, runnable, passed, skipped, failures };
}

export function runConformance(options: { dir?: string; filter?: RegExp; adapter?: ConformanceAdapter } = {}): FileResult[] {
  const dir = options.dir ?? defaultSpecDir();
  const adapter = options.adapter ?? libCelAdapter;
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.textproto') && (options.filter?.test(f.replace(/\.textproto$/, '')) ?? true))
    .sort();
  return files.map((f) => runFile(adapter, path.join(dir, f)));
}

function percent(passed: number, runnable: number): string {
  return runnable === 0 ? '-' : `${((100 * passed) / runnable).toFixed(1)}%`;
}

function subtotal(results: readonly FileResult[], names: readonly string[]): { passed: number; runnable: number } {
  let passed = 0;
  let runnable = 0;
  for (const r of results) {
    if (!names.includes(r.file)) continue;
    passed += r.passed;
    runnable += r.runnable;
  }
  return { passed, runnable };
}

/** A markdown table of the results, with the core and extension subtotals and whether each bar is met. */
export function formatResults(results: readonly FileResult[]): string {
  const lines = ['| file | tests | runnable | skipped | pass | rate | bar |', '|---|---|---|---|---|---|---|'];
  let passed = 0;
  let runnable = 0;
  let total = 0;
  for (const r of results) {
    const skip = Object.entries(r.skipped)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ');
    const bar = (CORE_FILES as readonly string[]).includes(r.file) ? 97 : (EXTENSION_FILES as readonly string[]).includes(r.file) ? 90 : undefined;
    const met = bar === undefined || r.runnable === 0 ? '' : (100 * r.passed) / r.runnable >= bar ? `≥${bar}% met` : `≥${bar}% NOT met`;
    lines.push(`| ${r.file} | ${r.total} | ${r.runnable} | ${skip} | ${r.passed}/${r.runnable} | ${percent(r.passed, r.runnable)} | ${met} |`);
    passed += r.passed;
    runnable += r.runnable;
    total += r.total;
  }
  lines.push(`| **total** | ${total} | ${runnable} | | **${passed}/${runnable}** | ${percent(passed, runnable)} | |`);
  const core = subtotal(results, CORE_FILES);
  const ext = subtotal(results, EXTENSION_FILES);
  lines.push('');
  lines.push(`core files: ${core.passed}/${core.runnable} (${percent(core.passed, core.runnable)})`);
  lines.push(`string_ext + optionals: ${ext.passed}/${ext.runnable} (${percent(ext.passed, ext.runnable)})`);
  return lines.join('\n');
}

function main(argv: readonly string[]): void {
  const args = [...argv];
  const showFailures = args.includes('--failures');
  const jsonAt = args.indexOf('--json');
  const jsonOut = jsonAt >= 0 ? args[jsonAt + 1] : undefined;
  const positional = args.filter((a, i) => !a.startsWith('--') && (jsonAt < 0 || i !== jsonAt + 1));
  const filter = positional[0] === undefined ? undefined : new RegExp(`^(?:${positional[0]})$`);
  const results = runConformance(filter === undefined ? {} : { filter });
  if (showFailures) for (const r of results) for (const f of r.failures) console.log(f);
  console.log(formatResults(results));
  if (jsonOut !== undefined) {
    const summary = results.map(({ file, total, runnable, passed, skipped, failures }) => ({ file, total, runnable, passed, skipped, failures }));
    fs.writeFileSync(jsonOut, `${JSON.stringify(summary, null, 1)}\n`);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));
