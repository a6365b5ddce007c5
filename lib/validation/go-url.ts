// A port of the parts of Go's net/url that Kubernetes validation and CEL's url library rely on (Parse,
// ParseRequestURI, EscapedPath, Hostname/Port, Query), with Go's error texts. The WHATWG URL class accepts and
// normalises differently (it lower-cases hosts, fills in paths, rejects some inputs Go accepts).

import { goQuote, utf8Bytes } from './go-format.js';

export type Encoding = 'path' | 'pathSegment' | 'host' | 'zone' | 'userPassword' | 'queryComponent' | 'fragment';

/** A net/url parse failure; the message is Go's reason without the `parse "…":` prefix. */
export class GoURLError extends Error {}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

function unhex(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return 0;
}

const ch = (s: string): number => s.charCodeAt(0);

/** net/url shouldEscape, for one byte. */
function shouldEscape(c: number, mode: Encoding): boolean {
  if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39)) return false;
  if (mode === 'host' || mode === 'zone') {
    if ("!$&'()*+,;=:[]<>\"".includes(String.fromCharCode(c))) return false;
  }
  if ('-_.~'.includes(String.fromCharCode(c))) return false;
  if ('$&+,/:;=?@'.includes(String.fromCharCode(c))) {
    switch (mode) {
      case 'path': return c === ch('?');
      case 'pathSegment': return c === ch('/') || c === ch(';') || c === ch(',') || c === ch('?');
      case 'userPassword': return c === ch('@') || c === ch('/') || c === ch('?') || c === ch(':');
      case 'queryComponent': return true;
      case 'fragment': return false;
      default: break;
    }
  }
  if (mode === 'fragment' && '!()*'.includes(String.fromCharCode(c))) return false;
  return true;
}

/** A Go string as bytes: the string's UTF-8 encoding. Decoding back replaces invalid sequences with U+FFFD. */
const decoder = new TextDecoder('utf-8', { fatal: false });

/** net/url unescape; throws GoURLError with Go's message. */
export function unescape(input: string, mode: Encoding): string {
  const s = utf8Bytes(input);
  let n = 0;
  let hasPlus = false;
  for (let i = 0; i < s.length;) {
    const c = s[i]!;
    if (c === ch('%')) {
      n++;
      if (i + 2 >= s.length || !isHex(s[i + 1]!) || !isHex(s[i + 2]!)) {
        const bad = decoder.decode(s.subarray(i, Math.min(i + 3, s.length)));
        throw new GoURLError(`invalid URL escape ${goQuote(bad)}`);
      }
      const escaped = decoder.decode(s.subarray(i, i + 3));
      if (mode === 'host' && unhex(s[i + 1]!) < 8 && escaped !== '%25') throw new GoURLError(`invalid URL escape ${goQuote(escaped)}`);
      if (mode === 'zone') {
        const v = (unhex(s[i + 1]!) << 4) | unhex(s[i + 2]!);
        if (escaped !== '%25' && v !== 0x20 && shouldEscape(v, 'host')) throw new GoURLError(`invalid URL escape ${goQuote(escaped)}`);
      }
      i += 3;
    } else if (c === ch('+')) {
      hasPlus = mode === 'queryComponent';
      i++;
    } else {
      if ((mode === 'host' || mode === 'zone') && c < 0x80 && shouldEscape(c, mode)) {
        throw new GoURLError(`invalid character ${goQuote(String.fromCharCode(c))} in host name`);
      }
      i++;
    }
  }
  if (n === 0 && !hasPlus) return input;
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === ch('%')) {
      out.push((unhex(s[i + 1]!) << 4) | unhex(s[i + 2]!));
      i += 2;
    } else if (c === ch('+')) {
      out.push(mode === 'queryComponent' ? 0x20 : c);
    } else {
      out.push(c);
    }
  }
  return decoder.decode(Uint8Array.from(out));
}

/** net/url escape */
export function escape(input: string, mode: Encoding): string {
  let out = '';
  for (const c of utf8Bytes(input)) {
    if (c === 0x20 && mode === 'queryComponent') out += '+';
    else if (shouldEscape(c, mode)) out += `%${c.toString(16).toUpperCase().padStart(2, '0')}`;
    else out += String.fromCharCode(c);
  }
  // Only ASCII bytes are left unescaped, so the byte-per-char string is the Go string.
  return out;
}

export interface Userinfo {
  username: string;
  password: string;
  passwordSet: boolean;
}

/** Userinfo.String() */
export function userinfoString(u: Userinfo): string {
  let s = escape(u.username, 'userPassword');
  if (u.passwordSet) s += `:${escape(u.password, 'userPassword')}`;
  return s;
}

export interface GoURL {
  scheme: string;
  opaque: string;
  user: Userinfo | undefined;
  host: string;
  path: string;
  /** the path as written when it is not the default escaping of `path` */
  rawPath: string;
  forceQuery: boolean;
  rawQuery: string;
  fragment: string;
}

function getScheme(rawURL: string): [string, string] {
  for (let i = 0; i < rawURL.length; i++) {
    const c = rawURL.charCodeAt(i);
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) continue;
    if ((c >= 0x30 && c <= 0x39) || c === ch('+') || c === ch('-') || c === ch('.')) {
      if (i === 0) return ['', rawURL];
      continue;
    }
    if (c === ch(':')) {
      if (i === 0) throw new GoURLError('missing protocol scheme');
      return [rawURL.slice(0, i), rawURL.slice(i + 1)];
    }
    return ['', rawURL];
  }
  return ['', rawURL];
}

