// Field-level validation errors, rendered exactly like k8s.io/apimachinery/pkg/util/validation/field (v0.36):
// Error.Error() is "<field>: <ErrorBody()>" and ErrorList.ToAggregate().Error() joins them as "[a, b]".
import { goJsonMarshal, goQuote } from '../../validation/go-format.js';

export type FieldErrorType =
  | 'Required value'
  | 'Invalid value'
  | 'Unsupported value'
  | 'Duplicate value'
  | 'Forbidden'
  | 'Too long'
  | 'Too many'
  | 'Not found'
  | 'Internal error';

/** The bad value is not printed (field's omitValue, used by TooMany with a negative count). */
export const OMIT_VALUE: unique symbol = Symbol('omitValue');

/**
 * A value whose Go type is a named string type (OperationType, FailurePolicyType, ValidationAction, …).
 * apimachinery prints plain Go strings with %q but everything else, named string types included, with
 * json.Marshal; the two differ for characters such as '<', '&' or non-printable runes.
 */
export class Named {
  constructor(readonly value: string) {}
  toJSON(): string {
    return this.value;
  }
  toString(): string {
    return this.value;
  }
}

/** field.Path: "spec.matchConstraints.resourceRules[0].operations". */
export class Path {
  readonly #text: string;

  private constructor(text: string) {
    this.#text = text;
  }

  /** field.NewPath(name, moreNames...) */
  static of(name: string, ...more: string[]): Path {
    return new Path([name, ...more].join('.'));
  }

  /** Path.Child(name, moreNames...) */
  child(name: string, ...more: string[]): Path {
    const names = [name, ...more].join('.');
    return new Path(this.#text === '' ? names : `${this.#text}.${names}`);
  }

  /** Path.Index(i) */
  index(i: number): Path {
    return new Path(`${this.#text}[${i}]`);
  }

  /** Path.Key(k) */
  key(k: string): Path {
    return new Path(`${this.#text}[${k}]`);
  }

  toString(): string {
    return this.#text;
  }
}

export type PathLike = string | Path;

function renderValue(value: unknown): string {
  switch (typeof value) {
    case 'string': return goQuote(value);
    case 'number': return Number.isInteger(value) ? String(value) : goJsonMarshal(value);
    case 'boolean': return String(value);
    default: return goJsonMarshal(value);
  }
}

export class FieldError {
  readonly type: FieldErrorType;
  readonly field: string;
  readonly value: unknown;
  readonly detail: string;

  constructor(type: FieldErrorType, field: PathLike, value: unknown, detail: string) {
    this.type = type;
    this.field = String(field);
    this.value = value;
    this.detail = detail;
  }

  /** field.Error.ErrorBody() */
  body(): string {
    let s: string;
    switch (this.type) {
      case 'Required value':
      case 'Forbidden':
      case 'Too long':
      case 'Internal error':
        s = this.type;
        break;
      default:
        s = this.value === OMIT_VALUE ? this.type : `${this.type}: ${renderValue(this.value)}`;
        break;
    }
    return this.detail.length !== 0 ? `${s}: ${this.detail}` : s;
  }

  /** field.Error.Error() */
  toString(): string {
    return `${this.field}: ${this.body()}`;
  }
}

/** field.Required */
export function required(field: PathLike, detail: string): FieldError {
  return new FieldError('Required value', field, '', detail);
}

/** field.Invalid */
export function invalid(field: PathLike, value: unknown, detail: string): FieldError {
  return new FieldError('Invalid value', field, value, detail);
}

/** field.NotSupported: the valid values are quoted with strconv.Quote, in the order given. */
export function notSupported(field: PathLike, value: unknown, validValues: readonly string[]): FieldError {
  const detail = validValues.length > 0 ? `supported values: ${validValues.map(goQuote).join(', ')}` : '';
  return new FieldError('Unsupported value', field, value, detail);
}

/** field.Duplicate */
export function duplicate(field: PathLike, value: unknown): FieldError {
  return new FieldError('Duplicate value', field, value, '');
}

/** field.Forbidden */
export function forbidden(field: PathLike, detail: string): FieldError {
  return new FieldError('Forbidden', field, '', detail);
}

/** field.TooLong (the value is never printed). */
export function tooLong(field: PathLike, maxLength: number): FieldError {
  let detail: string;
  if (maxLength >= 0) detail = `may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}`;
  else detail = 'value is too long';
  return new FieldError('Too long', field, '<value omitted>', detail);
}

/** field.TooMany */
export function tooMany(field: PathLike, actualQuantity: number, maxQuantity: number): FieldError {
  let detail: string;
  if (maxQuantity >= 0) detail = `must have at most ${maxQuantity} ${maxQuantity === 1 ? 'item' : 'items'}`;
  else detail = 'has too many items';
  return new FieldError('Too many', field, actualQuantity >= 0 ? actualQuantity : OMIT_VALUE, detail);
}

/** field.NotFound */
export function notFound(field: PathLike, value: unknown): FieldError {
  return new FieldError('Not found', field, value, '');
}

/** field.InternalError (detail is err.Error()). */
export function internalError(field: PathLike, detail: string): FieldError {
  return new FieldError('Internal error', field, null, detail);
}

/**
 * errs.ToAggregate().Error(): messages repeated in the list are dropped; one message is returned as-is, several
 * as "[a, b, c]". An empty list gives "" (upstream has no aggregate at all then).
 */
export function aggregate(errors: readonly FieldError[]): string {
  const seen = new Set<string>();
  const messages: string[] = [];
  for (const e of errors) {
    const msg = e.toString();
    if (seen.has(msg)) continue;
    seen.add(msg);
    messages.push(msg);
  }
  if (messages.length === 0) return '';
  if (messages.length === 1) return messages[0]!;
  return `[${messages.join(', ')}]`;
}
