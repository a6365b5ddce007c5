// Webhook client URL and service checks (k8s.io/apiserver/pkg/util/webhook/validation.go, v0.36) on Go's
// net/url rules (lib/validation/go-url.ts).
import { invalid, required } from './field-error.js';
import type { FieldError, Path } from './field-error.js';
import { goParseURL, userinfoString } from '../../validation/go-url.js';
import { utf8Bytes } from '../../validation/go-format.js';

export { goParseURL } from '../../validation/go-url.js';
export type { GoURL } from '../../validation/go-url.js';
import { isDNS1123Subdomain } from './names.js';

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
  let toCheck = new TextDecoder().decode(utf8Bytes(urlPath).subarray(1));
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
