// Kubernetes library.Format: format.<name>() and format.named(name) give a NamedFormat whose validate(string)
// returns optional.none() for a valid string, else optional.of(the list of error messages), with the validators
// and messages of k8s.io/apimachinery (util/validation, api/validation) and kube-openapi strfmt.

import { arity, defineGlobal, defineMember, stringArg } from '../functions.js';
import { parseTimestamp } from '../time.js';
import { CelObject, CelOptional, celType, noSuchOverload } from '../values.js';
import { FORMAT_NAMES } from './format-names.js';
import { requestURIError } from './url.js';

const FORMAT_TYPE = celType('kubernetes.NamedFormat');

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join('or ')}regex used for validation is '${fmt}')`;
}

const maxLenError = (n: number): string => `must be no more than ${n} characters`;
const EMPTY_ERROR = 'must be non-empty';
const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const DNS1035_LABEL = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!DNS1123_LABEL.test(value)) {
    if (DNS1123_SUBDOMAIN.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!DNS1035_LABEL.test(value)) errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}

export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  switch (parts.length) {
    case 1:
      name = parts[0]!;
      break;
    case 2: {
      const prefix = parts[0]!;
      name = parts[1]!;
      if (prefix.length === 0) errs.push(`prefix part ${EMPTY_ERROR}`);
      else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
      break;
    }
    default:
      return [
        `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      ];
  }
  if (name.length === 0) errs.push(`name part ${EMPTY_ERROR}`);
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!QUALIFIED_NAME.test(name)) errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!LABEL_VALUE.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** apimachinery api/validation maskTrailingDash: prefixes of generated names may end with '-'. */
function maskTrailingDash(s: string): string {
  return s.length > 1 && s.endsWith('-') ? `${s.slice(0, -1)}a` : s;
}

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
