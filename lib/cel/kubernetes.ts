// Engine declarations of the Kubernetes CEL libraries (k8s.io/apiserver/pkg/cel/library, as environment/base.go
// enables them for 1.33: Lists, Regex, URLs, Quantity, IP, CIDR, Format, Semver v1) and of cel-go's ext.Sets, for
// the type checker. The implementations are in runtime/k8s/.

import type { Environment } from '@marcbachmann/cel-js';
import { declareNamespace, engineTypeValue } from './library.js';
import { FORMAT_NAMES } from './runtime/k8s/format-names.js';

function notEvaluatedHere(): never {
  throw new Error('lib/cel evaluates with its own planner, not the engine');
}

function declare(env: Environment, signatures: readonly string[]): void {
  for (const s of signatures) env.registerFunction(s, notEvaluatedHere);
}

/** Opaque object types of the libraries, as cel-go names them. */
const AUTHZ = 'kubernetes.authorization';
const TYPES = [
  'kubernetes.URL', 'kubernetes.Quantity', 'net.IP', 'net.CIDR', 'kubernetes.Semver', 'kubernetes.NamedFormat',
  `${AUTHZ}.Authorizer`, `${AUTHZ}.PathCheck`, `${AUTHZ}.GroupCheck`, `${AUTHZ}.ResourceCheck`, `${AUTHZ}.Decision`,
] as const;

