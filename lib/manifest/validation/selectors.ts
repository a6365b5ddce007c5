// Label and label-selector validation (k8s.io/apimachinery/pkg/apis/meta/v1/validation, v0.36).
// Admission objects are validated strictly: label values in matchExpressions must be valid label values
// (AllowInvalidLabelValueInSelector is false on create) and unknown operators are rejected.
import type { LabelSelector, LabelSelectorRequirement } from '../../api/types.js';
import { forbidden, invalid, Named, required } from './field-error.js';
import type { FieldError, Path } from './field-error.js';
import { isQualifiedName, isValidLabelValue } from './names.js';

/** ValidateLabelName */
export function validateLabelName(labelName: string, fldPath: Path): FieldError[] {
  return isQualifiedName(labelName).map((msg) => invalid(fldPath, labelName, msg));
}

/**
 * ValidateLabels. Upstream walks a Go map (random order); entries are checked here in document order. Every
 * error is reported at the map's own path, not at a per-key path.
 */
export function validateLabels(labels: Readonly<Record<string, string>> | null | undefined, fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    errs.push(...validateLabelName(k, fldPath));
    for (const msg of isValidLabelValue(v)) errs.push(invalid(fldPath, v, msg));
  }
  return errs;
}

/** ValidateLabelSelectorRequirement with AllowInvalidLabelValueInSelector and AllowUnknownOperatorInRequirement false. */
export function validateLabelSelectorRequirement(sr: LabelSelectorRequirement, fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  const values = sr.values ?? [];
  const operator = sr.operator ?? '';
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(required(fldPath.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) errs.push(forbidden(fldPath.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    default:
      errs.push(invalid(fldPath.child('operator'), new Named(operator), 'not a valid selector operator'));
      break;
  }
  errs.push(...validateLabelName(sr.key ?? '', fldPath.child('key')));
  values.forEach((value, i) => {
    for (const msg of isValidLabelValue(value)) errs.push(invalid(fldPath.child('values').index(i), value, msg));
  });
  return errs;
}

/** ValidateLabelSelector(ps, LabelSelectorValidationOptions{}, fldPath): the strict form used on create. */
export function validateLabelSelector(ps: LabelSelector | null | undefined, fldPath: Path): FieldError[] {
  if (ps === null || ps === undefined) return [];
  const errs = validateLabels(ps.matchLabels, fldPath.child('matchLabels'));
  (ps.matchExpressions ?? []).forEach((expr, i) => {
    errs.push(...validateLabelSelectorRequirement(expr, fldPath.child('matchExpressions').index(i)));
  });
  return errs;
}
