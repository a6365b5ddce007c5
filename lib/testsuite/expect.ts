// A case's answer against its expectation: one row per expected field (and the verdict's fields a reader needs to
// see why), each with the expected and the actual value as text and whether they agree.
import type { JsonValue } from '../manifest/document.js';
import type { Expectation, TextMatcher } from './suite.js';
import { ownValue } from '../json/own.js';

/** What the daemon answered for a case, as the apiserver would act on it. */
export interface Answer {
  readonly allowed: boolean;
  readonly code?: number;
  readonly reason?: string;
  readonly message?: string;
  readonly warnings: readonly string[];
  readonly auditAnnotations: Readonly<Record<string, string>>;
  /** whether /mutate answered with a patch */
  readonly patched: boolean;
  /** the object after admission: mutated, and as /validate saw it; null when denied or when there is none */
  readonly object: JsonValue | null;
  /** the endpoint whose denial decided */
  readonly deniedBy?: 'mutate' | 'validate';
}

export interface Row {
  readonly field: string;
  readonly expected: string;
  readonly actual: string;
  readonly ok: boolean;
}

const none = '(none)';

export function describeMatcher(m: TextMatcher): string {
  return m.regexp !== undefined ? `/${m.regexp}/` : JSON.stringify(m.exact);
}

export function matches(m: TextMatcher, text: string | undefined): boolean {
  if (text === undefined) return false;
  return m.compiled !== undefined ? m.compiled.matcher(text).find() : m.exact === text;
}

const show = (v: JsonValue | undefined): string => (v === undefined ? '(absent)' : JSON.stringify(v));

const isObject = (v: JsonValue | undefined): v is { [k: string]: JsonValue } => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `expected` as a subset of `actual`: every key of an expected map present with a matching value, lists of the same
 * length matched element by element, scalars equal. Appends a row per differing path.
 */
export function subsetRows(path: string, expected: JsonValue, actual: JsonValue | undefined, out: Row[]): void {
  if (isObject(expected)) {
    if (!isObject(actual)) {
      out.push({ field: path, expected: show(expected), actual: show(actual), ok: false });
      return;
    }
    for (const [k, v] of Object.entries(expected)) subsetRows(`${path}.${k}`, v, ownValue(actual, k), out);
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      out.push({ field: path, expected: show(expected), actual: show(actual), ok: false });
      return;
    }
    expected.forEach((v, i) => subsetRows(`${path}[${i}]`, v, actual[i], out));
    return;
  }
  if (expected !== actual) out.push({ field: path, expected: show(expected), actual: show(actual), ok: false });
}

/** The rows of a case: every expected field, plus the verdict and message for context. */
export function compareAnswer(expect: Expectation, answer: Answer): Row[] {
  const rows: Row[] = [];
  rows.push({ field: 'allowed', expected: String(expect.allowed), actual: String(answer.allowed), ok: expect.allowed === answer.allowed });
  if (expect.code !== undefined) rows.push({ field: 'code', expected: String(expect.code), actual: answer.code === undefined ? none : String(answer.code), ok: expect.code === answer.code });
  if (expect.reason !== undefined) rows.push({ field: 'reason', expected: expect.reason, actual: answer.reason ?? none, ok: expect.reason === answer.reason });
  if (expect.message !== undefined) {
    rows.push({ field: 'message', expected: describeMatcher(expect.message), actual: answer.message === undefined ? none : JSON.stringify(answer.message), ok: matches(expect.message, answer.message) });
  } else if (answer.message !== undefined) {
    rows.push({ field: 'message', expected: '(not checked)', actual: JSON.stringify(answer.message), ok: true });
  }
  if (expect.warnings !== undefined) {
    const ws = expect.warnings;
    const n = Math.max(ws.length, answer.warnings.length);
    if (n === 0) rows.push({ field: 'warnings', expected: none, actual: none, ok: true });
    for (let i = 0; i < n; i++) {
      const e = ws[i];
      const a = answer.warnings[i];
      rows.push({ field: `warnings[${i}]`, expected: e === undefined ? none : describeMatcher(e), actual: a === undefined ? none : JSON.stringify(a), ok: e !== undefined && matches(e, a) });
    }
  }
  if (expect.auditAnnotations !== undefined) {
    const keys = [...new Set([...Object.keys(expect.auditAnnotations), ...Object.keys(answer.auditAnnotations)])].sort();
    if (keys.length === 0) rows.push({ field: 'auditAnnotations', expected: none, actual: none, ok: true });
    for (const k of keys) {
      const e = ownValue(expect.auditAnnotations, k);
      const a = ownValue(answer.auditAnnotations, k);
      rows.push({ field: `auditAnnotations.${k}`, expected: e === undefined ? none : describeMatcher(e), actual: a === undefined ? none : JSON.stringify(a), ok: e !== undefined && matches(e, a) });
    }
  }
  if (expect.patched !== undefined) rows.push({ field: 'patched', expected: String(expect.patched), actual: String(answer.patched), ok: expect.patched === answer.patched });
  if (expect.object !== undefined) {
    if (answer.object === null) {
      rows.push({ field: 'object', expected: show(expect.object), actual: answer.allowed ? '(no object)' : '(denied: no object)', ok: false });
    } else {
      const diffs: Row[] = [];
      subsetRows('object', expect.object, answer.object, diffs);
      rows.push(...(diffs.length === 0 ? [{ field: 'object', expected: '(subset)', actual: 'matches', ok: true }] : diffs));
    }
  }
  return rows;
}
