// Webhook client URL and service checks (k8s.io/apiserver/pkg/util/webhook/validation.go, v0.36) on top of a port
// of Go's net/url.Parse. The WHATWG URL class accepts and normalises differently (it lower-cases hosts, fills in
// paths, rejects some inputs Go accepts), so the Go parsing rules and error texts are reproduced here.
import { invalid, required } from './field-error.js';
import type { FieldError, Path } from './field-error.js';
import { goQuote, utf8Bytes } from './go-format.js';
import { isDNS1123Subdomain } from './names.js';

type Encoding = 'path' | 'pathSegment' | 'host' | 'zone' | 'userPassword' | 'queryComponent' | 'fragment';

class UrlError extends Error {}

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

/** net/url unescape; throws UrlError with Go's message. */
function unescape(input: string, mode: Encoding): string {
  const s = utf8Bytes(input);
  let n = 0;
  let hasPlus = false;
  for (let i = 0; i < s.length;) {
    const c = s[i]!;
    if (c === ch('%')) {
      n++;
      if (i + 2 >= s.length || !isHex(s[i + 1]!) || !isHex(s[i + 2]!)) {
        const bad = decoder.decode(s.subarray(i, Math.min(i + 3, s.length)));
        throw new UrlError(`invalid URL escape ${goQuote(bad)}`);
      }
      const escaped = decoder.decode(s.subarray(i, i + 3));
      if (mode === 'host' && unhex(s[i + 1]!) < 8 && escaped !== '%25') throw new UrlError(`invalid URL escape ${goQuote(escaped)}`);
      if (mode === 'zone') {
        const v = (unhex(s[i + 1]!) << 4) | unhex(s[i + 2]!);
        if (escaped !== '%25' && v !== 0x20 && shouldEscape(v, 'host')) throw new UrlError(`invalid URL escape ${goQuote(escaped)}`);
      }
      i += 3;
    } else if (c === ch('+')) {
      hasPlus = mode === 'queryComponent';
      i++;
    } else {
      if ((mode === 'host' || mode === 'zone') && c < 0x80 && shouldEscape(c, mode)) {
        throw new UrlError(`invalid character ${goQuote(String.fromCharCode(c))} in host name`);
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
function escape(input: string, mode: Encoding): string {
  let out = '';
  for (const c of utf8Bytes(input)) {
    if (c === 0x20 && mode === 'queryComponent') out += '+';
    else if (shouldEscape(c, mode)) out += `%${c.toString(16).toUpperCase().padStart(2, '0')}`;
    else out += String.fromCharCode(c);
  }
  // Only ASCII bytes are left unescaped, so the byte-per-char string is the Go string.
  return out;
}

interface Userinfo {
  username: string;
  password: string;
  passwordSet: boolean;
}

/** Userinfo.String() */
function userinfoString(u: Userinfo): string {
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
      if (i === 0) throw new UrlError('missing protocol scheme');
      return [rawURL.slice(0, i), rawURL.slice(i + 1)];
    }
    return ['', rawURL];
  }
  return ['', rawURL];
}

function validOptionalPort(port: string): boolean {
  if (port === '') return true;
  if (port[0] !== ':') return false;
  return /^[0-9]*$/.test(port.slice(1));
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${goQuote(colonPort)} after host`);
    const zone = host.slice(0, i).indexOf('%25');
    if (zone >= 0) {
      return unescape(host.slice(0, zone), 'host') + unescape(host.slice(zone, i), 'zone') + unescape(host.slice(i), 'host');
    }
  } else {
    const i = host.lastIndexOf(':');
    if (i !== -1) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${goQuote(colonPort)} after host`);
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
  if (!validUserinfo(userinfo)) throw new UrlError('net/url: invalid userinfo');
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

function parse(rawURL: string): GoURL {
  if (containsCTLByte(rawURL)) throw new UrlError('net/url: invalid control character in URL');
  const url: GoURL = { scheme: '', opaque: '', user: undefined, host: '', path: '', forceQuery: false, rawQuery: '', fragment: '' };
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
    const slash = rest.indexOf('/');
    const segment = slash >= 0 ? rest.slice(0, slash) : rest;
    if (segment.includes(':')) throw new UrlError('first path segment in URL cannot contain colon');
  }
  if ((url.scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
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
  return url;
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
    if (e instanceof UrlError) return { ok: false, error: `parse ${goQuote(u)}: ${e.message}` };
    throw e;
  }
  if (frag === '') return { ok: true, url };
  try {
    url.fragment = unescape(frag, 'fragment');
  } catch (e) {
    if (e instanceof UrlError) return { ok: false, error: `parse ${goQuote(rawURL)}: ${e.message}` };
    throw e;
  }
  return { ok: true, url };
}

/** webhook.ValidateWebhookURL(fldPath, URL, forceHttps=true) */
export function validateWebhookURL(fldPath: Path, rawURL: string): FieldError[] {
  const errs: FieldError[] = [];
  const form = '; desired format: https://host[/path]';
  const parsed = goParseURL(rawURL);
  if (!parsed.ok) {
    errs.push(required(fldPath, `url must be a valid URL: ${parsed.error}${form}`));
    return errs;
  }
  const u = parsed.url;
  if (u.scheme !== 'https') errs.push(invalid(fldPath, u.scheme, `'https' is the only allowed URL scheme${form}`));
  if (u.host.length === 0) errs.push(invalid(fldPath, u.host, `host must be specified${form}`));
  if (u.user !== undefined) errs.push(invalid(fldPath, userinfoString(u.user), 'user information is not permitted in the URL'));
  if (u.fragment.length !== 0) errs.push(invalid(fldPath, u.fragment, 'fragments are not permitted in the URL'));
  if (u.rawQuery.length !== 0) errs.push(invalid(fldPath, u.rawQuery, 'query parameters are not permitted in the URL'));
  return errs;
}

/** webhook.ValidateWebhookService(fldPath, namespace, name, path, port) */
export function validateWebhookService(
  fldPath: Path,
  namespace: string,
  name: string,
  path: string | null | undefined,
  port: number,
): FieldError[] {
  const errs: FieldError[] = [];
  if (name.length === 0) errs.push(required(fldPath.child('name'), ''));
  if (namespace.length === 0) errs.push(required(fldPath.child('namespace'), ''));
  if (!(port >= 1 && port <= 65535)) errs.push(invalid(fldPath.child('port'), port, 'port is not valid: must be between 1 and 65535, inclusive'));
  if (path === null || path === undefined) return errs;
  const urlPath = path;
  if (urlPath === '/' || urlPath.length === 0) return errs;
  if (urlPath === '//') {
    errs.push(invalid(fldPath.child('path'), urlPath, 'segment[0] may not be empty'));
    return errs;
  }
  if (!urlPath.startsWith('/')) errs.push(invalid(fldPath.child('path'), urlPath, "must start with a '/'"));
  // Go slices off the first byte unconditionally, even when it is not '/'.
  let toCheck = decoder.decode(utf8Bytes(urlPath).subarray(1));
  if (toCheck.endsWith('/')) toCheck = toCheck.slice(0, -1);
  toCheck.split('/').forEach((step, i) => {
    if (step.length === 0) {
      errs.push(invalid(fldPath.child('path'), urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of isDNS1123Subdomain(step)) errs.push(invalid(fldPath.child('path'), urlPath, `segment[${i}]: ${failure}`));
  });
  return errs;
}
