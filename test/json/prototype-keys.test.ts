// Keys named like Object.prototype members, where data (a request, a manifest, a suite, a kubeconfig, a flag) names
// the key: each finds only an own property, and each is written as an own property (assigning `o['__proto__']`
// would replace the prototype instead). The end-to-end side of this is test/e2e/prototype-keys.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultObject } from '../../lib/admission/defaulting/index.js';
import { decodeError } from '../../lib/admission/mutating/strict-decode.js';
import { parseFeatureGates } from '../../lib/config/feature-gates.js';
import { cloneJson, copyObject, diffJson, equalJson, ownValue, setOwn } from '../../lib/json/index.js';
import { parseManifestDocument } from '../../lib/manifest/document.js';
import { parseRegistration } from '../../lib/registration/registered.js';

const names = Object.getOwnPropertyNames(Object.prototype);

/** `{ [key]: value }` as JSON.parse makes it: an own property, whatever the name. */
const own = (key: string, value: unknown): Record<string, unknown> => JSON.parse(JSON.stringify({ [`zz${key}`]: value }).replace(`zz${key}`, key)) as Record<string, unknown>;

test('ownValue and setOwn: only own properties, __proto__ included', () => {
  for (const name of names) {
    assert.equal(ownValue({}, name), undefined, name);
    assert.equal(ownValue(own(name, 1), name), 1, name);
    assert.deepEqual(ownValue(own(name, { x: 1 }), name), { x: 1 }, name);
    assert.equal(ownValue(Object.create(null) as Record<string, unknown>, name), undefined, name);
    const f = (): number => 1;
    assert.equal(ownValue({ [name]: f }, name), f, name);
    const o: Record<string, unknown> = {};
    setOwn(o, name, { x: 1 });
    assert.ok(Object.hasOwn(o, name), name);
    assert.equal(Object.getPrototypeOf(o), Object.prototype, name);
    assert.deepEqual(Object.keys(o), [name]);
  }
});

test('clone, equality and diff see a __proto__ key as data', () => {
  const doc = own('__proto__', { polluted: 'yes' });
  const copy = cloneJson(doc);
  assert.deepEqual(Object.keys(copy), ['__proto__']);
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.equal(equalJson(doc, copy), true);
  assert.equal(equalJson(doc, {}), false);
  assert.deepEqual(diffJson(own('constructor', 'a'), {}), [{ op: 'remove', path: '/constructor' }]);
  assert.deepEqual(diffJson({}, own('toString', 'a')), [{ op: 'add', path: '/toString', value: 'a' }]);
});

test('strict decoding: a prototype-named field is an unknown field like any other (sigs.k8s.io/json matches case-sensitively)', () => {
  // k8s.io/apimachinery runtime/serializer/json/json.go: UnmarshalStrict; sigs.k8s.io/json: case-sensitive fields
  for (const name of names) {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', ...own(name, 'v') }, spec: { containers: [] } };
    assert.equal(decodeError('v1', 'Pod', pod), `strict decoding error: unknown field "metadata.${name}"`, name);
  }
});

test('defaulting: a limit named like a prototype member becomes a request (SetDefaults_Pod)', () => {
  for (const name of ['constructor', 'toString', '__proto__']) {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i', resources: { limits: own(name, '1') } }] } };
    const defaulted = defaultObject(pod, { apiVersion: 'v1', kind: 'Pod' }) as { spec: { containers: Array<{ resources: { requests?: Record<string, unknown> } }> } };
    const requests = defaulted.spec.containers[0]!.resources.requests ?? {};
    assert.deepEqual(Object.keys(requests), [name], name);
    assert.equal(Object.getOwnPropertyDescriptor(requests, name)?.value, '1', name);
  }
});

test('YAML manifests: __proto__ and other prototype-named keys are own keys', () => {
  for (const text of ['m:\n  __proto__: {polluted: yes}\n  constructor: x\n', 'm: &a\n  __proto__: {polluted: yes}\n  constructor: x\nn: *a\n']) {
    const doc = parseManifestDocument(text).value as Record<string, Record<string, unknown>>;
    const m = doc['m']!;
    assert.deepEqual(Object.keys(m), ['__proto__', 'constructor']);
    assert.equal(Object.getPrototypeOf(m), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(m, '__proto__')?.value, { polluted: true });
    assert.equal(m['constructor'], 'x');
  }
});

test('YAML merge keys (go-yaml <<) merge, prototype-named keys included; the map own keys win; a quoted "<<" is a key', () => {
  const doc = parseManifestDocument('base: &b {constructor: x, valueOf: y, a: 1}\nm:\n  <<: [*b]\n  valueOf: z\n  __proto__: {polluted: yes}\nq: {"<<": 1}\n').value as Record<string, Record<string, unknown>>;
  const m = doc['m']!;
  assert.deepEqual(Object.keys(m).sort(), ['__proto__', 'a', 'constructor', 'valueOf']);
  assert.equal(Object.getPrototypeOf(m), Object.prototype);
  assert.equal(m['constructor'], 'x');
  assert.equal(m['valueOf'], 'z');
  assert.deepEqual(doc['q'], { '<<': 1 });
});

test('feature gates named like prototype members are unrecognized', () => {
  for (const name of names) assert.throws(() => parseFeatureGates(`${name}=true`), { message: `unrecognized feature gate: ${name}` }, name);
});

test('a registration document whose kind is a prototype name is not a webhook configuration', () => {
  for (const name of names) {
    assert.deepEqual(parseRegistration(`kind: ${name}\nwebhooks: []\n`, 'r.yaml').sides, { validating: null, mutating: null }, name);
  }
});

test('copyObject: a new object with the same own keys in order, __proto__ kept as data', () => {
  for (const name of names) {
    const o = JSON.parse(`{"a":1,${JSON.stringify(name)}:{"x":[1]},"b":null}`) as Record<string, unknown>;
    const copy = copyObject(o);
    assert.notEqual(copy, o);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype, name);
    assert.deepEqual(Object.keys(copy), Object.keys(o), name);
    assert.equal(copy[name], o[name], name);
    assert.equal(JSON.stringify(copy), JSON.stringify(o), name);
  }
});
