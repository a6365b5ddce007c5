// namespaceSelector, under this daemon's namespace-label rule (DESIGN.md "Namespace labels").
//
// Upstream: S/admission/plugin/webhook/predicates/namespace/matcher.go (MatchNamespaceSelector,
// GetNamespaceLabels). There, a cluster-scoped request (no namespace) that is not on a Namespace always matches; an
// empty selector matches; otherwise the namespace's labels come from the request's object when it creates or
// updates a Namespace, else from the namespace informer (falling back to a live GET).
//
// This daemon has no API access, so:
//   - a request on a Namespace itself is judged by that Namespace's own labels: `object` on CREATE/UPDATE of the
//     namespace, else (DELETE, subresources such as namespaces/status) `oldObject`, which is the stored namespace
//     upstream's informer would have returned;
//   - any other namespaced request knows its namespace only by the label the apiserver puts on every namespace,
//     kubernetes.io/metadata.name = request.namespace. Requirements on that label are decided with it. If one of
//     them fails, the selector (an AND) fails whatever the other labels are: no match. If they all hold and the
//     selector also reads another label, the match cannot be decided: an Undecidable carrying a message, for the
//     caller's failure policy.
import type { AdmissionRequest } from '../../api/admission.js';
import type { LabelSelector } from '../../api/types.js';
import { compileLabelSelector, SelectorError } from '../../manifest/selector.js';
import type { LabelMatcher } from '../../manifest/selector.js';
import { match, noMatch, undecidable } from './decision.js';
import type { Decision, Undecidable } from './decision.js';
import { isEmptySelector, labelsOf } from './object-selector.js';
import { requestView } from './request-view.js';
import type { RequestView } from './request-view.js';

/** Set by the apiserver on every namespace to the namespace's name, and immutable. */
export const namespaceNameLabel = 'kubernetes.io/metadata.name';

type NameCheck = (namespaceName: string) => boolean;

export interface CompiledNamespaceSelector {
  readonly empty: boolean;
  /** the whole selector, for a Namespace's own labels */
  readonly matcher: LabelMatcher;
  /** the requirements on kubernetes.io/metadata.name, each over the namespace name */
  readonly nameChecks: readonly NameCheck[];
  /** the other label keys the selector reads, sorted (empty: decidable from the name alone) */
  readonly otherKeys: readonly string[];
  /** the answer when only otherKeys could decide; null when otherKeys is empty */
  readonly undecidable: Undecidable | null;
}

const always: NameCheck = () => true;
const never: NameCheck = () => false;

function nameCheck(operator: string | undefined, values: readonly string[]): NameCheck {
  switch (operator) {
    case 'In': {
      const set = new Set(values);
      return (name) => set.has(name);
    }
    case 'NotIn': {
      const set = new Set(values);
      return (name) => !set.has(name);
    }
    case 'Exists':
      return always; // every namespace has the label
    case 'DoesNotExist':
      return never;
    default:
      throw new SelectorError(`"${operator ?? ''}" is not a valid label selector operator`);
  }
}

/**
 * Compiles a namespaceSelector once per snapshot. `subject` names its owner in the undecidable message
 * (`webhook "x"`, `ValidatingAdmissionPolicy "p"`); `matcher` reuses one parsed at load. Throws SelectorError for an
 * invalid selector.
 */
export function compileNamespaceSelector(selector: LabelSelector | null | undefined, subject: string, matcher?: LabelMatcher): CompiledNamespaceSelector {
  const full = matcher ?? compileLabelSelector(selector);
  const nameChecks: NameCheck[] = [];
  const otherKeys = new Set<string>();
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {})) {
    if (key === namespaceNameLabel) nameChecks.push((name) => name === value);
    else otherKeys.add(key);
  }
  for (const requirement of selector?.matchExpressions ?? []) {
    const key = requirement.key ?? '';
    if (key === namespaceNameLabel) {
      const check = nameCheck(requirement.operator, requirement.values ?? []);
      if (check !== always) nameChecks.push(check);
    } else {
      otherKeys.add(key);
    }
  }
  const keys = [...otherKeys].sort();
  return Object.freeze({
    empty: isEmptySelector(selector),
    matcher: full,
    nameChecks: Object.freeze(nameChecks),
    otherKeys: Object.freeze(keys),
    undecidable: keys.length === 0
      ? null
      : undecidable(`namespace selector of ${subject} requires namespace labels other than ${namespaceNameLabel} (${keys.map((k) => JSON.stringify(k)).join(', ')}), which static-admissiond cannot see`),
  });
}

function byName(compiled: CompiledNamespaceSelector, namespaceName: string): boolean | Undecidable {
  const checks = compiled.nameChecks;
  for (let i = 0; i < checks.length; i++) if (!checks[i]!(namespaceName)) return false;
  return compiled.undecidable ?? true;
}

/** The predicate on a request's view; `request` is read for a Namespace's own labels. */
export function evaluateNamespaceSelector(compiled: CompiledNamespaceSelector, view: RequestView, request: AdmissionRequest): boolean | Undecidable {
  if (view.namespaceObject) {
    if (compiled.empty) return true;
    const op = view.operation;
    const own = (op === 'CREATE' || op === 'UPDATE') && view.original.subResource === '' ? request.object : request.oldObject;
    const labels = labelsOf(own);
    if (labels !== undefined) return compiled.matcher(labels ?? undefined);
    // no Namespace object in the request: fall back to what its name tells
    return byName(compiled, view.name !== '' ? view.name : view.namespace);
  }
  // cluster-scoped: namespaceSelector does not apply
  if (view.namespace === '') return true;
  if (compiled.empty) return true;
  return byName(compiled, view.namespace);
}

export function matchNamespaceSelector(compiled: CompiledNamespaceSelector, request: AdmissionRequest): Decision {
  const result = evaluateNamespaceSelector(compiled, requestView(request), request);
  return result === true ? match : result === false ? noMatch : result;
}
