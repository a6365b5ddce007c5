// String checks of k8s.io/apimachinery v0.36, returning upstream's messages: pkg/util/validation (IsDNS1123Label,
// IsDNS1123Subdomain, IsDNS1035Label), pkg/api/validate/content (IsLabelKey a.k.a. IsQualifiedName, IsLabelValue,
// IsPathSegmentName) and pkg/api/validation (NameIsDNSSubdomain). Shared by REST validation and the CEL format
// library, which upstream both build on these functions.
// Note the two packages word length errors differently: util/validation says "characters", content says "bytes".

function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** util/validation.MaxLenError */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** content.MaxLenError */
function contentMaxLenError(length: number): string {
  return `must be no more than ${length} bytes`;
}

/** RegexError (identical in util/validation and content) */
export function regexError(msg: string, re: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${re}')`;
  let out = `${msg} (e.g. `;
  examples.forEach((example, i) => {
    if (i > 0) out += ' or ';
    out += `'${example}', `;
  });
  return `${out}regex used for validation is '${re}')`;
}

const emptyError = 'must be non-empty';

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123LabelRegexp = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrorMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1123SubdomainRegexp = new RegExp(`^${dns1123SubdomainFmt}$`);
const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const dns1035LabelRegexp = new RegExp(`^${dns1035LabelFmt}$`);

/** util/validation.IsDNS1123Label */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!dns1123LabelRegexp.test(value)) {
    if (dns1123SubdomainRegexp.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

/** util/validation.IsDNS1123Subdomain */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!dns1123SubdomainRegexp.test(value)) errs.push(regexError(dns1123SubdomainErrorMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

/** content.IsDNS1123Subdomain (used for label-key prefixes) */
function contentIsDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(contentMaxLenError(253));
  if (!dns1123SubdomainRegexp.test(value)) errs.push(regexError(dns1123SubdomainErrorMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

/** util/validation.IsDNS1035Label */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!dns1035LabelRegexp.test(value)) errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
}

const labelKeyCharFmt = '[A-Za-z0-9]';
const labelKeyExtCharFmt = '[-A-Za-z0-9_.]';
const labelKeyFmt = `(${labelKeyCharFmt}${labelKeyExtCharFmt}*)?${labelKeyCharFmt}`;
const labelKeyErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelKeyRegexp = new RegExp(`^${labelKeyFmt}$`);

/** content.IsLabelKey, which util/validation exports as IsQualifiedName */
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
      if (prefix.length === 0) errs.push(`prefix part ${emptyError}`);
      else errs.push(...contentIsDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
      break;
    }
    default:
      errs.push(
        `a valid label key ${regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc')}` +
          " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      );
      return errs;
  }
  if (name.length === 0) errs.push(`name part ${emptyError}`);
  else if (byteLength(name) > 63) errs.push(`name part ${contentMaxLenError(63)}`);
  if (!labelKeyRegexp.test(name)) errs.push(`name part ${regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

const labelValueFmt = `(${labelKeyFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueRegexp = new RegExp(`^${labelValueFmt}$`);

/** content.IsLabelValue, which util/validation exports as IsValidLabelValue */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(contentMaxLenError(63));
  if (!labelValueRegexp.test(value)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** content.IsPathSegmentName (also path.ValidatePathSegmentName(name, false)) */
export function isPathSegmentName(name: string): string[] {
  for (const illegal of ['.', '..']) {
    if (name === illegal) return [`may not be '${illegal}'`];
  }
  const errs: string[] = [];
  for (const illegal of ['/', '%']) {
    if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  }
  return errs;
}

/** apimachinery/pkg/api/validation maskTrailingDash */
export function maskTrailingDash(name: string): string {
  if (name.length > 1 && name.endsWith('-')) return `${name.slice(0, -2)}a`;
  return name;
}

/** apimachinery/pkg/api/validation.NameIsDNSSubdomain */
export function nameIsDNSSubdomain(name: string, prefix: boolean): string[] {
  return isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
}
