// The type checker against upstream, one table per group. Each row names the cel-go v0.26.0 or k8s.io/apiserver
// v0.36 source that decides it, and what compiles (with its output type) or what is refused (with the exact
// text). Every row differs from what the engine-based checker did before issue 19.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { compileExpression } from '../../lib/cel/index.js';
import type { CelEnvironment, CompileRequest, ExpectedResult } from '../../lib/cel/index.js';

interface Row {
  readonly expression: string;
  readonly source: string;
  readonly environment?: CelEnvironment;
  readonly expect?: ExpectedResult;
  /** spec.variables declared before the expression: name → output type */
  readonly variables?: Readonly<Record<string, string>>;
  readonly params?: false;
  readonly composition?: false;
  /** compiles, with this output type (cel-go Type.String()) */
  readonly type?: string;
  /** refused: the message's first line */
  readonly error?: string;
}

const at = (position: string, message: string): string => `compilation failed: ERROR: <input>:${position}: ${message}`;
const overload = (position: string, fn: string, args: string): string => at(position, `found no matching overload for '${fn}' applied to '${args}'`);

function run(row: Row): void {
  const request: CompileRequest = { expression: row.expression, environment: row.environment ?? 'validatingPolicy', expect: row.expect ?? 'any' };
  if (row.variables !== undefined) {
    request.variableNames = Object.keys(row.variables);
    request.variableTypes = row.variables;
  }
  if (row.params !== undefined) request.params = row.params;
  if (row.composition !== undefined) request.composition = row.composition;
  const result = compileExpression(request);
  if (row.error !== undefined) {
    if (result.ok) assert.fail(`expected ${row.expression} to be refused (${row.source}), it compiled to ${result.compiled.outputType}`);
    assert.equal(result.message.split('\n')[0], row.error, row.source);
  } else {
    if (!result.ok) assert.fail(`expected ${row.expression} to compile (${row.source}), got: ${result.message}`);
    assert.equal(result.compiled.outputType, row.type, row.source);
  }
}

function table(name: string, rows: readonly Row[]): void {
  describe(name, () => {
    for (const row of rows) it(`${row.expression} → ${row.error ?? row.type} (${row.source})`, () => run(row));
  });
}

const STANDARD = 'cel-go common/stdlib/standard.go';

table('operators: overloads and their result types', [
  { expression: 'request.userInfo.username + 1', source: `${STANDARD} _+_`, error: overload('1:27', '_+_', '(string, int)') },
  { expression: 'request == 1', source: `${STANDARD} _==_(A, A)`, error: overload('1:9', '_==_', '(kubernetes.AdmissionRequest, int)') },
  { expression: 'request.userInfo.extra == 1', source: `${STANDARD} _==_(A, A)`, error: overload('1:24', '_==_', '(map(string, list(string)), int)') },
  { expression: 'request.name.startsWith(1)', source: `${STANDARD} string.startsWith(string)`, error: overload('1:24', 'startsWith', 'string.(int)') },
  { expression: 'object.x.y.orValue(1)', source: 'cel-go cel/library.go optional(T).orValue(T): T bound by the argument', type: 'int' },
  { expression: '[[], [1]]', source: 'cel-go checker/types.go substitute: the empty list takes the joined element type', type: 'list(list(int))' },
  { expression: 'namespaceObject.status.conditions[0].lastTransitionTime', source: 'k8s plugin/cel/compile.go BuildNamespaceType', type: 'google.protobuf.Timestamp' },
  { expression: 'request.userInfo.groups[0]', source: 'k8s plugin/cel/compile.go BuildRequestType: groups list(string)', type: 'string' },
]);

table('macros: typed as their expansions', [
  { expression: 'request.userInfo.groups.exists(g, g)', source: 'cel-go parser/macro.go exists: accu || predicate', error: at('1:35', "expected type 'bool' but found 'string'") },
  { expression: 'request.userInfo.groups.filter(g, g.startsWith("a"))', source: 'cel-go parser/macro.go filter: list of the range element', type: 'list(string)' },
  { expression: 'request.userInfo.extra.transformMap(k, v, v.size())', source: 'cel-go ext/comprehensions.go transformMap: map(key, transform)', type: 'map(string, int)' },
  { expression: 'namespaceObject.status.conditions.map(c, c.lastTransitionTime)', source: 'cel-go parser/macro.go map: accu + [transform]', type: 'list(google.protobuf.Timestamp)' },
  { expression: 'object.items.exists_one(i, 1)', source: 'cel-go parser/macro.go exists_one: predicate ? accu + 1 : accu', error: overload('1:24', '_?_:_', '(int, int, int)') },
  { expression: 'request.userInfo.groups.all(g, 1)', source: 'cel-go parser/macro.go all: accu && predicate', error: at('1:32', "expected type 'bool' but found 'int'") },
]);

