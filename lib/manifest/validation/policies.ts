// ValidatingAdmissionPolicy(+Binding) and MutatingAdmissionPolicy(+Binding) validation on create
// (pkg/apis/admissionregistration/validation/validation.go).
import type {
  AuditAnnotation,
  MatchResources,
  Mutation,
  MutatingAdmissionPolicy,
  MutatingAdmissionPolicyBinding,
  ParamKind,
  ParamRef,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  Validation,
  Variable,
} from '../../api/types.js';
import type { CelEnvironment } from '../../cel/index.js';
import { checkExpression, compileChecked, defaultCompiler, supportsObjectConstruction } from './cel.js';
import type { ExpressionCompiler, PatchKind, ValidationOptions } from './cel.js';
import { duplicate, forbidden, invalid, Named, notSupported, Path, required } from './field-error.js';
import type { FieldError } from './field-error.js';
import { byteLength, goTrimSpace } from '../../validation/go-format.js';
import {
  isCELIdentifier,
  isDNS1035Label,
  isDNS1123Subdomain,
  isPathSegmentName,
  nameIsDNSSubdomain,
  validateQualifiedName,
} from './names.js';
import { validateObjectMeta } from './object-meta.js';
import {
  isOneOf,
  supportedFailurePolicies,
  supportedMutatingOperations,
  supportedReinvocationPolicies,
  validateMatchResources,
} from './rules.js';
import { validateLabelSelector } from './selectors.js';
import { validateMatchConditions } from './webhooks.js';

const maxAuditAnnotations = 20;
/** 5 KiB: less than the 10 KiB audit annotation value limit, since concatenation grows values. */
const maxAuditAnnotationValueExpressionLength = 5 * 1024;
const supportedValidationPolicyReasons = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'] as const;
const validValidationActions = ['Audit', 'Deny', 'Warn'] as const;
const supportedPatchTypes = ['ApplyConfiguration', 'JSONPatch'] as const;

function isSet<T>(v: T | null | undefined): v is T {
  return v !== null && v !== undefined;
}

/** Compile context of one policy: its environment and the variables composed so far. */
interface PolicyCompiler {
  readonly compile: ExpressionCompiler;
  readonly environment: CelEnvironment;
  /** Names of all declared variables (what validations, messages, annotations and mutations may use). */
  readonly allVariables: readonly string[];
  /** Output types of the variables that compiled, filled in declaration order (composition.go AddField). */
  readonly variableTypes: Record<string, string>;
  /** whether the policy has a paramKind (compile.go HasParams) */
  readonly params: boolean;
  /** whether `variables` is declared: a ValidatingAdmissionPolicy compiles with composition only when it declares
   *  variables (validation.go validateValidatingAdmissionPolicySpec, needsComposition), a mutating one always */
  readonly composition: boolean;
}

/** The declarations every expression of a policy compiles with. */
function declarations(pc: PolicyCompiler): { variableTypes: Readonly<Record<string, string>>; params: boolean; composition: boolean } {
  return { variableTypes: pc.variableTypes, params: pc.params, composition: pc.composition };
}

function variableNamesOf(variables: readonly Variable[]): string[] {
  return variables.map((v) => v.name ?? '').filter((n) => n.length > 0);
}

/** parseGroupVersion (the admissionregistration copy). */
function parseGroupVersion(gv: string): { group: string; version: string } | string {
  if (gv.length === 0 || gv === '/') return { group: '', version: '' };
  const slashes = gv.split('/').length - 1;
  if (slashes === 0) return { group: '', version: gv };
  if (slashes === 1) {
    const i = gv.indexOf('/');
    return { group: gv.slice(0, i), version: gv.slice(i + 1) };
  }
  return `unexpected GroupVersion string: ${gv}`;
}

/** validateParamKind */
function validateParamKind(gvk: ParamKind, fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = gvk.apiVersion ?? '';
  if (apiVersion.length === 0) {
    errs.push(required(fldPath.child('apiVersion'), ''));
  } else {
    const gv = parseGroupVersion(apiVersion);
    if (typeof gv === 'string') {
      errs.push(invalid(fldPath.child('apiVersion'), apiVersion, gv));
    } else {
      if (gv.group.length > 0) {
        const groupErrs = isDNS1123Subdomain(gv.group);
        if (groupErrs.length > 0) errs.push(invalid(fldPath.child('apiVersion'), gv.group, groupErrs.join(',')));
      }
      if (gv.version.length === 0) {
        errs.push(invalid(fldPath.child('apiVersion'), apiVersion, 'version must be specified'));
      } else {
        const versionErrs = isDNS1035Label(gv.version);
        if (versionErrs.length > 0) errs.push(invalid(fldPath.child('apiVersion'), gv.version, versionErrs.join(',')));
      }
    }
  }
  const kind = gvk.kind ?? '';
  if (kind.length === 0) {
    errs.push(required(fldPath.child('kind'), ''));
  } else {
    const kindErrs = isDNS1035Label(kind.toLowerCase());
    if (kindErrs.length > 0) errs.push(invalid(fldPath.child('kind'), kind, `may have mixed case, but should otherwise match: ${kindErrs.join(',')}`));
  }
  return errs;
}

