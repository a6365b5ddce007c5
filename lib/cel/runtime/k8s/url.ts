// Kubernetes library.URLs: url(), isURL() and the URL getters, on a port of the parts of Go's net/url they use
// (ParseRequestURI to validate, Parse to build, EscapedPath, Hostname, Port, Query), with Go's error texts.

import { arity, defineGlobal, defineMember, stringArg } from '../functions.js';
import { CelObject, celError, celType, noSuchOverload, setOwn } from '../values.js';

const URL_TYPE = celType('kubernetes.URL');

class UrlError extends Error {}

type Mode = 'path' | 'host' | 'zone' | 'userPassword' | 'queryComponent' | 'fragment';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

function isAlnum(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

function unhex(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  return c - 0x41 + 10;
}

/** net/url shouldEscape */
function shouldEscape(c: number, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  const ch = String.fromCharCode(c);
  if ((mode === 'host' || mode === 'zone') && "!$&'()*+,;=:[]<>\"".includes(ch)) return false;
  if ('-_.~'.includes(ch)) return false;
  if ('$&+,/:;=?@'.includes(ch)) {
    switch (mode) {
      case 'path':
        return ch === '?';
      case 'userPassword':
        return ch === '@' || ch === '/' || ch === '?' || ch === ':';
      case 'queryComponent':
        return true;
      case 'fragment':
        return false;
      default:
    }
  }
  if (mode === 'fragment' && '!()*'.includes(ch)) return false;
  return true;
}

function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** net/url unescape */
function unescape(s: string, mode: Mode): string {
  const bytes = encoder.encode(s);
  let needed = false;
  for (let i = 0; i < bytes.length; ) {
    const c = bytes[i]!;
    if (c === 0x25) {
      needed = true;
      if (i + 2 >= bytes.length || !isHex(bytes[i + 1]!) || !isHex(bytes[i + 2]!)) {
        throw new UrlError(`invalid URL escape ${goQuote(decoder.decode(bytes.subarray(i, Math.min(i + 3, bytes.length))))}`);
      }
      if (mode === 'host' && unhex(bytes[i + 1]!) < 8 && decoder.decode(bytes.subarray(i, i + 3)) !== '%25') {
        throw new UrlError(`invalid URL escape ${goQuote(decoder.decode(bytes.subarray(i, i + 3)))}`);
      }
      i += 3;
    } else {
      if (c === 0x2b) needed ||= mode === 'queryComponent';
      if ((mode === 'host' || mode === 'zone') && c < 0x80 && shouldEscape(c, mode)) {
        throw new UrlError(`invalid character ${goQuote(String.fromCharCode(c))} in host name`);
      }
      i++;
    }
  }
  if (!needed) return s;
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c === 0x25) {
      out.push((unhex(bytes[i + 1]!) << 4) | unhex(bytes[i + 2]!));
      i += 2;
    } else if (c === 0x2b && mode === 'queryComponent') out.push(0x20);
    else out.push(c);
  }
  return decoder.decode(Uint8Array.from(out));
}

/** net/url escape (path mode) */
function escapePath(s: string): string {
  let out = '';
  for (const c of encoder.encode(s)) out += shouldEscape(c, 'path') ? `%${c.toString(16).toUpperCase().padStart(2, '0')}` : String.fromCharCode(c);
  return out;
}

/** net/url validEncoded(s, encodePath) */
function validEncodedPath(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ("!$&'()*+,;=:@[]".includes(s[i]!) || c === 0x25) continue;
    if (c >= 0x80 || shouldEscape(c, 'path')) return false;
  }
  return true;
}