table('functions: Kubernetes libraries as k8s.io/apiserver v0.36 declares them', [
  { expression: 'request.userInfo.groups.sum()', source: 'k8s pkg/cel/library/lists.go sum: summable element types only', error: overload('1:28', 'sum', 'list(string).()') },
  { expression: 'lists.range(3)', source: 'cel-go ext/lists.go v2+ lists.range (base.go 1.34: ext.Lists(ListsVersion(3)))', type: 'list(int)' },
  { expression: 'request.userInfo.groups.sortBy(g, g.size())', source: 'cel-go ext/lists.go sortBy → @sortByAssociatedKeys', type: 'list(string)' },
  { expression: '[[1], [2]].flatten().distinct().reverse().slice(0, 1)', source: 'cel-go ext/lists.go flatten, distinct, reverse, slice', type: 'list(int)' },
  { expression: "'abc'.reverse()", source: 'cel-go ext/strings.go: reverse only from version 3; ext/lists.go list(T).reverse()', error: overload('1:14', 'reverse', 'string.()') },
  { expression: 'request.userInfo.groups.min()', source: 'k8s pkg/cel/library/lists.go list_string_min', type: 'string' },
  { expression: 'authorizer != null && authorizer.group("").resource("pods").check("get").allowed()', source: 'k8s pkg/cel/library/authz.go: cel.ObjectType, nullable', type: 'bool' },
]);

table('literals: homogeneous aggregate literals (cel-go v0.26 cel/validator.go, IsEquivalentType)', [
  { expression: "[object.metadata.name, 'default']", source: 'cel-go cel/validator.go homogeneousAggregateLiteralValidator', error: at('1:24', "expected type 'dyn' but found 'string'") },
  { expression: "{'a': 1, 'b': object.x}", source: 'cel-go cel/validator.go homogeneousAggregateLiteralValidator (map values)', error: at('1:21', "expected type 'int' but found 'dyn'") },
  { expression: "[optional.of(1), ?object.?x]", source: 'cel-go cel/validator.go: an optional entry counts as its value type', error: at('1:25', "expected type 'optional_type(int)' but found 'dyn'") },
]);

const NULL = 'cel-go checker/types.go isLegacyNullable';
table('null: assignable to struct, opaque, timestamp, duration and dyn only', [
  { expression: 'authorizer != null', source: `${NULL}: k8s library.AuthorizerType is a struct`, type: 'bool' },
  { expression: 'optional.none() == null', source: `${NULL}: optional_type is opaque`, type: 'bool' },
  { expression: "quantity('1') != null", source: `${NULL}: k8s kubernetes.Quantity is cel.ObjectType`, type: 'bool' },
  { expression: 'request.name != null', source: NULL, error: overload('1:14', '_!=_', '(string, null)') },
  { expression: 'request.dryRun == null', source: NULL, error: overload('1:16', '_==_', '(bool, null)') },
  { expression: 'namespaceObject.metadata.generation != null', source: NULL, error: overload('1:37', '_!=_', '(int, null)') },
  { expression: 'request.userInfo.groups == null', source: NULL, error: overload('1:25', '_==_', '(list(string), null)') },
  { expression: 'null == request.name', source: NULL, error: overload('1:6', '_==_', '(null, string)') },
]);

const COMPOSITION = 'k8s plugin/cel/composition.go AddField(convertCelTypeToDeclType(OutputType))';
table('variables: typed by their output type', [
  { expression: 'variables.v', expect: 'bool', variables: { v: 'string' }, source: `${COMPOSITION}; compile.go`, error: 'must evaluate to bool but got string' },
  { expression: 'variables.v + 1 == 2', variables: { v: 'string' }, source: COMPOSITION, error: overload('1:13', '_+_', '(string, int)') },
  // has() expands to a presence test at the macro call's position, its paren (upstream's TypeChecker run by
  // tools/kind-schemas -check reports `<input>:1:4` for this expression)
  { expression: 'has(variables.v.x)', variables: { v: 'null_type' }, source: COMPOSITION, error: at('1:4', "type 'null_type' does not support field selection") },
  { expression: "variables.v[0] == 'a'", variables: { v: 'list(int)' }, source: COMPOSITION, error: overload('1:16', '_==_', '(int, string)') },
  { expression: 'variables.q', expect: 'bool', variables: { q: 'kubernetes.Quantity' }, source: `${COMPOSITION}: struct types become dyn`, error: 'must evaluate to bool but got dyn' },
  { expression: 'variables.m', variables: { m: 'map(string, optional_type(int))' }, source: `${COMPOSITION}: map values converted, optional to dyn`, type: 'map(string, dyn)' },
  { expression: 'variables.v', variables: { v: 'list(string)' }, environment: 'mutatingPolicy', source: COMPOSITION, type: 'list(string)' },
]);

