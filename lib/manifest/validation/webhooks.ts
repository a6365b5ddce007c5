// ValidatingWebhookConfiguration / MutatingWebhookConfiguration validation on create
// (pkg/apis/admissionregistration/validation/validation.go with requireNoSideEffects, requireRecognized-
// AdmissionReviewVersion and requireUniqueWebhookNames all true and strict label selectors).
import type {
  MatchCondition,
  MutatingWebhook,
  MutatingWebhookConfiguration,
  ValidatingWebhook,
  ValidatingWebhookConfiguration,
} from '../../api/types.js';
import { checkExpression, defaultCompiler } from './cel.js';
import type { ExpressionCompiler, ValidationOptions } from './cel.js';
import { duplicate, invalid, Named, notSupported, Path, required, tooMany } from './field-error.js';
import type { FieldError } from './field-error.js';
import type { CelEnvironment } from '../../cel/index.js';
import { goTrimSpace } from '../../validation/go-format.js';
import { isDNS1035Label, isFullyQualifiedName, validateQualifiedName } from './names.js';
import { validateObjectMeta } from './object-meta.js';
import {
  isOneOf,
  supportedFailurePolicies,
  supportedMatchPolicies,
  supportedReinvocationPolicies,
  validateRuleWithOperations,
} from './rules.js';
import { validateLabelSelector } from './selectors.js';
import { validateWebhookService, validateWebhookURL } from './url.js';

/** AdmissionReview versions the API server accepts (v1, v1beta1). */
const acceptedAdmissionReviewVersions = ['v1', 'v1beta1'] as const;
/** noSideEffectClasses (sorted), required on create. */
const noSideEffectClasses = ['None', 'NoneOnDryRun'] as const;
const maxMatchConditions = 64;

/** Where and how match conditions are compiled. */
export interface MatchConditionContext {
  readonly compile: ExpressionCompiler;
  readonly environment: CelEnvironment;
  /** whether `params` is declared (a policy with a paramKind) */
  readonly params?: boolean;
  /** false in a policy: its matchConditions have no `variables` */
  readonly composition?: boolean;
}

/** validateMatchCondition (the expression is trimmed before compiling and shown trimmed). */
function validateMatchCondition(mc: MatchCondition, ctx: MatchConditionContext, fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  const trimmed = goTrimSpace(mc.expression ?? '');
  if (trimmed.length === 0) {
    errs.push(required(fldPath.child('expression'), ''));
  } else {
    // Match conditions are compiled without variable composition, even in policies that declare variables
    // (ctx.composition false: upstream says undeclared reference to 'variables').
    errs.push(...checkExpression(ctx.compile, fldPath.child('expression'), {
      expression: trimmed,
      shown: trimmed,
      environment: ctx.environment,
      expect: 'bool',
      variableNames: [],
      ...(ctx.composition === undefined ? {} : { composition: ctx.composition }),
      ...(ctx.params === undefined ? {} : { params: ctx.params }),
    }));
  }
  const name = mc.name ?? '';
  if (name.length === 0) errs.push(required(fldPath.child('name'), ''));
  else errs.push(...validateQualifiedName(name, fldPath.child('name')));
  return errs;
}

/** validateMatchConditions: at most 64, names required, qualified and unique, expressions compile to bool. */
export function validateMatchConditions(
  conditions: readonly MatchCondition[] | null | undefined,
  ctx: MatchConditionContext,
  fldPath: Path,
): FieldError[] {
  const list = conditions ?? [];
  const errs: FieldError[] = [];
  if (list.length > maxMatchConditions) errs.push(tooMany(fldPath, list.length, maxMatchConditions));
  const names = new Set<string>();
  list.forEach((mc, i) => {
    errs.push(...validateMatchCondition(mc, ctx, fldPath.index(i)));
    const name = mc.name ?? '';
    if (name.length > 0) {
      if (names.has(name)) errs.push(duplicate(fldPath.index(i).child('name'), name));
      else names.add(name);
    }
  });
  return errs;
}

/** validateAdmissionReviewVersions(versions, requireRecognizedAdmissionReviewVersion=true, fldPath) */
function validateAdmissionReviewVersions(versions: readonly string[], fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (versions.length < 1) {
    errs.push(required(fldPath, `must specify one of ${acceptedAdmissionReviewVersions.join(', ')}`));
    return errs;
  }
  const seen = new Set<string>();
  let hasAcceptedVersion = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalid(fldPath.index(i), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(invalid(fldPath.index(i), v, msg));
    if (isOneOf(acceptedAdmissionReviewVersions, v)) hasAcceptedVersion = true;
  });
  if (!hasAcceptedVersion) {
    errs.push(invalid(fldPath, [...versions], `must include at least one of ${acceptedAdmissionReviewVersions.join(', ')}`));
  }
  return errs;
}

