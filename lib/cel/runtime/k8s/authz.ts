// Kubernetes library.Authz and library.AuthzSelectors (k8s.io/apiserver pkg/cel/library/authz.go): the values of
// `authorizer` and `authorizer.requestResource`, the builder functions (path, group, serviceAccount, resource,
// subresource, namespace, name, fieldSelector, labelSelector), `check` and the Decision accessors. Errors and costs
// are upstream's (library/cost.go: `check` 350,000, the builders and accessors 1, a selector its parse estimate).
// `check` hands the attributes to the AuthorizationChecker bound with the values; what it returns is the decision,
// what it throws (AuthorizationPending, a CEL error) ends the evaluation.
import { AUTHORIZATION_CHECK_COST } from '../../authorization.js';
import type { AuthorizationAttributes, AuthorizationChecker, AuthorizationDecision, AuthorizationUser } from '../../authorization.js';
import { isDNS1123Label, nameIsDNSSubdomain } from '../../../validation/names.js';
import { arity, defineMember } from '../functions.js';
import type { EvalState } from '../state.js';
import { CelObject, celError, celType, noSuchOverload } from '../values.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';

const AUTHORIZER_TYPE = celType('kubernetes.authorization.Authorizer');
const PATH_CHECK_TYPE = celType('kubernetes.authorization.PathCheck');
const GROUP_CHECK_TYPE = celType('kubernetes.authorization.GroupCheck');
const RESOURCE_CHECK_TYPE = celType('kubernetes.authorization.ResourceCheck');
const DECISION_TYPE = celType('kubernetes.authorization.Decision');

/** receiverOnlyObjectVal: a value only its own functions take; equal only to itself here. */
abstract class ReceiverOnlyValue extends CelObject {
  equals(other: CelObject): boolean {
    return other === this;
  }
}

export class AuthorizerValue extends ReceiverOnlyValue {
  readonly celType = AUTHORIZER_TYPE;
  constructor(readonly user: AuthorizationUser, readonly checker: AuthorizationChecker) {
    super();
  }
}

class PathCheckValue extends ReceiverOnlyValue {
  readonly celType = PATH_CHECK_TYPE;
  constructor(readonly authorizer: AuthorizerValue, readonly path: string) {
    super();
  }
}

class GroupCheckValue extends ReceiverOnlyValue {
  readonly celType = GROUP_CHECK_TYPE;
  constructor(readonly authorizer: AuthorizerValue, readonly group: string) {
    super();
  }
}

interface ResourceFields {
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  readonly fieldSelector: string;
  readonly labelSelector: string;
}

export class ResourceCheckValue extends ReceiverOnlyValue {
  readonly celType = RESOURCE_CHECK_TYPE;
  constructor(readonly group: GroupCheckValue, readonly fields: ResourceFields) {
    super();
  }
  with(fields: Partial<ResourceFields>): ResourceCheckValue {
    return new ResourceCheckValue(this.group, { ...this.fields, ...fields });
  }
}

class DecisionValue extends ReceiverOnlyValue {
  readonly celType = DECISION_TYPE;
  constructor(readonly decision: AuthorizationDecision) {
    super();
  }
}

/** `authorizer`: checks run as `user`. */
export function authorizerValue(user: AuthorizationUser, checker: AuthorizationChecker): AuthorizerValue {
  return new AuthorizerValue(user, checker);
}

