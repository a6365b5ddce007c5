// Kubernetes library.URLs: url(), isURL() and the URL getters, on the shared port of Go's net/url
// (lib/validation/go-url.ts: ParseRequestURI to validate, Parse to build, EscapedPath, Hostname, Port, Query).

import { arity, defineGlobal, defineMember, stringArg } from '../functions.js';
import { CelObject, celError, celType, noSuchOverload, setOwn } from '../values.js';
import { escapedPath, goParseURL, parseQuery, requestURIError, splitHostPort } from '../../../validation/go-url.js';
import type { GoURL } from '../../../validation/go-url.js';

const URL_TYPE = celType('kubernetes.URL');

export class URLValue extends CelObject {
  readonly celType = URL_TYPE;
  constructor(
    readonly raw: string,
    readonly url: GoURL,
  ) {
    super();
  }
  equals(other: CelObject): boolean {
    return other instanceof URLValue && other.raw === this.raw;
  }
  toCelString(): string {
    return this.raw;
  }
  escapedPath(): string {
    return escapedPath(this.url);
  }
}

function toURL(raw: string): URLValue {
  const error = requestURIError(raw);
  if (error !== undefined) throw celError(`URL parse error during conversion from string: ${error}`);
  const parsed = goParseURL(raw);
  if (!parsed.ok) throw celError(`URL parse error during conversion from string: ${parsed.error}`);
  return new URLValue(raw, parsed.url);
}

function urlOf(v: unknown, fn: string): URLValue {
  if (v instanceof URLValue) return v;
  throw noSuchOverload(fn, v);
}

const isURLValue = (v: unknown): boolean => v instanceof URLValue;

defineGlobal('url', (args) => (arity('url', args, 1), toURL(stringArg('url', args, 0))));
defineGlobal('isURL', (args) => (arity('isURL', args, 1), requestURIError(stringArg('isURL', args, 0)) === undefined));
defineMember('getScheme', (args) => (arity('getScheme', args, 1), urlOf(args[0], 'getScheme').url.scheme), isURLValue);
defineMember('getHost', (args) => (arity('getHost', args, 1), urlOf(args[0], 'getHost').url.host), isURLValue);
defineMember('getHostname', (args) => (arity('getHostname', args, 1), splitHostPort(urlOf(args[0], 'getHostname').url.host)[0]), isURLValue);
defineMember('getPort', (args) => (arity('getPort', args, 1), splitHostPort(urlOf(args[0], 'getPort').url.host)[1]), isURLValue);
defineMember('getEscapedPath', (args) => (arity('getEscapedPath', args, 1), urlOf(args[0], 'getEscapedPath').escapedPath()), isURLValue);
defineMember(
  'getQuery',
  (args) => {
    arity('getQuery', args, 1);
    const out: Record<string, unknown> = {};
    for (const [k, v] of parseQuery(urlOf(args[0], 'getQuery').url.rawQuery)) setOwn(out, k, v);
    return out;
  },
  isURLValue,
);