/** The failurePolicy / paramKind / matchConstraints head shared by both policy kinds. */
function validatePolicyHead(
  failurePolicy: string | null | undefined,
  paramKind: ParamKind | null | undefined,
  matchConstraints: MatchResources | null | undefined,
  fldPath: Path,
): FieldError[] {
  const errs: FieldError[] = [];
  if (!isSet(failurePolicy)) errs.push(required(fldPath.child('failurePolicy'), ''));
  else if (!isOneOf(supportedFailurePolicies, failurePolicy)) {
    errs.push(notSupported(fldPath.child('failurePolicy'), new Named(failurePolicy), supportedFailurePolicies));
  }
  if (isSet(paramKind)) errs.push(...validateParamKind(paramKind, fldPath.child('paramKind')));
  if (!isSet(matchConstraints)) {
    errs.push(required(fldPath.child('matchConstraints'), ''));
  } else {
    errs.push(...validateMatchResources(matchConstraints, fldPath.child('matchConstraints')));
    // At least one resourceRule must be defined to provide type information.
    if ((matchConstraints.resourceRules ?? []).length === 0) errs.push(required(fldPath.child('matchConstraints', 'resourceRules'), ''));
  }
  return errs;
}

/** validateVariable: each variable sees the variables declared before it. */
function validateVariable(pc: PolicyCompiler, v: Variable, earlier: readonly string[], fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  const name = v.name ?? '';
  if (name.length === 0 || goTrimSpace(name) === '') errs.push(required(fldPath.child('name'), 'name is not specified'));
  else if (!isCELIdentifier(name)) errs.push(invalid(fldPath.child('name'), name, 'must be a valid CEL identifier'));
  const expression = v.expression ?? '';
  if (expression.length === 0 || goTrimSpace(expression) === '') {
    errs.push(required(fldPath.child('expression'), 'expression is not specified'));
  } else {
    const checked = compileChecked(pc.compile, fldPath.child('expression'), {
      expression,
      shown: expression,
      environment: pc.environment,
      expect: 'any',
      variableNames: earlier,
      ...declarations(pc),
    });
    errs.push(...checked.errors);
    if (checked.outputType !== undefined && name.length > 0) pc.variableTypes[name] = checked.outputType;
  }
  return errs;
}

function validateVariables(pc: PolicyCompiler, variables: readonly Variable[], fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  const declared: string[] = [];
  variables.forEach((v, i) => {
    errs.push(...validateVariable(pc, v, [...declared], fldPath.index(i)));
    // Upstream's composition stores every variable by name, whether or not it compiled.
    if ((v.name ?? '').length > 0) declared.push(v.name!);
  });
  return errs;
}

const newlines = /[\n\r]+/;

/** validateValidation */
function validateValidation(pc: PolicyCompiler, v: Validation, fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  const expression = v.expression ?? '';
  const message = v.message ?? '';
  const messageExpression = v.messageExpression ?? '';
  const trimmedMsg = goTrimSpace(message);
  const trimmedMessageExpression = goTrimSpace(messageExpression);
  if (goTrimSpace(expression).length === 0) {
    errs.push(required(fldPath.child('expression'), 'expression is not specified'));
  } else {
    errs.push(...checkExpression(pc.compile, fldPath.child('expression'), {
      expression,
      shown: expression,
      environment: pc.environment,
      expect: 'bool',
      variableNames: pc.allVariables,
      ...declarations(pc),
    }));
  }
  if (messageExpression.length > 0 && trimmedMessageExpression.length === 0) {
    errs.push(invalid(fldPath.child('messageExpression'), messageExpression, 'must be non-empty if specified'));
  } else if (trimmedMessageExpression.length !== 0) {
    // Compiled untrimmed so that error columns match the field's text.
    errs.push(...checkExpression(pc.compile, fldPath.child('messageExpression'), {
      expression: messageExpression,
      shown: messageExpression,
      // validation.go validateMessageExpression: HasAuthorizer false
      environment: 'validatingPolicyMessage',
      expect: 'string',
      variableNames: pc.allVariables,
      ...declarations(pc),
    }));
  }
  if (message.length > 0 && trimmedMsg.length === 0) {
    errs.push(invalid(fldPath.child('message'), message, 'must be non-empty if specified'));
  } else if (newlines.test(trimmedMsg)) {
    errs.push(invalid(fldPath.child('message'), message, 'must not contain line breaks'));
  }
  if (isSet(v.reason) && !isOneOf(supportedValidationPolicyReasons, v.reason)) {
    errs.push(notSupported(fldPath.child('reason'), new Named(v.reason), supportedValidationPolicyReasons));
  }
  return errs;
}

