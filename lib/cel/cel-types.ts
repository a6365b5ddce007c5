// CEL type names: parses the engine's spelling (`list<int>`, `map<string, dyn>`, `null`) into a small tree and
// prints it the two ways cel-go does, so messages read like upstream's. Also the few type relations the
// aggregate-literal check needs (cel-go checker/types.go, simplified: no type parameters survive checking here).

export interface CelType {
  readonly name: string;
  readonly params: readonly CelType[];
}

const DYN: CelType = { name: 'dyn', params: [] };
const parsed = new Map<string, CelType>();

/** Parses an engine type name. Unknown names are kept as they are (message types, namespaces). */
export function parseEngineType(name: string): CelType {
  let type = parsed.get(name);
  if (type === undefined) {
    type = parseUncached(name.trim());
    parsed.set(name, type);
  }
  return type;
}

function parseUncached(name: string): CelType {
  // Single capital letters are the engine's type parameters (`list<T>` for `[]`); once checked they mean dyn.
  if (/^[A-Z]$/.test(name)) return DYN;
  if (name === 'list') return { name: 'list', params: [DYN] };
  if (name === 'map') return { name: 'map', params: [DYN, DYN] };
  const open = name.indexOf('<');
  if (open < 0 || !name.endsWith('>')) return { name, params: [] };
  const params: CelType[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = start; i < name.length - 1; i++) {
    const c = name[i];
    if (c === '<') depth++;
    else if (c === '>') depth--;
    else if (c === ',' && depth === 0) {
      params.push(parseEngineType(name.slice(start, i)));
      start = i + 1;
    }
  }
  params.push(parseEngineType(name.slice(start, name.length - 1)));
  return { name: name.slice(0, open), params };
}

const STRING_NAMES: Readonly<Record<string, string>> = { null: 'null_type', optional: 'optional_type' };
const FORMAT_NAMES: Readonly<Record<string, string>> = {
  optional: 'optional_type',
  'google.protobuf.Timestamp': 'timestamp',
  'google.protobuf.Duration': 'duration',
};

/** cel-go `(*types.Type).String()`: used by compile.go's `must evaluate to …` messages. */
export function typeString(type: CelType): string {
  const name = STRING_NAMES[type.name] ?? type.name;
  return type.params.length === 0 ? name : `${name}(${type.params.map(typeString).join(', ')})`;
}

/** cel-go `checker.FormatCELType`: used inside checker messages (`applied to '(int, string)'`). */
export function formatType(type: CelType): string {
  const name = FORMAT_NAMES[type.name] ?? type.name;
  return type.params.length === 0 ? name : `${name}(${type.params.map(formatType).join(', ')})`;
}

export function isDyn(type: CelType): boolean {
  return type.name === 'dyn' || type.name === 'any';
}

const NULLABLE = new Set(['null', 'google.protobuf.Timestamp', 'google.protobuf.Duration', 'optional', 'any']);
const BUILT_IN = new Set(['bool', 'bytes', 'double', 'int', 'string', 'uint', 'type', 'list', 'map', 'optional', 'null', 'dyn', 'any', 'google.protobuf.Timestamp', 'google.protobuf.Duration']);

function isNullable(type: CelType): boolean {
  // Message types (anything not built in) are nullable in cel-go's legacy rules.
  return NULLABLE.has(type.name) || !BUILT_IN.has(type.name);
}

/** Whether a value of type `to` may stand where `from` was seen first (cel-go `internalIsAssignable`). */
export function isAssignable(from: CelType, to: CelType): boolean {
  if (isDyn(from) || isDyn(to)) return true;
  if (from.name === 'null') return isNullable(to);
  if (to.name === 'null') return isNullable(from);
  if (from.name !== to.name || from.params.length !== to.params.length) return false;
  return from.params.every((p, i) => isAssignable(p, to.params[i]));
}

/** The more general of two assignable types (cel-go `mostGeneral`). */
export function mostGeneral(a: CelType, b: CelType): CelType {
  if (isDyn(a)) return a;
  if (isDyn(b)) return b;
  if (a.name === 'null') return b;
  if (a.params.length === 0 || a.name !== b.name || a.params.length !== b.params.length) return a;
  return { name: a.name, params: a.params.map((p, i) => mostGeneral(p, b.params[i])) };
}
