// Kubernetes' CEL libraries as k8s.io/apiserver v0.36 pkg/cel/library declares them (lists.go, regex.go, urls.go,
// quantity.go, ip.go, cidr.go, semver.go, format.go, authz.go with the selectors, jsonpatch.go), and cel-go's
// ext.Lists at version 3 (ext/lists.go), which environment/base.go adds from 1.34. The library types are declared
// with cel.ObjectType, so they are struct types to the checker (nullable, no fields).
import { FORMAT_NAMES } from '../runtime/k8s/format-names.js';

/** comparableTypes of library/lists.go and ext/lists.go */
const COMPARABLE = ['int', 'uint', 'double', 'bool', 'duration', 'timestamp', 'string', 'bytes'];
/** summableTypes of library/lists.go */
const SUMMABLE = ['int', 'uint', 'double', 'duration'];

const AUTHZ = 'kubernetes.authorization';

export const KUBERNETES_LIBRARIES: readonly string[] = [
  // library.Lists
  ...COMPARABLE.map((t) => `(list(${t})).isSorted() bool`),
  ...SUMMABLE.map((t) => `(list(${t})).sum() ${t}`),
  ...COMPARABLE.map((t) => `(list(${t})).min() ${t}`),
  ...COMPARABLE.map((t) => `(list(${t})).max() ${t}`),
  ...COMPARABLE.map((t) => `(list(${t})).indexOf(${t}) int`),
  ...COMPARABLE.map((t) => `(list(${t})).lastIndexOf(${t}) int`),
  // library.Regex
  '(string).find(string) string',
  '(string).findAll(string) list(string)',
  '(string).findAll(string, int) list(string)',
  // library.URLs
  'url(string) kubernetes.URL',
  'isURL(string) bool',
  '(kubernetes.URL).getScheme() string',
  '(kubernetes.URL).getHost() string',
  '(kubernetes.URL).getHostname() string',
  '(kubernetes.URL).getPort() string',
  '(kubernetes.URL).getEscapedPath() string',
  '(kubernetes.URL).getQuery() map(string, list(string))',
  // library.Quantity
  'quantity(string) kubernetes.Quantity',
  'isQuantity(string) bool',
  'sign(kubernetes.Quantity) int',
  '(kubernetes.Quantity).sign() int',
  '(kubernetes.Quantity).isInteger() bool',
  '(kubernetes.Quantity).asInteger() int',
  '(kubernetes.Quantity).asApproximateFloat() double',
  '(kubernetes.Quantity).add(kubernetes.Quantity) kubernetes.Quantity',
  '(kubernetes.Quantity).add(int) kubernetes.Quantity',
  '(kubernetes.Quantity).sub(kubernetes.Quantity) kubernetes.Quantity',
  '(kubernetes.Quantity).sub(int) kubernetes.Quantity',
  '(kubernetes.Quantity).isGreaterThan(kubernetes.Quantity) bool',
  '(kubernetes.Quantity).isLessThan(kubernetes.Quantity) bool',
  '(kubernetes.Quantity).compareTo(kubernetes.Quantity) int',
  // library.IP
  'ip(string) net.IP',
  'isIP(string) bool',
  'ip.isCanonical(string) bool',
  'string(net.IP) string',
  '(net.IP).family() int',
  '(net.IP).isUnspecified() bool',
  '(net.IP).isLoopback() bool',
  '(net.IP).isLinkLocalMulticast() bool',
  '(net.IP).isLinkLocalUnicast() bool',
  '(net.IP).isGlobalUnicast() bool',
  // library.CIDR
  'cidr(string) net.CIDR',
  'isCIDR(string) bool',
  'string(net.CIDR) string',
  '(net.CIDR).containsIP(string) bool',
  '(net.CIDR).containsIP(net.IP) bool',
  '(net.CIDR).containsCIDR(string) bool',
  '(net.CIDR).containsCIDR(net.CIDR) bool',
  '(net.CIDR).ip() net.IP',
  '(net.CIDR).masked() net.CIDR',
  '(net.CIDR).prefixLength() int',
  // library.SemverLib, version 1
  'semver(string) kubernetes.Semver',
  'semver(string, bool) kubernetes.Semver',
  'isSemver(string) bool',
  'isSemver(string, bool) bool',
  '(kubernetes.Semver).major() int',
  '(kubernetes.Semver).minor() int',
  '(kubernetes.Semver).patch() int',
  '(kubernetes.Semver).isGreaterThan(kubernetes.Semver) bool',
  '(kubernetes.Semver).isLessThan(kubernetes.Semver) bool',
  '(kubernetes.Semver).compareTo(kubernetes.Semver) int',
  // library.Format
  ...FORMAT_NAMES.map((n) => `format.${n}() kubernetes.NamedFormat`),
  'format.named(string) optional(kubernetes.NamedFormat)',
  '(kubernetes.NamedFormat).validate(string) optional(list(string))',
  // library.Authz and library.AuthzSelectors
  `(${AUTHZ}.Authorizer).path(string) ${AUTHZ}.PathCheck`,
  `(${AUTHZ}.Authorizer).group(string) ${AUTHZ}.GroupCheck`,
  `(${AUTHZ}.Authorizer).serviceAccount(string, string) ${AUTHZ}.Authorizer`,
  `(${AUTHZ}.GroupCheck).resource(string) ${AUTHZ}.ResourceCheck`,
  `(${AUTHZ}.ResourceCheck).subresource(string) ${AUTHZ}.ResourceCheck`,
  `(${AUTHZ}.ResourceCheck).namespace(string) ${AUTHZ}.ResourceCheck`,
  `(${AUTHZ}.ResourceCheck).name(string) ${AUTHZ}.ResourceCheck`,
  `(${AUTHZ}.ResourceCheck).fieldSelector(string) ${AUTHZ}.ResourceCheck`,
  `(${AUTHZ}.ResourceCheck).labelSelector(string) ${AUTHZ}.ResourceCheck`,
  `(${AUTHZ}.PathCheck).check(string) ${AUTHZ}.Decision`,
  `(${AUTHZ}.ResourceCheck).check(string) ${AUTHZ}.Decision`,
  `(${AUTHZ}.Decision).allowed() bool`,
  `(${AUTHZ}.Decision).reason() string`,
  `(${AUTHZ}.Decision).errored() bool`,
  `(${AUTHZ}.Decision).error() string`,
];

/** ext.Lists version 3 (sortBy is a macro, checked by the checker). */
export const LISTS_EXTENSION: readonly string[] = [
  '(list(T)).slice(int, int) list(T)',
  '(list(list(T))).flatten() list(T)',
  '(list(dyn)).flatten(int) list(dyn)',
  ...COMPARABLE.map((t) => `(list(${t})).sort() list(${t})`),
  ...COMPARABLE.map((t) => `(list(T)).@sortByAssociatedKeys(list(${t})) list(T)`),
  'lists.range(int) list(int)',
  '(list(T)).reverse() list(T)',
  '(list(T)).distinct() list(T)',
];

/** library.JSONPatch: declared for mutations only (compile.go hasPatchTypes). */
export const JSON_PATCH_LIBRARY: readonly string[] = ['jsonpatch.escapeKey(string) string'];