/** validateAuditAnnotation */
function validateAuditAnnotation(pc: PolicyCompiler, policyName: string, a: AuditAnnotation, fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  const key = a.key ?? '';
  if (policyName.length !== 0) errs.push(...validateQualifiedName(`${policyName}/${key}`, fldPath.child('key')));
  else errs.push(invalid(fldPath.child('key'), key, 'requires metadata.name be non-empty'));
  const valueExpression = a.valueExpression ?? '';
  const trimmed = goTrimSpace(valueExpression);
  if (trimmed.length === 0) {
    errs.push(required(fldPath.child('valueExpression'), 'valueExpression is not specified'));
  } else if (byteLength(trimmed) > maxAuditAnnotationValueExpressionLength) {
    errs.push(required(fldPath.child('valueExpression'), `must not exceed ${maxAuditAnnotationValueExpressionLength} bytes in length`));
  } else {
    errs.push(...checkExpression(pc.compile, fldPath.child('valueExpression'), {
      expression: trimmed,
      shown: valueExpression,
      environment: pc.environment,
      expect: 'stringOrNull',
      variableNames: pc.allVariables,
      ...declarations(pc),
    }));
  }
  return errs;
}

/** The internal AuditAnnotation struct as json.Marshal prints it (internal types carry no json tags). */
function auditAnnotationJson(a: AuditAnnotation): Record<string, string> {
  return { Key: a.key ?? '', ValueExpression: a.valueExpression ?? '' };
}

/** validateValidatingAdmissionPolicySpec */
function validateValidatingAdmissionPolicySpec(obj: ValidatingAdmissionPolicy, compile: ExpressionCompiler): FieldError[] {
  const fldPath = Path.of('spec');
  const spec = obj.spec ?? {};
  const variables = spec.variables ?? [];
  const pc: PolicyCompiler = { compile, environment: 'validatingPolicy', allVariables: variableNamesOf(variables), variableTypes: {}, params: isSet(spec.paramKind), composition: variables.length > 0 };
  const errs = validatePolicyHead(spec.failurePolicy, spec.paramKind, spec.matchConstraints, fldPath);
  errs.push(...validateMatchConditions(spec.matchConditions, { compile, environment: pc.environment, params: pc.params, composition: false }, fldPath.child('matchConditions')));
  errs.push(...validateVariables(pc, variables, fldPath.child('variables')));
  const validations = spec.validations ?? [];
  const auditAnnotations = spec.auditAnnotations ?? [];
  if (validations.length === 0 && auditAnnotations.length === 0) {
    errs.push(required(fldPath.child('validations'), 'validations or auditAnnotations must contain at least one item'));
    errs.push(required(fldPath.child('auditAnnotations'), 'validations or auditAnnotations must contain at least one item'));
    return errs;
  }
  validations.forEach((v, i) => errs.push(...validateValidation(pc, v, fldPath.child('validations').index(i))));
  if (auditAnnotations.length > maxAuditAnnotations) {
    errs.push(invalid(fldPath.child('auditAnnotations'), auditAnnotations.map(auditAnnotationJson),
      `must not have more than ${maxAuditAnnotations} auditAnnotations`));
  }
  const keys = new Set<string>();
  const policyName = obj.metadata?.name ?? '';
  auditAnnotations.forEach((a, i) => {
    const p = fldPath.child('auditAnnotations').index(i);
    errs.push(...validateAuditAnnotation(pc, policyName, a, p));
    const key = a.key ?? '';
    if (keys.has(key)) errs.push(duplicate(p.child('key'), key));
    keys.add(key);
  });
  return errs;
}

