// Audit annotation keys as this daemon must answer them as a webhook. kube-apiserver records a webhook's key `k`
// as `<webhook name>/k` and drops it (with a warning per request) unless that is a qualified name with exactly one
// `/`: S/admission/plugin/webhook/validating/dispatcher.go and mutating/dispatcher.go add `h.Name + "/" + key`
// through S/admission/attributes.go AddAnnotation → checkKeyFormat (strings.Split on "/" must give 2 parts, then
// validation.IsQualifiedName). So `k` must be a qualified name's name part: at most 63 characters of
// [-A-Za-z0-9_.], starting and ending alphanumeric, and no `/`.
//
// In-tree, a policy's key is `<policy name>/<key>`; here it is answered as `<policy name>_<key>`, and when that is
// not a valid name part (a long policy name) as `<start of the policy name>_<key>-<10 hex digits of the SHA-256 of
// the original key>`, at most 63 characters: stable across restarts and nodes, distinct keys stay distinct.
import { createHash } from 'node:crypto';
import type { AdmissionPolicy } from '../manifest/load.js';
import { isQualifiedName } from '../validation/names.js';

const maxNamePart = 63;
const hashDigits = 10;

function validNamePart(key: string): boolean {
  return !key.includes('/') && isQualifiedName(key).length === 0;
}

/** The key this daemon answers for an in-tree audit annotation key (`<policy>/<key>`, `<webhook>/<key>`). */
export function webhookAnnotationKey(key: string): string {
  const joined = key.replaceAll('/', '_');
  if (validNamePart(joined)) return joined;
  const hash = createHash('sha256').update(key).digest('hex').slice(0, hashDigits);
  const budget = maxNamePart - hashDigits - 1;
  // keep the annotation's own key readable, and as much of the policy name as fits before it
  const slash = key.lastIndexOf('/');
  const own = clean(slash === -1 ? key : key.slice(slash + 1)).slice(0, budget);
  const owner = slash === -1 ? '' : clean(key.slice(0, slash)).slice(0, Math.max(0, budget - own.length - 1));
  const readable = trimEnds(owner === '' ? own : `${trimEnds(owner)}_${own}`);
  return readable === '' ? hash : `${readable}-${hash}`;
}

function clean(part: string): string {
  return part.replace(/[^-A-Za-z0-9_.]/g, '-');
}

function trimEnds(part: string): string {
  return part.replace(/^[^A-Za-z0-9]+/, '').replace(/[^A-Za-z0-9]+$/, '');
}

/** Whether the daemon answers `key` under another name than `<policy>_<key>`. */
export function isShortenedAnnotationKey(key: string): boolean {
  return webhookAnnotationKey(key) !== key.replaceAll('/', '_');
}

/** The policies' audit annotation keys (`<policy>/<key>`) answered under a shortened name, each with that name. */
export function shortenedPolicyAuditKeys(policies: readonly AdmissionPolicy[]): Array<[original: string, answered: string]> {
  const out: Array<[string, string]> = [];
  for (const policy of policies) {
    const spec = policy.spec as { auditAnnotations?: Array<{ key?: string }> } | undefined;
    for (const a of spec?.auditAnnotations ?? []) {
      const original = `${policy.metadata?.name ?? ''}/${a.key ?? ''}`;
      if (isShortenedAnnotationKey(original)) out.push([original, webhookAnnotationKey(original)]);
    }
  }
  return out;
}
