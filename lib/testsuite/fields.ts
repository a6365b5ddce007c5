// Strict reading of a suite's plain data: every field known, every value of its type, errors worded as kube's field
// errors (`cases[2].expect.allowed: Required value`, `strict decoding error: unknown field "cases[0].alowed"`) and
// naming the file.
import type { JsonObject, JsonValue } from '../manifest/document.js';
import { setOwn } from '../json/own.js';

/** A suite that cannot run: the file, and what is wrong with it. */
export class SuiteError extends Error {
  readonly file: string;
  constructor(file: string, message: string) {
    super(`${file}: ${message}`);
    this.name = 'SuiteError';
    this.file = file;
  }
}

export function typeName(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

export function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

/** Reads the fields of one object of the suite, refusing any it does not know. */
export class FieldReader {
  readonly file: string;
  readonly path: string;
  readonly obj: JsonObject;

  constructor(file: string, path: string, value: JsonValue | undefined, allowed: readonly string[]) {
    this.file = file;
    this.path = path;
    if (!isObject(value)) throw this.error(`${path === '' ? '<root>' : path}: Invalid value: ${typeName(value)}: must be an object`);
    const unknown = Object.keys(value).filter((k) => !allowed.includes(k));
    if (unknown.length > 0) throw this.error(`strict decoding error: ${unknown.map((k) => `unknown field "${join(path, k)}"`).join(', ')}`);
    this.obj = value;
  }

  error(message: string): SuiteError {
    return new SuiteError(this.file, message);
  }

  at(key: string): string {
    return join(this.path, key);
  }

  has(key: string): boolean {
    return this.obj[key] !== undefined && this.obj[key] !== null;
  }

  raw(key: string): JsonValue | undefined {
    const v = this.obj[key];
    return v === null ? undefined : v;
  }

  required(key: string): JsonValue {
    const v = this.raw(key);
    if (v === undefined) throw this.error(`${this.at(key)}: Required value`);
    return v;
  }

  string(key: string): string | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw this.error(`${this.at(key)}: Invalid value: ${typeName(v)}: must be a string`);
    return v;
  }

  requiredString(key: string): string {
    const v = this.string(key);
    if (v === undefined || v === '') throw this.error(`${this.at(key)}: Required value`);
    return v;
  }

  boolean(key: string): boolean | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (typeof v !== 'boolean') throw this.error(`${this.at(key)}: Invalid value: ${typeName(v)}: must be a boolean`);
    return v;
  }

  integer(key: string): number | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v)) throw this.error(`${this.at(key)}: Invalid value: ${typeName(v)}: must be an integer`);
    return v;
  }

  oneOf<T extends string>(key: string, values: readonly T[]): T | undefined {
    const v = this.string(key);
    if (v === undefined) return undefined;
    if (!(values as readonly string[]).includes(v)) {
      throw this.error(`${this.at(key)}: Unsupported value: ${JSON.stringify(v)}: supported values: ${values.map((x) => JSON.stringify(x)).join(', ')}`);
    }
    return v as T;
  }

  object(key: string): JsonObject | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (!isObject(v)) throw this.error(`${this.at(key)}: Invalid value: ${typeName(v)}: must be an object`);
    return v;
  }

  list(key: string): JsonValue[] | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) throw this.error(`${this.at(key)}: Invalid value: ${typeName(v)}: must be a list`);
    return v;
  }

  stringList(key: string): string[] | undefined {
    const list = this.list(key);
    if (list === undefined) return undefined;
    return list.map((item, i) => {
      if (typeof item !== 'string') throw this.error(`${this.at(key)}[${i}]: Invalid value: ${typeName(item)}: must be a string`);
      return item;
    });
  }

  stringMap(key: string): Record<string, string> | undefined {
    const obj = this.object(key);
    if (obj === undefined) return undefined;
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(obj)) {
      if (typeof v !== 'string') throw this.error(`${this.at(key)}.${k}: Invalid value: ${typeName(v)}: must be a string`);
      setOwn(out, k, v);
    }
    return out;
  }

  /** A field that is itself an object with known fields. */
  child(key: string, allowed: readonly string[]): FieldReader | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    return new FieldReader(this.file, this.at(key), v, allowed);
  }
}
