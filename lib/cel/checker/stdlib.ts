// cel-go v0.26.0's declarations, as the checker needs them: common/stdlib/standard.go (operators, conversions,
// size, string and time functions), cel/library.go's optional types, ext/strings.go (by version) and ext/sets.go.
// Overload order follows cel-go's: when several overloads match with different results the result is dyn.

const COMPARABLE_PAIRS = [
  'bool, bool',
  'int, int',
  'int, double',
  'int, uint',
  'uint, uint',
  'uint, double',
  'uint, int',
  'double, double',
  'double, int',
  'double, uint',
  'string, string',
  'bytes, bytes',
  'timestamp, timestamp',
  'duration, duration',
];

const TIME_ACCESSORS = ['getFullYear', 'getMonth', 'getDayOfYear', 'getDayOfMonth', 'getDate', 'getDayOfWeek', 'getHours', 'getMinutes', 'getSeconds', 'getMilliseconds'];
const DURATION_ACCESSORS = ['getHours', 'getMinutes', 'getSeconds', 'getMilliseconds'];

export const STANDARD: readonly string[] = [
  '_?_:_(bool, A, A) A',
  '_&&_(bool, bool) bool',
  '_||_(bool, bool) bool',
  '!_(bool) bool',
  '_==_(A, A) bool',
  '_!=_(A, A) bool',
  '_+_(bytes, bytes) bytes',
  '_+_(double, double) double',
  '_+_(duration, duration) duration',
  '_+_(duration, timestamp) timestamp',
  '_+_(timestamp, duration) timestamp',
  '_+_(int, int) int',
  '_+_(list(A), list(A)) list(A)',
  '_+_(string, string) string',
  '_+_(uint, uint) uint',
  '_/_(double, double) double',
  '_/_(int, int) int',
  '_/_(uint, uint) uint',
  '_%_(int, int) int',
  '_%_(uint, uint) uint',
  '_*_(double, double) double',
  '_*_(int, int) int',
  '_*_(uint, uint) uint',
  '-_(double) double',
  '-_(int) int',
  '_-_(double, double) double',
  '_-_(duration, duration) duration',
  '_-_(int, int) int',
  '_-_(timestamp, duration) timestamp',
  '_-_(timestamp, timestamp) duration',
  '_-_(uint, uint) uint',
  ...['_<_', '_<=_', '_>_', '_>=_'].flatMap((op) => COMPARABLE_PAIRS.map((pair) => `${op}(${pair}) bool`)),
  '_[_](list(A), int) A',
  '_[_](map(A, B), A) B',
  '@in(A, list(A)) bool',
  '@in(A, map(A, B)) bool',
  'size(bytes) int',
  '(bytes).size() int',
  'size(list(A)) int',
  '(list(A)).size() int',
  'size(map(A, B)) int',
  '(map(A, B)).size() int',
  'size(string) int',
  '(string).size() int',
  'type(A) type(A)',
  'bool(bool) bool',
  'bool(string) bool',
  'bytes(bytes) bytes',
  'bytes(string) bytes',
  'double(double) double',
  'double(int) double',
  'double(string) double',
  'double(uint) double',
  'duration(duration) duration',
  'duration(int) duration',
  'duration(string) duration',
  'dyn(A) dyn',
  'int(int) int',
  'int(double) int',
  'int(duration) int',
  'int(string) int',
  'int(timestamp) int',
  'int(uint) int',
  'string(string) string',
  'string(bool) string',
  'string(bytes) string',
  'string(double) string',
  'string(duration) string',
  'string(int) string',
  'string(timestamp) string',
  'string(uint) string',
  'timestamp(timestamp) timestamp',
  'timestamp(int) timestamp',
  'timestamp(string) timestamp',
  'uint(uint) uint',
  'uint(double) uint',
  'uint(int) uint',
  'uint(string) uint',
  '(string).contains(string) bool',
  '(string).endsWith(string) bool',
  '(string).startsWith(string) bool',
  'matches(string, string) bool',
  '(string).matches(string) bool',
  ...TIME_ACCESSORS.flatMap((f) => [`(timestamp).${f}() int`, `(timestamp).${f}(string) int`]),
  ...DURATION_ACCESSORS.map((f) => `(duration).${f}() int`),
];

/** cel.OptionalTypes() (cel/library.go), at the version Kubernetes gets (the latest). */
export const OPTIONALS: readonly string[] = [
  'optional.of(T) optional(T)',
  'optional.ofNonZeroValue(T) optional(T)',
  'optional.none() optional(T)',
  '(optional(T)).value() T',
  '(optional(T)).hasValue() bool',
  '(optional(T)).or(optional(T)) optional(T)',
  '(optional(T)).orValue(T) T',
  '_[?_](map(K, V), K) optional(V)',
  '_[?_](optional(map(K, V)), K) optional(V)',
  '_[?_](list(V), int) optional(V)',
  '_[?_](optional(list(V)), int) optional(V)',
  '_[_](optional(map(K, V)), K) optional(V)',
  '_[_](optional(list(V)), int) optional(V)',
  'optional.unwrap(list(optional(V))) list(V)',
  '(list(optional(V))).unwrapOpt() list(V)',
];

/** ext.Strings at `version` (ext/strings.go). */
export function stringsExtension(version: number): string[] {
  const lines = [
    '(string).charAt(int) string',
    '(string).indexOf(string) int',
    '(string).indexOf(string, int) int',
    '(string).lastIndexOf(string) int',
    '(string).lastIndexOf(string, int) int',
    '(string).lowerAscii() string',
    '(string).replace(string, string) string',
    '(string).replace(string, string, int) string',
    '(string).split(string) list(string)',
    '(string).split(string, int) list(string)',
    '(string).substring(int) string',
    '(string).substring(int, int) string',
    '(string).trim() string',
    '(string).upperAscii() string',
  ];
  if (version >= 1) lines.push('(string).format(list(dyn)) string', 'strings.quote(string) string');
  if (version >= 2) lines.push('(list(string)).join() string', '(list(string)).join(string) string');
  if (version >= 3) lines.push('(string).reverse() string');
  return lines;
}

/** ext.Sets (ext/sets.go). */
export const SETS: readonly string[] = ['sets.contains(list(T), list(T)) bool', 'sets.equivalent(list(T), list(T)) bool', 'sets.intersects(list(T), list(T)) bool'];

/**
 * Type names declared as identifiers (standard.go's type declarations, OptionalTypes' optional_type). `timestamp`
 * and `duration` are declared to the checker (stdlib types.TimestampType, types.DurationType) but the interpreter has
 * no such type name: a program naming them fails to instantiate (runtime/planner.ts). `dyn` is no identifier
 * (`undeclared reference to 'dyn'`); `dyn(x)` is a function.
 */
export const TYPE_IDENTIFIERS: readonly string[] = [
  'timestamp',
  'duration',
  'bool',
  'bytes',
  'double',
  'google.protobuf.Duration',
  'int',
  'list',
  'map',
  'null_type',
  'string',
  'google.protobuf.Timestamp',
  'type',
  'uint',
  'optional_type',
];