/** ValidateValidatingAdmissionPolicy */
export function validateValidatingAdmissionPolicy(obj: ValidatingAdmissionPolicy, options: ValidationOptions = {}): FieldError[] {
  return [...validateObjectMeta(obj.metadata), ...validateValidatingAdmissionPolicySpec(obj, options.compile ?? defaultCompiler)];
}

/** validateParamRef (bindings; static manifests reject paramRef later, REST validation still runs first). */
function validateParamRef(pr: ParamRef | null | undefined, fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!isSet(pr)) return errs;
  const name = pr.name ?? '';
  const hasSelector = isSet(pr.selector);
  if (name.length > 0) {
    for (const msg of isPathSegmentName(name)) errs.push(invalid(fldPath.child('name'), name, msg));
    if (hasSelector) errs.push(forbidden(fldPath.child('name'), 'name and selector are mutually exclusive'));
  }
  if (hasSelector) {
    errs.push(...validateLabelSelector(pr.selector, fldPath.child('selector')));
    if (name.length > 0) errs.push(forbidden(fldPath.child('selector'), 'name and selector are mutually exclusive'));
  }
  if (name.length === 0 && !hasSelector) errs.push(required(fldPath, 'one of name or selector must be specified'));
  const action = pr.parameterNotFoundAction;
  if (!isSet(action) || action.length === 0) {
    errs.push(required(fldPath.child('parameterNotFoundAction'), ''));
  } else if (action !== 'Deny' && action !== 'Allow') {
    errs.push(notSupported(fldPath.child('parameterNotFoundAction'), new Named(action), ['Deny', 'Allow']));
  }
  return errs;
}

/** policyName: required, and a DNS subdomain. */
function validatePolicyName(policyName: string, fldPath: Path): FieldError[] {
  if (policyName.length === 0) return [required(fldPath, '')];
  return nameIsDNSSubdomain(policyName, false).map((msg) => invalid(fldPath, policyName, msg));
}

