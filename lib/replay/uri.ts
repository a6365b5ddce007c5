// What an audited write's request URI (and a DELETE's body) tell about its AdmissionRequest: the query parameters
// the handlers decode into options (S/endpoints/handlers/create.go, update.go, patch.go: CreateOptions/UpdateOptions
// from the query, PatchOptions turned into them by patchToCreateOptions/patchToUpdateOptions keeping dryRun,
// fieldManager and fieldValidation; delete.go: DeleteOptions from the body when there is one, else the query), and a
// CONNECT's options object (PodExecOptions, …) as the parameter codec decodes it.
import { optionFields } from '../testsuite/request.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function query(uri: string): URLSearchParams {
  const q = uri.indexOf('?');
  return new URLSearchParams(q === -1 ? '' : uri.slice(q + 1));
}

/** Go's strconv.ParseBool true values, as the parameter codec converts query booleans. */
const isTrue = (v: string | null): boolean => v !== null && ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v);

export type OptionsOperation = keyof typeof optionFields;

export function optionsFromQuery(operation: OptionsOperation, q: URLSearchParams): Obj {
  const out: Obj = { kind: optionFields[operation].kind, apiVersion: 'meta.k8s.io/v1' };
  for (const field of optionFields[operation].fields) {
    if (field === 'dryRun') {
      const values = q.getAll('dryRun');
      if (values.length > 0) out.dryRun = values;
    } else if (field === 'gracePeriodSeconds') {
      const v = q.get(field);
      if (v !== null && /^-?\d+$/.test(v)) out[field] = Number(v);
    } else if (field === 'orphanDependents') {
      const v = q.get(field);
      if (v !== null) out[field] = isTrue(v);
    } else {
      const v = q.get(field);
      if (v !== null && v !== '') out[field] = v;
    }
  }
  return out;
}

/** A DELETE's options: its body when it had one (the requestObject), else the query (delete.go). */
export function deleteOptions(body: unknown, q: URLSearchParams): Obj {
  if (!isObj(body)) return optionsFromQuery('DELETE', q);
  const out: Obj = { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' };
  for (const field of optionFields.DELETE.fields) if (body[field] !== undefined && body[field] !== null) out[field] = body[field];
  return out;
}

/** The options object a CONNECT request carries, from the query as the parameter codec decodes it. */
export function connectOptions(kind: string, subresource: string, uri: string, q: URLSearchParams): Obj {
  const out: Obj = { kind, apiVersion: 'v1' };
  switch (kind) {
    case 'PodExecOptions':
    case 'PodAttachOptions':
      for (const f of ['stdin', 'stdout', 'stderr', 'tty']) if (isTrue(q.get(f))) out[f] = true;
      if (q.get('container')) out.container = q.get('container');
      if (kind === 'PodExecOptions') out.command = q.getAll('command');
      break;
    case 'PodPortForwardOptions': {
      const ports = q.getAll('ports').flatMap((p) => p.split(',')).filter((p) => /^\d+$/.test(p)).map(Number);
      if (ports.length > 0) out.ports = ports;
      break;
    }
    default: {
      // proxy: the path after /proxy in the URL (NewConnectOptions names "path" as the subpath parameter)
      const path = uri.split('?')[0]!;
      const at = path.indexOf(`/${subresource}`);
      const rest = at === -1 ? '' : path.slice(at + subresource.length + 1);
      const p = rest !== '' ? rest : q.get('path') ?? '';
      if (p !== '') out.path = p;
    }
  }
  return out;
}
