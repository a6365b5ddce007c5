// Field-error forms of the apimachinery name checks (IsFullyQualifiedName, ValidateQualifiedName) and CEL
// identifier rules; the string checks themselves live in lib/validation/names.ts and are re-exported here.
import { invalid, required } from './field-error.js';
import type { FieldError, PathLike } from './field-error.js';
import { isDNS1123Subdomain, isQualifiedName } from '../../validation/names.js';

export {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isPathSegmentName,
  isQualifiedName,
  isValidLabelValue,
  maxLenError,
  nameIsDNSSubdomain,
  regexError,
} from '../../validation/names.js';


/** util/validation.IsFullyQualifiedName */
export function isFullyQualifiedName(fldPath: PathLike, name: string): FieldError[] {
  if (name.length === 0) return [required(fldPath, '')];
  const errs = isDNS1123Subdomain(name);
  if (errs.length > 0) return [invalid(fldPath, name, errs.join(','))];
  if (name.split('.').length < 3) return [invalid(fldPath, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

/** pkg/apis/core/validation.ValidateQualifiedName */
export function validateQualifiedName(value: string, fldPath: PathLike): FieldError[] {
  return isQualifiedName(value).map((msg) => invalid(fldPath, value, msg));
}

const celIdentRegex = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const celReserved = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let',
  'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

/** admissionregistration validation isCELIdentifier: IDENT ::= [_a-zA-Z][_a-zA-Z0-9]* - RESERVED */
export function isCELIdentifier(name: string): boolean {
  return celIdentRegex.test(name) && !celReserved.has(name);
}