const COMPILE = 'k8s plugin/cel/compile.go CompileCELExpression: IsExactType';
table('result types: exact, per expression kind', [
  { expression: 'object.spec.paused', expect: 'bool', source: `${COMPILE} (validations)`, error: 'must evaluate to bool but got dyn' },
  { expression: 'object.metadata.name', environment: 'validatingPolicyMessage', expect: 'string', source: `${COMPILE} (messageExpression)`, error: 'must evaluate to string but got dyn' },
  { expression: 'object.metadata.name', expect: 'stringOrNull', source: `${COMPILE} (auditAnnotations: string, null_type)`, error: 'must evaluate to one of [string null_type] but got dyn' },
  { expression: 'request.name', expect: 'bool', source: `${COMPILE} (matchConditions)`, error: 'must evaluate to bool but got string' },
  { expression: 'object.spec.paused', environment: 'webhookMatchCondition', expect: 'bool', source: `${COMPILE} (webhook matchConditions)`, error: 'must evaluate to bool but got dyn' },
  { expression: '[]', environment: 'mutatingPolicy', expect: 'jsonPatch', source: `${COMPILE} (JSONPatch: list(JSONPatch))`, error: 'must evaluate to list(JSONPatch) but got list(dyn)' },
  { expression: 'object.spec', environment: 'mutatingPolicy', expect: 'applyConfiguration', source: `${COMPILE} (ApplyConfiguration: Object)`, error: 'must evaluate to Object but got dyn' },
]);

table('undeclared names: only what each environment declares', [
  { expression: 'params == null', expect: 'bool', params: false, source: 'k8s plugin/cel/compile.go createEnvForOpts: params only with HasParams', error: at('1:1', "undeclared reference to 'params' (in container '')") },
  { expression: 'variables.v', expect: 'bool', composition: false, source: 'k8s validation.go: matchConditions compile without composition', error: at('1:1', "undeclared reference to 'variables' (in container '')") },
  { expression: 'params.x == 1', expect: 'bool', environment: 'mutatingPolicy', params: false, source: 'k8s plugin/cel/compile.go createEnvForOpts', error: at('1:1', "undeclared reference to 'params' (in container '')") },
  { expression: 'namespaceObject == null', expect: 'bool', environment: 'webhookMatchCondition', source: 'k8s plugin/cel/compile.go createEnvForOpts: namespaceObject always declared', type: 'bool' },
]);

const FORMAT = 'cel-go ext/formatting.go stringFormatValidator (ext.Strings v1–v3)';
table('format: literal format calls checked after type-checking', [
  { expression: "'%d'.format(['a'])", source: FORMAT, error: at('1:14', 'error during formatting: decimal clause can only be used on integers, was given string') },
  { expression: "'%s'.format(['a', 'b'])", source: FORMAT, error: at('1:12', 'too many arguments supplied to string.format (expected 1, got 2)') },
  { expression: "'%q'.format([1])", source: FORMAT, error: at('1:12', 'could not parse formatting clause: unrecognized formatting clause "q"') },
  { expression: "'%s'.format([quantity('1')])", source: FORMAT, error: at('1:22', 'error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given kubernetes.Quantity') },
]);

table('messages: types spelled as cel-go FormatCELType / Type.String()', [
  { expression: "type(1) == 'int'", source: 'cel-go checker/format.go FormatCELType: type(int)', error: overload('1:9', '_==_', '(type(int), string)') },
  { expression: 'type(request) == 1', source: 'cel-go checker/format.go FormatCELType', error: overload('1:15', '_==_', '(type(kubernetes.AdmissionRequest), int)') },
  { expression: 'namespaceObject.status.conditions', expect: 'bool', source: 'cel-go common/types/types.go String()', error: 'must evaluate to bool but got list(kubernetes.NamespaceCondition)' },
]);
