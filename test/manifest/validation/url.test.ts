import { describe, it } from 'node:test';
import { Path } from '../../../lib/manifest/validation/index.js';
import { validateWebhookService, validateWebhookURL } from '../../../lib/manifest/validation/url.js';
import { assertErrors, DNS1123_SUBDOMAIN_MSG, URL_FORM } from './helpers.js';

const P = 'webhooks[0].clientConfig.url';
const path = Path.of('webhooks').index(0).child('clientConfig').child('url');
const parseError = (detail: string): string => `${P}: Required value: url must be a valid URL: ${detail}${URL_FORM}`;

describe('validateWebhookURL (Go net/url.Parse semantics)', () => {
  const cases: ReadonlyArray<{ url: string; expected: readonly string[] }> = [
    { url: 'https://webhook.example.com/validate', expected: [] },
    { url: 'https://10.0.0.1:8443', expected: [] },
    { url: 'https://[::1]:8443/x', expected: [] },
    { url: 'https://[fe80::1%25en0]/x', expected: [] },
    { url: 'HTTPS://Webhook.Example.com/', expected: [] },
    { url: 'https://webhook.example.com/?', expected: [] },
    { url: 'https://webhook.example.com/a%20b', expected: [] },
    { url: '', expected: [
      `${P}: Invalid value: "": 'https' is the only allowed URL scheme${URL_FORM}`,
      `${P}: Invalid value: "": host must be specified${URL_FORM}`,
    ] },
    { url: 'webhook.example.com/x', expected: [
      `${P}: Invalid value: "": 'https' is the only allowed URL scheme${URL_FORM}`,
      `${P}: Invalid value: "": host must be specified${URL_FORM}`,
    ] },
    { url: 'ftp://webhook.example.com', expected: [`${P}: Invalid value: "ftp": 'https' is the only allowed URL scheme${URL_FORM}`] },
    { url: 'https:opaque', expected: [`${P}: Invalid value: "": host must be specified${URL_FORM}`] },
    { url: 'https://user@webhook.example.com/', expected: [`${P}: Invalid value: "user": user information is not permitted in the URL`] },
    { url: 'https://us%40er:p%3Ass@h.example.com/', expected: [`${P}: Invalid value: "us%40er:p%3Ass": user information is not permitted in the URL`] },
    { url: 'https://h.example.com/#a%20b', expected: [`${P}: Invalid value: "a b": fragments are not permitted in the URL`] },
    { url: 'http://h.example.com/?q=1#f', expected: [
      `${P}: Invalid value: "http": 'https' is the only allowed URL scheme${URL_FORM}`,
      `${P}: Invalid value: "f": fragments are not permitted in the URL`,
      `${P}: Invalid value: "q=1": query parameters are not permitted in the URL`,
    ] },
    { url: ':8443/x', expected: [parseError('parse ":8443/x": missing protocol scheme')] },
    { url: 'https://h.example.com/%zz', expected: [parseError('parse "https://h.example.com/%zz": invalid URL escape "%zz"')] },
    { url: 'https://h.example.com/%4', expected: [parseError('parse "https://h.example.com/%4": invalid URL escape "%4"')] },
    { url: 'https://h.example.com/#%zz', expected: [parseError('parse "https://h.example.com/#%zz": invalid URL escape "%zz"')] },
    { url: 'https://a b.example.com/', expected: [parseError('parse "https://a b.example.com/": invalid character " " in host name')] },
    { url: 'https://[::1/', expected: [parseError('parse "https://[::1/": missing \']\' in host')] },
    { url: 'https://[::1]x/', expected: [parseError('parse "https://[::1]x/": invalid port "x" after host')] },
    { url: 'https://h.example.com:443x/', expected: [parseError('parse "https://h.example.com:443x/": invalid port ":443x" after host')] },
    { url: 'https://u<ser@h.example.com/', expected: [parseError('parse "https://u<ser@h.example.com/": net/url: invalid userinfo')] },
    { url: 'https://h.example.com/\tx', expected: [parseError('parse "https://h.example.com/\\tx": net/url: invalid control character in URL')] },
    { url: 'a:b/c', expected: [
      `${P}: Invalid value: "a": 'https' is the only allowed URL scheme${URL_FORM}`,
      `${P}: Invalid value: "": host must be specified${URL_FORM}`,
    ] },
    { url: '1a:b/c', expected: [parseError('parse "1a:b/c": first path segment in URL cannot contain colon')] },
  ];
  for (const c of cases) {
    it(JSON.stringify(c.url), () => assertErrors(validateWebhookURL(path, c.url), c.expected));
  }
});

describe('validateWebhookService', () => {
  const S = 'webhooks[0].clientConfig.service';
  const svc = Path.of('webhooks').index(0).child('clientConfig').child('service');
  const cases: ReadonlyArray<{ name: string; args: [string, string, string | undefined, number]; expected: readonly string[] }> = [
    { name: 'valid', args: ['ns', 'svc', '/validate/pods', 443], expected: [] },
    { name: 'root path', args: ['ns', 'svc', '/', 443], expected: [] },
    { name: 'name and namespace required', args: ['', '', undefined, 443], expected: [`${S}.name: Required value`, `${S}.namespace: Required value`] },
    { name: 'port out of range', args: ['ns', 'svc', undefined, 65536], expected: [`${S}.port: Invalid value: 65536: port is not valid: must be between 1 and 65535, inclusive`] },
    { name: 'double slash', args: ['ns', 'svc', '//', 443], expected: [`${S}.path: Invalid value: "//": segment[0] may not be empty`] },
    { name: 'relative path', args: ['ns', 'svc', 'a/b', 443], expected: [
      `${S}.path: Invalid value: "a/b": must start with a '/'`,
      `${S}.path: Invalid value: "a/b": segment[0] may not be empty`,
    ] },
    { name: 'empty and invalid segments', args: ['ns', 'svc', '/a//B/', 443], expected: [
      `${S}.path: Invalid value: "/a//B/": segment[1] may not be empty`,
      `${S}.path: Invalid value: "/a//B/": segment[2]: ${DNS1123_SUBDOMAIN_MSG}`,
    ] },
  ];
  for (const c of cases) {
    it(c.name, () => assertErrors(validateWebhookService(svc, c.args[0], c.args[1], c.args[2], c.args[3]), c.expected));
  }
});