export function validOptionalPort(port: string): boolean {
  if (port === '') return true;
  if (port[0] !== ':') return false;
  return /^[0-9]*$/.test(port.slice(1));
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new GoURLError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new GoURLError(`invalid port ${goQuote(colonPort)} after host`);
    const zone = host.slice(0, i).indexOf('%25');
    if (zone >= 0) {
      return unescape(host.slice(0, zone), 'host') + unescape(host.slice(zone, i), 'zone') + unescape(host.slice(i), 'host');
    }
  } else {
    const i = host.lastIndexOf(':');
    if (i !== -1) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort)) throw new GoURLError(`invalid port ${goQuote(colonPort)} after host`);
    }
  }
  return unescape(host, 'host');
}

function validUserinfo(s: string): boolean {
  return /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(s);
}

function parseAuthority(authority: string): { user: Userinfo | undefined; host: string } {
  const i = authority.lastIndexOf('@');
  const host = parseHost(i < 0 ? authority : authority.slice(i + 1));
  if (i < 0) return { user: undefined, host };
  const userinfo = authority.slice(0, i);
  if (!validUserinfo(userinfo)) throw new GoURLError('net/url: invalid userinfo');
  const colon = userinfo.indexOf(':');
  if (colon < 0) return { user: { username: unescape(userinfo, 'userPassword'), password: '', passwordSet: false }, host };
  return {
    user: {
      username: unescape(userinfo.slice(0, colon), 'userPassword'),
      password: unescape(userinfo.slice(colon + 1), 'userPassword'),
      passwordSet: true,
    },
    host,
  };
}

function containsCTLByte(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** net/url parse(rawURL, viaRequest): without the fragment; viaRequest is ParseRequestURI's stricter mode. */
export function parse(rawURL: string, viaRequest = false): GoURL {
  if (containsCTLByte(rawURL)) throw new GoURLError('net/url: invalid control character in URL');
  if (rawURL === '' && viaRequest) throw new GoURLError('empty url');
  const url: GoURL = { scheme: '', opaque: '', user: undefined, host: '', path: '', rawPath: '', forceQuery: false, rawQuery: '', fragment: '' };
  if (rawURL === '*') {
    url.path = '*';
    return url;
  }
  let [scheme, rest] = getScheme(rawURL);
  url.scheme = scheme.toLowerCase();
  if (rest.endsWith('?') && rest.split('?').length === 2) {
    url.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
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
    if (viaRequest) throw new GoURLError('invalid URI for request');
    const slash = rest.indexOf('/');
    const segment = slash >= 0 ? rest.slice(0, slash) : rest;
    if (segment.includes(':')) throw new GoURLError('first path segment in URL cannot contain colon');
  }
  if ((url.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const i = authority.indexOf('/');
    if (i >= 0) {
      rest = authority.slice(i);
      authority = authority.slice(0, i);
    }
    const parsed = parseAuthority(authority);
    url.user = parsed.user;
    url.host = parsed.host;
  }
  url.path = unescape(rest, 'path');
  url.rawPath = escape(url.path, 'path') === rest ? '' : rest;
  return url;
}


/** net/url validEncoded(s, encodePath) */
function validEncodedPath(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ("!$&'()*+,;=:@[]%".includes(s[i]!)) continue;
    if (c >= 0x80 || shouldEscape(c, 'path')) return false;
  }
  return true;
}

/** URL.EscapedPath */
export function escapedPath(url: GoURL): string {
  if (url.rawPath !== '' && validEncodedPath(url.rawPath)) {
    try {
      if (unescape(url.rawPath, 'path') === url.path) return url.rawPath;
    } catch {
      // fall through to escaping the path
    }
  }
  if (url.path === '*') return '*';
  return escape(url.path, 'path');
}

/** Go's url.Parse: the parsed URL, or the *url.Error text ("parse \"<url>\": <reason>"). */
export function goParseURL(rawURL: string): { ok: true; url: GoURL } | { ok: false; error: string } {
  const hash = rawURL.indexOf('#');
  const u = hash >= 0 ? rawURL.slice(0, hash) : rawURL;
  const frag = hash >= 0 ? rawURL.slice(hash + 1) : '';
  let url: GoURL;
  try {
    url = parse(u);
  } catch (e) {
    if (e instanceof GoURLError) return { ok: false, error: `parse ${goQuote(u)}: ${e.message}` };
    throw e;
  }
  if (frag === '') return { ok: true, url };
  try {
    url.fragment = unescape(frag, 'fragment');
  } catch (e) {
    if (e instanceof GoURLError) return { ok: false, error: `parse ${goQuote(rawURL)}: ${e.message}` };
    throw e;
  }
  return { ok: true, url };
}

/** url.ParseRequestURI's error text, or undefined when the URI is valid. */
export function requestURIError(raw: string): string | undefined {
  try {
    parse(raw, true);
    return undefined;
  } catch (error) {
    if (error instanceof GoURLError) return `parse ${goQuote(raw)}: ${error.message}`;
    throw error;
  }
}

/** URL.Hostname / URL.Port: the host split at its port, brackets of an IPv6 literal removed. */
export function splitHostPort(hostPort: string): [string, string] {
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

/** url.ParseQuery, skipping malformed pairs as URL.Query() does. */
export function parseQuery(raw: string): Map<string, string[]> {
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
      if (!(error instanceof GoURLError)) throw error;
    }
  }
  return out;
}
