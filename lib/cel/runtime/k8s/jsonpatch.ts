// Kubernetes library.JSONPatch: jsonpatch.escapeKey(string), for MutatingAdmissionPolicy JSONPatch paths.

import { arity, defineGlobal, stringArg } from '../functions.js';

/** RFC 6901 escaping of `~` and `/` in one pass. */
export function escapeKey(key: string): string {
  let escaped = '';
  for (const c of key) escaped += c === '~' ? '~0' : c === '/' ? '~1' : c;
  return escaped;
}

defineGlobal('jsonpatch.escapeKey', (args) => (arity('jsonpatch.escapeKey', args, 1), escapeKey(stringArg('jsonpatch.escapeKey', args, 0))));