export function declareKubernetesLibraries(env: Environment): void {
  // `net.IP` and `net.CIDR` name their types (cel-go resolves them as qualified identifiers).
  env.registerConstant('net', 'map<string, type>', { IP: engineTypeValue('net.IP'), CIDR: engineTypeValue('net.CIDR') });
  for (const name of TYPES) {
    env.registerType(name, { [name]: class {} }[name]!);
    env.registerOperator(`${name} == ${name}`, notEvaluatedHere);
  }

  // library.Lists
  declare(env, [
    'list<A>.isSorted(): bool',
    'list<A>.sum(): A',
    'list<A>.min(): A',
    'list<A>.max(): A',
    'list<A>.indexOf(A): int',
    'list<A>.lastIndexOf(A): int',
  ]);
  // library.Regex
  declare(env, ['string.find(string): string', 'string.findAll(string): list<string>', 'string.findAll(string, int): list<string>']);
  // library.URLs
  declare(env, [
    'url(string): kubernetes.URL',
    'isURL(string): bool',
    'kubernetes.URL.getScheme(): string',
    'kubernetes.URL.getHost(): string',
    'kubernetes.URL.getHostname(): string',
    'kubernetes.URL.getPort(): string',
    'kubernetes.URL.getEscapedPath(): string',
    'kubernetes.URL.getQuery(): map<string, list<string>>',
  ]);
  // library.Quantity
  declare(env, [
    'quantity(string): kubernetes.Quantity',
    'isQuantity(string): bool',
    'sign(kubernetes.Quantity): int',
    'kubernetes.Quantity.sign(): int',
    'kubernetes.Quantity.isInteger(): bool',
    'kubernetes.Quantity.asInteger(): int',
    'kubernetes.Quantity.asApproximateFloat(): double',
    'kubernetes.Quantity.add(kubernetes.Quantity): kubernetes.Quantity',
    'kubernetes.Quantity.add(int): kubernetes.Quantity',
    'kubernetes.Quantity.sub(kubernetes.Quantity): kubernetes.Quantity',
    'kubernetes.Quantity.sub(int): kubernetes.Quantity',
    'kubernetes.Quantity.isGreaterThan(kubernetes.Quantity): bool',
    'kubernetes.Quantity.isLessThan(kubernetes.Quantity): bool',
    'kubernetes.Quantity.compareTo(kubernetes.Quantity): int',
  ]);
  // library.IP
  declareNamespace(env, 'ip', 'IPNamespace');
  declare(env, [
    'ip(string): net.IP',
    'isIP(string): bool',
    'IPNamespace.isCanonical(string): bool',
    'string(net.IP): string',
    'net.IP.family(): int',
    'net.IP.isUnspecified(): bool',
    'net.IP.isLoopback(): bool',
    'net.IP.isLinkLocalMulticast(): bool',
    'net.IP.isLinkLocalUnicast(): bool',
    'net.IP.isGlobalUnicast(): bool',
  ]);
  // library.CIDR
  declare(env, [
    'cidr(string): net.CIDR',
    'isCIDR(string): bool',
    'string(net.CIDR): string',
    'net.CIDR.containsIP(string): bool',
    'net.CIDR.containsIP(net.IP): bool',
    'net.CIDR.containsCIDR(string): bool',
    'net.CIDR.containsCIDR(net.CIDR): bool',
    'net.CIDR.ip(): net.IP',
    'net.CIDR.masked(): net.CIDR',
    'net.CIDR.prefixLength(): int',
  ]);
  // library.Semver (version 1: the normalizing overloads)
  declare(env, [
    'semver(string): kubernetes.Semver',
    'semver(string, bool): kubernetes.Semver',
    'isSemver(string): bool',
    'isSemver(string, bool): bool',
    'kubernetes.Semver.major(): int',
    'kubernetes.Semver.minor(): int',
    'kubernetes.Semver.patch(): int',
    'kubernetes.Semver.isGreaterThan(kubernetes.Semver): bool',
    'kubernetes.Semver.isLessThan(kubernetes.Semver): bool',
    'kubernetes.Semver.compareTo(kubernetes.Semver): int',
  ]);
  // library.Format
  declareNamespace(env, 'format', 'FormatNamespace');
  declare(env, [
    ...FORMAT_NAMES.map((n) => `FormatNamespace.${n}(): kubernetes.NamedFormat`),
    'FormatNamespace.named(string): optional<kubernetes.NamedFormat>',
    'kubernetes.NamedFormat.validate(string): optional<list<string>>',
  ]);
  // library.Authz and library.AuthzSelectors (AuthorizeWithSelectors is GA in 1.34)
  declare(env, [
    `${AUTHZ}.Authorizer.path(string): ${AUTHZ}.PathCheck`,
    `${AUTHZ}.Authorizer.group(string): ${AUTHZ}.GroupCheck`,
    `${AUTHZ}.Authorizer.serviceAccount(string, string): ${AUTHZ}.Authorizer`,
    `${AUTHZ}.GroupCheck.resource(string): ${AUTHZ}.ResourceCheck`,
    `${AUTHZ}.ResourceCheck.subresource(string): ${AUTHZ}.ResourceCheck`,
    `${AUTHZ}.ResourceCheck.namespace(string): ${AUTHZ}.ResourceCheck`,
    `${AUTHZ}.ResourceCheck.name(string): ${AUTHZ}.ResourceCheck`,
    `${AUTHZ}.ResourceCheck.fieldSelector(string): ${AUTHZ}.ResourceCheck`,
    `${AUTHZ}.ResourceCheck.labelSelector(string): ${AUTHZ}.ResourceCheck`,
    `${AUTHZ}.PathCheck.check(string): ${AUTHZ}.Decision`,
    `${AUTHZ}.ResourceCheck.check(string): ${AUTHZ}.Decision`,
    `${AUTHZ}.Decision.allowed(): bool`,
    `${AUTHZ}.Decision.reason(): string`,
    `${AUTHZ}.Decision.errored(): bool`,
    `${AUTHZ}.Decision.error(): string`,
  ]);
  // ext.Sets
  declareNamespace(env, 'sets', 'SetsNamespace');
  declare(env, [
    'SetsNamespace.contains(list<A>, list<A>): bool',
    'SetsNamespace.equivalent(list<A>, list<A>): bool',
    'SetsNamespace.intersects(list<A>, list<A>): bool',
  ]);
}