/** validateValidationActions */
function validateValidationActions(actions: readonly string[], fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  actions.forEach((action, i) => {
    if (!isOneOf(validValidationActions, action)) errs.push(notSupported(fldPath.index(i), new Named(action), validValidationActions));
    if (seen.has(action)) errs.push(duplicate(fldPath.index(i), new Named(action)));
    seen.add(action);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(invalid(fldPath, [...actions],
      'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  if (seen.size === 0) errs.push(required(fldPath, 'at least one validation action is required'));
  return errs;
}

/** ValidateValidatingAdmissionPolicyBinding */
export function validateValidatingAdmissionPolicyBinding(obj: ValidatingAdmissionPolicyBinding): FieldError[] {
  const fldPath = Path.of('spec');
  const spec = obj.spec ?? {};
  return [
    ...validateObjectMeta(obj.metadata),
    ...validatePolicyName(spec.policyName ?? '', fldPath.child('policyName')),
    ...validateParamRef(spec.paramRef, fldPath.child('paramRef')),
    ...validateMatchResources(spec.matchResources, fldPath.child('matchResources')),
    ...validateValidationActions(spec.validationActions ?? [], fldPath.child('validationActions')),
  ];
}

/** Mutating policies and bindings cannot match DELETE: reported at the un-indexed "…resourceRules.operations". */
function validateMutatingOperations(mr: MatchResources, fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const rule of mr.resourceRules ?? []) {
    for (const op of rule.operations ?? []) {
      if (!isOneOf(supportedMutatingOperations, op)) {
        errs.push(notSupported(fldPath.child('resourceRules', 'operations'), new Named(op), supportedMutatingOperations));
      }
    }
  }
  return errs;
}

/** validateJSONPatch / validateApplyConfiguration: the expression is trimmed, compiled (with the patch's return type) and shown trimmed. */
function validatePatchExpression(pc: PolicyCompiler, expression: string | undefined, fldPath: Path, kind: PatchKind): FieldError[] {
  const trimmed = goTrimSpace(expression ?? '');
  if (trimmed.length === 0) return [required(fldPath.child('expression'), '')];
  // See supportsObjectConstruction: without engine support for `Object{...}` / `JSONPatch{...}` construction, the
  // compile check of that patch type is skipped rather than rejecting valid policies.
  if (!supportsObjectConstruction(pc.compile, kind)) return [];
  return checkExpression(pc.compile, fldPath.child('expression'), {
    expression: trimmed,
    shown: trimmed,
    environment: pc.environment,
    // JSONPatchCondition / ApplyConfigurationCondition ReturnTypes: list(JSONPatch), Object
    expect: kind,
    variableNames: pc.allVariables,
    ...declarations(pc),
  });
}

/** validateMutation */
function validateMutation(pc: PolicyCompiler, m: Mutation, fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  const patchType = m.patchType ?? '';
  if (patchType.length === 0) {
    errs.push(required(fldPath.child('patchType'), ''));
  } else if (patchType === 'JSONPatch') {
    if (!isSet(m.jsonPatch)) errs.push(required(fldPath.child('jsonPatch'), 'must be specified when patchType is JSONPatch'));
    else errs.push(...validatePatchExpression(pc, m.jsonPatch.expression, fldPath.child('jsonPatch'), 'jsonPatch'));
    if (isSet(m.applyConfiguration)) {
      errs.push(invalid(fldPath.child('applyConfiguration'), '{applyConfiguration}', 'must not be specified when patchType is JSONPatch'));
    }
  } else if (patchType === 'ApplyConfiguration') {
    if (!isSet(m.applyConfiguration)) errs.push(required(fldPath.child('applyConfiguration'), 'must be specified when patchType is ApplyConfiguration'));
    else errs.push(...validatePatchExpression(pc, m.applyConfiguration.expression, fldPath.child('applyConfiguration'), 'applyConfiguration'));
    if (isSet(m.jsonPatch)) {
      errs.push(invalid(fldPath.child('jsonPatch'), '{jsonPatch}', 'must not be specified when patchType is ApplyConfiguration'));
    }
  } else {
    errs.push(notSupported(fldPath.child('patchType'), new Named(patchType), supportedPatchTypes));
  }
  return errs;
}

/** validateMutatingAdmissionPolicySpec */
function validateMutatingAdmissionPolicySpec(obj: MutatingAdmissionPolicy, compile: ExpressionCompiler): FieldError[] {
  const fldPath = Path.of('spec');
  const spec = obj.spec ?? {};
  const variables = spec.variables ?? [];
  const pc: PolicyCompiler = { compile, environment: 'mutatingPolicy', allVariables: variableNamesOf(variables), variableTypes: {}, params: isSet(spec.paramKind), composition: true };
  const errs = validatePolicyHead(spec.failurePolicy, spec.paramKind, spec.matchConstraints, fldPath);
  if (isSet(spec.matchConstraints)) errs.push(...validateMutatingOperations(spec.matchConstraints, fldPath.child('matchConstraints')));
  errs.push(...validateMatchConditions(spec.matchConditions, { compile, environment: pc.environment, params: pc.params, composition: false }, fldPath.child('matchConditions')));
  errs.push(...validateVariables(pc, variables, fldPath.child('variables')));
  const mutations = spec.mutations ?? [];
  if (mutations.length === 0) errs.push(required(fldPath.child('mutations'), 'mutations must contain at least one item'));
  else mutations.forEach((m, i) => errs.push(...validateMutation(pc, m, fldPath.child('mutations').index(i))));
  const reinvocationPolicy = spec.reinvocationPolicy ?? '';
  if (reinvocationPolicy.length === 0) errs.push(required(fldPath.child('reinvocationPolicy'), ''));
  else if (!isOneOf(supportedReinvocationPolicies, reinvocationPolicy)) {
    errs.push(notSupported(fldPath.child('reinvocationPolicy'), new Named(reinvocationPolicy), supportedReinvocationPolicies));
  }
  return errs;
}

/** ValidateMutatingAdmissionPolicy */
export function validateMutatingAdmissionPolicy(obj: MutatingAdmissionPolicy, options: ValidationOptions = {}): FieldError[] {
  return [...validateObjectMeta(obj.metadata), ...validateMutatingAdmissionPolicySpec(obj, options.compile ?? defaultCompiler)];
}

/** ValidateMutatingAdmissionPolicyBinding */
export function validateMutatingAdmissionPolicyBinding(obj: MutatingAdmissionPolicyBinding): FieldError[] {
  const fldPath = Path.of('spec');
  const spec = obj.spec ?? {};
  const errs = [
    ...validateObjectMeta(obj.metadata),
    ...validatePolicyName(spec.policyName ?? '', fldPath.child('policyName')),
    ...validateParamRef(spec.paramRef, fldPath.child('paramRef')),
    ...validateMatchResources(spec.matchResources, fldPath.child('matchResources')),
  ];
  if (isSet(spec.matchResources)) errs.push(...validateMutatingOperations(spec.matchResources, fldPath.child('matchResources')));
  return errs;
}