/** The checks validateValidatingWebhook and validateMutatingWebhook share, in upstream order. */
function validateWebhook(hook: ValidatingWebhook | MutatingWebhook, compile: ExpressionCompiler, fldPath: Path, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...isFullyQualifiedName(fldPath.child('name'), hook.name ?? ''));
  (hook.rules ?? []).forEach((rule, i) => {
    errs.push(...validateRuleWithOperations(rule, fldPath.child('rules').index(i)));
  });
  if (hook.failurePolicy !== null && hook.failurePolicy !== undefined && !isOneOf(supportedFailurePolicies, hook.failurePolicy)) {
    errs.push(notSupported(fldPath.child('failurePolicy'), new Named(hook.failurePolicy), supportedFailurePolicies));
  }
  if (hook.matchPolicy !== null && hook.matchPolicy !== undefined && !isOneOf(supportedMatchPolicies, hook.matchPolicy)) {
    errs.push(notSupported(fldPath.child('matchPolicy'), new Named(hook.matchPolicy), supportedMatchPolicies));
  }
  if (hook.sideEffects === null || hook.sideEffects === undefined) {
    errs.push(required(fldPath.child('sideEffects'), `must specify one of ${noSideEffectClasses.join(', ')}`));
  } else if (!isOneOf(noSideEffectClasses, hook.sideEffects)) {
    errs.push(notSupported(fldPath.child('sideEffects'), new Named(hook.sideEffects), noSideEffectClasses));
  }
  const timeout = hook.timeoutSeconds;
  if (timeout !== null && timeout !== undefined && (timeout > 30 || timeout < 1)) {
    errs.push(invalid(fldPath.child('timeoutSeconds'), timeout, 'the timeout value must be between 1 and 30 seconds'));
  }
  if (hook.namespaceSelector !== null && hook.namespaceSelector !== undefined) {
    errs.push(...validateLabelSelector(hook.namespaceSelector, fldPath.child('namespaceSelector')));
  }
  if (hook.objectSelector !== null && hook.objectSelector !== undefined) {
    errs.push(...validateLabelSelector(hook.objectSelector, fldPath.child('objectSelector')));
  }
  if (mutating) {
    const policy = (hook as MutatingWebhook).reinvocationPolicy;
    if (policy !== null && policy !== undefined && !isOneOf(supportedReinvocationPolicies, policy)) {
      errs.push(notSupported(fldPath.child('reinvocationPolicy'), new Named(policy), supportedReinvocationPolicies));
    }
  }
  const cc = hook.clientConfig ?? {};
  const hasURL = cc.url !== null && cc.url !== undefined;
  const hasService = cc.service !== null && cc.service !== undefined;
  if (hasURL === hasService) {
    errs.push(required(fldPath.child('clientConfig'), 'exactly one of url or service is required'));
  } else if (hasURL) {
    errs.push(...validateWebhookURL(fldPath.child('clientConfig').child('url'), cc.url!));
  } else {
    const svc = cc.service!;
    // The internal type's port is an int32 that conversion sets to 0 when the (defaulted) pointer is nil.
    errs.push(...validateWebhookService(fldPath.child('clientConfig').child('service'), svc.namespace ?? '', svc.name ?? '', svc.path, svc.port ?? 0));
  }
  errs.push(...validateMatchConditions(hook.matchConditions, { compile, environment: 'webhookMatchCondition' }, fldPath.child('matchConditions')));
  return errs;
}

function validateWebhooks(hooks: ReadonlyArray<ValidatingWebhook | MutatingWebhook>, compile: ExpressionCompiler, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  hooks.forEach((hook, i) => {
    const fldPath = Path.of('webhooks').index(i);
    errs.push(...validateWebhook(hook, compile, fldPath, mutating));
    errs.push(...validateAdmissionReviewVersions(hook.admissionReviewVersions ?? [], fldPath.child('admissionReviewVersions')));
    const name = hook.name ?? '';
    if (name.length > 0) {
      if (names.has(name)) errs.push(duplicate(fldPath.child('name'), name));
      else names.add(name);
    }
  });
  return errs;
}

/** ValidateValidatingWebhookConfiguration */
export function validateValidatingWebhookConfiguration(obj: ValidatingWebhookConfiguration, options: ValidationOptions = {}): FieldError[] {
  return [
    ...validateObjectMeta(obj.metadata),
    ...validateWebhooks(obj.webhooks ?? [], options.compile ?? defaultCompiler, false),
  ];
}

/** ValidateMutatingWebhookConfiguration */
export function validateMutatingWebhookConfiguration(obj: MutatingWebhookConfiguration, options: ValidationOptions = {}): FieldError[] {
  return [
    ...validateObjectMeta(obj.metadata),
    ...validateWebhooks(obj.webhooks ?? [], options.compile ?? defaultCompiler, true),
  ];
}
