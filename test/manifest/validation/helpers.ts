// Shared fixtures for the REST validation tests: a stub CEL compiler (so structural rules are tested independently
// of lib/cel) and an assertion on the exact upstream error texts.
import assert from 'node:assert/strict';
import type { CompileRequest, CompileResult } from '../../../lib/cel/index.js';
import { aggregate } from '../../../lib/manifest/validation/index.js';
import type { ExpressionCompiler, FieldError } from '../../../lib/manifest/validation/index.js';

export const STUB_COMPILE_ERROR = 'compilation failed: ERROR: <input>:1:1: stub rejects expressions containing "!!bad"';

/** Accepts everything (construction syntax included) except expressions containing "!!bad"; records requests. */
export function stubCompiler(): ExpressionCompiler & { requests: CompileRequest[] } {
  const requests: CompileRequest[] = [];
  const compile = (request: CompileRequest): CompileResult => {
    requests.push(request);
    if (request.expression.includes('!!bad')) return { ok: false, message: STUB_COMPILE_ERROR };
    return { ok: true, compiled: {} } as unknown as CompileResult;
  };
  return Object.assign(compile, { requests });
}

/** errs.ToAggregate().Error() for the expected messages. */
export function expectedAggregate(expected: readonly string[]): string {
  const unique = [...new Set(expected)];
  if (unique.length === 0) return '';
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

export function assertErrors(errors: readonly FieldError[], expected: readonly string[]): void {
  assert.deepEqual(errors.map((e) => e.toString()), expected);
  assert.equal(aggregate(errors), expectedAggregate(expected));
}

export interface Case<T> {
  readonly name: string;
  readonly mutate: (obj: T) => void;
  readonly expected: readonly string[];
}

export function mutated<T>(base: () => T, mutate: (obj: T) => void): T {
  const obj = base();
  mutate(obj);
  return obj;
}

// Upstream message fragments used by many cases.
export const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
export const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
export const LABEL_KEY_NAME_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
export const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
export const URL_FORM = '; desired format: https://host[/path]';