interface ParsedURL {
  scheme: string;
  opaque: string;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
  fragment: string;
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) continue;
    if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === 0x3a) {
      if (i === 0) throw new UrlError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

function validOptionalPort(port: string): boolean {
  return port === '' || (port.startsWith(':') && /^[0-9]*$/.test(port.slice(1)));
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${goQuote(colonPort)} after host`);
    const zone = host.slice(0, i).indexOf('%25');
    if (zone >= 0) return unescape(host.slice(0, zone), 'host') + unescape(host.slice(zone, i), 'zone') + unescape(host.slice(i), 'host');
  } else {
    const i = host.lastIndexOf(':');
    if (i !== -1 && !validOptionalPort(host.slice(i))) throw new UrlError(`invalid port ${goQuote(host.slice(i))} after host`);
  }
  return unescape(host, 'host');
}

function parseAuthority(authority: string): string {
  const at = authority.lastIndexOf('@');
  const host = parseHost(at < 0 ? authority : authority.slice(at + 1));
  if (at >= 0) {
    const userinfo = authority.slice(0, at);
    if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) throw new UrlError('net/url: invalid userinfo');
    const colon = userinfo.indexOf(':');
    unescape(colon < 0 ? userinfo : userinfo.slice(0, colon), 'userPassword');
    if (colon >= 0) unescape(userinfo.slice(colon + 1), 'userPassword');
  }
  return host;
}

/** net/url parse(rawURL, viaRequest) */
function parse(raw: string, viaRequest: boolean): ParsedURL {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) throw new UrlError('net/url: invalid control character in URL');
  }
  if (raw === '' && viaRequest) throw new UrlError('empty url');
  const url: ParsedURL = { scheme: '', opaque: '', host: '', path: '', rawPath: '', rawQuery: '', fragment: '' };
  if (raw === '*') {
    url.path = '*';
    return url;
  }
  let [scheme, rest] = getScheme(raw);
  url.scheme = scheme.toLowerCase();
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      url.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (url.scheme !== '') {
      url.opaque = rest;
      return url;
    }
    if (viaRequest) throw new UrlError('invalid URI for request');
    const slash = rest.indexOf('/');
    if ((slash >= 0 ? rest.slice(0, slash) : rest).includes(':')) throw new UrlError('first path segment in URL cannot contain colon');
  }
  if ((url.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const i = authority.indexOf('/');
    if (i >= 0) {
      rest = authority.slice(i);
      authority = authority.slice(0, i);
    }
    url.host = parseAuthority(authority);
  }
  url.path = unescape(rest, 'path');
  url.rawPath = escapePath(url.path) === rest ? '' : rest;
  return url;
}

/** url.ParseRequestURI's error, or undefined when valid. */
export function requestURIError(raw: string): string | undefined {
  try {
    parse(raw, true);
    return undefined;
  } catch (error) {
    if (error instanceof UrlError) return `parse ${goQuote(raw)}: ${error.message}`;
    throw error;
  }
}

/** url.Parse: splits off the fragment first. */
function parseURL(raw: string): ParsedURL {
  const hash = raw.indexOf('#');
  const url = parse(hash < 0 ? raw : raw.slice(0, hash), false);
  if (hash >= 0) url.fragment = unescape(raw.slice(hash + 1), 'fragment');
  return url;
}

function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = hostPort.lastIndexOf(':');
  if (colon !== -1 && validOptionalPort(hostPort.slice(colon))) {
    host = hostPort.slice(0, colon);
    port = hostPort.slice(colon + 1);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

/** url.ParseQuery, ignoring malformed pairs (as URL.Query() does). */
function parseQuery(raw: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of raw.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    try {
      const key = unescape(eq < 0 ? part : part.slice(0, eq), 'queryComponent');
      const value = unescape(eq < 0 ? '' : part.slice(eq + 1), 'queryComponent');
      const list = out.get(key);
      if (list === undefined) out.set(key, [value]);
      else list.push(value);
    } catch (error) {
      if (!(error instanceof UrlError)) throw error;
    }
  }
  return out;
}

export class URLValue extends CelObject {
  readonly celType = URL_TYPE;
  constructor(
    readonly raw: string,
    readonly url: ParsedURL,
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
    const u = this.url;
    if (u.rawPath !== '' && validEncodedPath(u.rawPath)) {
      try {
        if (unescape(u.rawPath, 'path') === u.path) return u.rawPath;
      } catch {
        // fall through to escaping the path
      }
    }
    if (u.path === '*') return '*';
    return escapePath(u.path);
  }
}

function toURL(raw: string): URLValue {
  const error = requestURIError(raw);
  if (error !== undefined) throw celError(`URL parse error during conversion from string: ${error}`);
  try {
    return new URLValue(raw, parseURL(raw));
  } catch (e) {
    if (e instanceof UrlError) throw celError(`URL parse error during conversion from string: parse ${goQuote(raw)}: ${e.message}`);
    throw e;
  }
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