/** The request's resource as NewResourceAuthorizerVal builds it (`authorizer.requestResource`). */
export interface RequestResource {
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

/** `authorizer.requestResource`: a resource check preset to the request's group, resource, subresource, namespace, name. */
export function requestResourceValue(authorizer: AuthorizerValue, r: RequestResource): ResourceCheckValue {
  return new ResourceCheckValue(new GroupCheckValue(authorizer, r.group), {
    resource: r.resource, subresource: r.subresource, namespace: r.namespace, name: r.name, fieldSelector: '', labelSelector: '',
  });
}

const is = (type: new (...args: never[]) => CelObject) => (v: unknown): boolean => v instanceof type;

function receiver<T>(fn: string, args: unknown[], type: new (...a: never[]) => T, n: number): T {
  arity(fn, args, n);
  const r = args[0];
  if (!(r instanceof type)) throw noSuchOverload(fn, ...args);
  for (let i = 1; i < n; i++) if (typeof args[i] !== 'string') throw noSuchOverload(fn, ...args);
  return r;
}

defineMember('path', (args) => {
  const a = receiver('path', args, AuthorizerValue, 2);
  const path = args[1] as string;
  if (path.trim().length === 0) throw celError('path must not be empty');
  return new PathCheckValue(a, path);
}, is(AuthorizerValue));

defineMember('group', (args) => new GroupCheckValue(receiver('group', args, AuthorizerValue, 2), args[1] as string), is(AuthorizerValue));

defineMember('serviceAccount', (args) => {
  const a = receiver('serviceAccount', args, AuthorizerValue, 3);
  const [namespace, name] = [args[1] as string, args[2] as string];
  // apimachineryvalidation.ValidateServiceAccountName (NameIsDNSSubdomain), ValidateNamespaceName (NameIsDNSLabel)
  if (nameIsDNSSubdomain(name, false).length > 0) throw celError('Invalid service account name');
  if (isDNS1123Label(namespace).length > 0) throw celError('Invalid service account namespace');
  // serviceaccount.ServiceAccountInfo.UserInfo(): no uid, no extra
  return new AuthorizerValue({
    name: `system:serviceaccount:${namespace}:${name}`,
    uid: '',
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
    extra: {},
  }, a.checker);
}, is(AuthorizerValue));

defineMember('resource', (args) => {
  const g = receiver('resource', args, GroupCheckValue, 2);
  const resource = args[1] as string;
  if (resource.trim().length === 0) throw celError('resource must not be empty');
  return new ResourceCheckValue(g, { resource, subresource: '', namespace: '', name: '', fieldSelector: '', labelSelector: '' });
}, is(GroupCheckValue));

for (const field of ['subresource', 'namespace', 'name'] as const) {
  defineMember(field, (args) => receiver(field, args, ResourceCheckValue, 2).with({ [field]: args[1] as string }), is(ResourceCheckValue));
}

/** library/cost.go selectorCostEstimate for a selector of `length` characters: list + parse + requirements. */
function selectorCost(length: number): number {
  return 10 + Math.ceil(length * 0.1) + Math.ceil(length * 0.5) * 50;
}

for (const field of ['fieldSelector', 'labelSelector'] as const) {
  defineMember(field, (args, s: EvalState) => {
    const r = receiver(field, args, ResourceCheckValue, 2);
    const selector = args[1] as string;
    // the planner charged 1 for the call; the estimator's cost replaces it
    s.tick(selectorCost([...selector].length) - 1);
    return r.with({ [field]: selector });
  }, is(ResourceCheckValue));
}

function attributesOf(target: PathCheckValue | ResourceCheckValue, verb: string): AuthorizationAttributes {
  if (target instanceof PathCheckValue) return { resourceRequest: false, user: target.authorizer.user, verb, path: target.path };
  const f = target.fields;
  return {
    resourceRequest: true,
    user: target.group.authorizer.user,
    verb,
    apiGroup: target.group.group,
    apiVersion: '*',
    resource: f.resource,
    subresource: f.subresource,
    namespace: f.namespace,
    name: f.name,
    // AuthorizeWithSelectors is GA (locked on) in 1.34+: non-empty selectors are parsed
    ...(f.fieldSelector.length > 0 ? { fieldSelector: parseFieldSelector(f.fieldSelector) } : {}),
    ...(f.labelSelector.length > 0 ? { labelSelector: parseLabelSelector(f.labelSelector) } : {}),
  };
}

defineMember('check', (args, s: EvalState) => {
  arity('check', args, 2);
  const target = args[0];
  if (!(target instanceof PathCheckValue || target instanceof ResourceCheckValue) || typeof args[1] !== 'string') throw noSuchOverload('check', ...args);
  const authorizer = target instanceof PathCheckValue ? target.authorizer : target.group.authorizer;
  const decision = authorizer.checker.authorize(attributesOf(target, args[1]));
  // cel-go's cost observer charges a call after it ran: the check is made, then the budget may run out
  s.tick(AUTHORIZATION_CHECK_COST - 1);
  return new DecisionValue(decision);
}, (v) => v instanceof PathCheckValue || v instanceof ResourceCheckValue);

function decision(fn: string, args: unknown[]): AuthorizationDecision {
  arity(fn, args, 1);
  const d = args[0];
  if (!(d instanceof DecisionValue)) throw noSuchOverload(fn, ...args);
  return d.decision;
}

defineMember('allowed', (args) => decision('allowed', args).decision === 'allow', is(DecisionValue));
defineMember('reason', (args) => decision('reason', args).reason, is(DecisionValue));
defineMember('errored', (args) => decision('errored', args).error !== undefined, is(DecisionValue));
defineMember('error', (args) => decision('error', args).error ?? '', is(DecisionValue));
