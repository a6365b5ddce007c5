// Kubernetes library.Format: format.<name>() and format.named(name) give a NamedFormat whose validate(string)
// returns optional.none() for a valid string, else optional.of(the list of error messages), with the validators
// and messages of k8s.io/apimachinery (util/validation, api/validation) and kube-openapi strfmt.

import { arity, defineGlobal, defineMember, stringArg } from '../functions.js';
import { parseTimestamp } from '../time.js';
import { CelObject, CelOptional, celType, noSuchOverload } from '../values.js';
import { FORMAT_NAMES } from './format-names.js';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, maskTrailingDash } from '../../../validation/names.js';
import { requestURIError } from '../../../validation/go-url.js';

const FORMAT_TYPE = celType('kubernetes.NamedFormat');


const UUID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:?\d{2})?$/;

function validDate(s: string): boolean {
  const m = DATE.exec(s);
  if (m === null) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const days = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  return days !== undefined && d >= 1 && d <= days;
}

function validDateTime(s: string): boolean {
  if (!DATETIME.test(s)) return false;
  if (!validDate(s.slice(0, 10))) return false;
  const [h, mi, sec] = [Number(s.slice(11, 13)), Number(s.slice(14, 16)), Number(s.slice(17, 19))];
  if (h > 23 || mi > 59 || sec > 60) return false;
  const zoned = /[Zz]$|[+-]\d{2}:?\d{2}$/.test(s.slice(19));
  if (!zoned) return true;
  try {
    parseTimestamp(`${s.slice(0, 10)}T${s.slice(11).replace(/([+-]\d{2})(\d{2})$/, '$1:$2')}`);
    return true;
  } catch {
    return true; // beyond CEL's timestamp range, but a valid date-time
  }
}

const VALIDATORS: Readonly<Record<(typeof FORMAT_NAMES)[number], (s: string) => string[]>> = {
  dns1123Label: isDNS1123Label,
  dns1123Subdomain: isDNS1123Subdomain,
  dns1035Label: isDNS1035Label,
  qualifiedName: isQualifiedName,
  dns1123LabelPrefix: (s) => isDNS1123Label(maskTrailingDash(s)),
  dns1123SubdomainPrefix: (s) => isDNS1123Subdomain(maskTrailingDash(s)),
  dns1035LabelPrefix: (s) => isDNS1035Label(maskTrailingDash(s)),
  labelValue: isValidLabelValue,
  uri: (s) => {
    const e = requestURIError(s);
    return e === undefined ? [] : [e];
  },
  uuid: (s) => (UUID.test(s) ? [] : ['does not match the UUID format']),
  byte: (s) => (BASE64.test(s) ? [] : ['invalid base64']),
  date: (s) => (validDate(s) ? [] : ['invalid date']),
  datetime: (s) => (validDateTime(s) ? [] : ['invalid datetime']),
};

export class NamedFormat extends CelObject {
  readonly celType = FORMAT_TYPE;
  constructor(
    readonly name: string,
    readonly validate: (s: string) => string[],
  ) {
    super();
  }
  equals(other: CelObject): boolean {
    return other instanceof NamedFormat && other.name === this.name;
  }
  toCelString(): string {
    return this.name;
  }
}

const FORMATS = new Map<string, NamedFormat>(FORMAT_NAMES.map((n) => [n, new NamedFormat(n, VALIDATORS[n])]));

for (const [name, f] of FORMATS) defineGlobal(`format.${name}`, (args) => (arity(`format.${name}`, args, 0), f));
defineGlobal('format.named', (args) => {
  arity('format.named', args, 1);
  const f = FORMATS.get(stringArg('format.named', args, 0));
  return f === undefined ? CelOptional.NONE : CelOptional.of(f);
});
defineMember(
  'validate',
  (args) => {
    arity('validate', args, 2);
    const f = args[0];
    if (!(f instanceof NamedFormat)) throw noSuchOverload('validate', ...args);
    const errors = f.validate(stringArg('validate', args, 1));
    return errors.length === 0 ? CelOptional.NONE : CelOptional.of(errors);
  },
  (v) => v instanceof NamedFormat,
);
