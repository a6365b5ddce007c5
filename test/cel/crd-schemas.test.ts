// Custom resources' types from their CRDs, as upstream's common.SchemaDeclType makes them from the published schema
// (k8s.io/apiserver pkg/cel/common/schemas.go, pkg/cel/escaping.go): escaped property names, int-or-string as dyn,
// formats, embedded resources with kind/apiVersion/metadata{name, generateName}, metadata as ObjectMeta at the root,
// properties without a type left out, and the REST mapping by plural and singular name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kindObjectTypes, typeCheckExpression } from '../../lib/cel/index.js';
import { crdSchemas, escapeFieldName } from '../../lib/cel/schemas/crd.js';

const source = crdSchemas([{
  kind: 'CustomResourceDefinition',
  spec: {
    group: 'example.com',
    names: { kind: 'Widget', plural: 'widgets', singular: 'widget' },
    versions: [
      { name: 'v1', served: true, schema: { openAPIV3Schema: {
        type: 'object',
        properties: {
          spec: { type: 'object', properties: {
            size: { type: 'integer' },
            'max-size': { type: 'integer' },
            port: { 'x-kubernetes-int-or-string': true },
            since: { type: 'string', format: 'date-time' },
            timeout: { type: 'string', format: 'duration' },
            blob: { type: 'string', format: 'byte' },
            template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { data: { type: 'string' } } },
            anything: { description: 'no type' },
            labels: { type: 'object', additionalProperties: { type: 'string' } },
          } },
        },
      } } },
      { name: 'v2', served: false },
    ],
  },
}]);

function check(expression: string): string | undefined {
  const gvk = source.kindsFor('example.com', 'v1', 'Widgets')![0]!;
  return typeCheckExpression({ expression, environment: 'validatingPolicy' }, kindObjectTypes(source.schemaOf(gvk)!, gvk.kind)).issues?.split('\n')[0];
}

test('CRD schemas: REST mapping by plural and singular, served versions only', () => {
  assert.deepEqual(source.kindsFor('example.com', 'v1', 'widget'), [{ group: 'example.com', version: 'v1', kind: 'Widget' }]);
  assert.equal(source.kindsFor('example.com', 'v2', 'widgets'), undefined);
  assert.equal(source.kindsFor('example.com', 'v1', 'gadgets'), undefined);
});

test('CRD schemas: field types as SchemaDeclType gives them', () => {
  assert.equal(check("object.spec.size > 1 && object.spec.max__dash__size > 1 && object.spec.labels['a'] == 'b'"), undefined);
  assert.equal(check('object.spec.size == "1"'), "ERROR: <input>:1:18: found no matching overload for '_==_' applied to '(int, string)'");
  assert.equal(check('object.spec.port == 1 || object.spec.port == "http"'), undefined);
  assert.equal(check("object.spec.since < timestamp('2020-01-01T00:00:00Z') && object.spec.timeout > duration('1s') && object.spec.blob == b'x'"), undefined);
  assert.equal(check("object.spec.template.kind == 'Pod' && object.spec.template.metadata.name == 'x' && object.spec.template.data == 'y'"), undefined);
  assert.equal(check("object.spec.template.metadata.labels['a'] == 'b'"), "ERROR: <input>:1:30: undefined field 'labels'");
  assert.equal(check("object.metadata.labels['a'] == 'b' && object.metadata.namespace == 'x' && object.kind == 'Widget'"), undefined);
  assert.equal(check('object.spec.anything == 1'), "ERROR: <input>:1:12: undefined field 'anything'");
});

test('CEL field-name escaping (escaping.go)', () => {
  assert.equal(escapeFieldName('namespace'), '__namespace__');
  assert.equal(escapeFieldName('a-b.c/d'), 'a__dash__b__dot__c__slash__d');
  assert.equal(escapeFieldName('a__b'), 'a__underscores__b');
  assert.equal(escapeFieldName('$ref'), undefined);
  assert.equal(escapeFieldName('1abc'), undefined);
});
