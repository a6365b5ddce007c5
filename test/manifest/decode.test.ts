import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeDocumentText } from '../../lib/manifest/decode.js';
import { parseManifestDocument } from '../../lib/manifest/document.js';

const decodeError = (text: string): string => {
  try {
    decodeDocumentText(text, 'policy');
  } catch (err) {
    return (err as Error).message;
  }
  assert.fail('expected a decode error');
};

test('YAML is read as YAML 1.1 (sigs.k8s.io/yaml): yes/on are booleans, 0777 octal, timestamps stay text', () => {
  const { value } = parseManifestDocument('a: yes\nb: on\nc: 0777\nd: 2001-12-14\ne: "yes"\n');
  assert.deepEqual(value, { a: true, b: true, c: 511, d: '2001-12-14', e: 'yes' });
});

test('a document starting with { is JSON; a YAML flow map that is not JSON fails as JSON', () => {
  assert.equal(parseManifestDocument('{"a": 1}').format, 'json');
  assert.match(decodeError('{a: 1}'), /^couldn't get version\/kind; json parse error: /);
});

test('unknown fields are strict errors naming the field path, all reported together', () => {
  const msg = decodeError(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: x.static.k8s.io, foo: 1}
webhooks:
- name: a.b.c
  bogus: true
spec: {}
`);
  // in sorted key order (YAMLToJSON), as the upstream-oracle answers for this document
  assert.equal(msg, 'strict decoding error: unknown field "metadata.foo", unknown field "spec", unknown field "webhooks[0].bogus"');
});

test('duplicate YAML keys: go-yaml wording with the line of the repeated key', () => {
  const msg = decodeError(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: b.static.k8s.io
  name: c.static.k8s.io
spec: {policyName: p.static.k8s.io}
`);
  assert.equal(msg, 'strict decoding error: yaml: unmarshal errors:\n  line 5: key "name" already set in map');
});

test('duplicate JSON keys: duplicate field with its path', () => {
  const msg = decodeError('{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"a","name":"b"},"spec":{"policyName":"p","foo":1}}');
  assert.equal(msg, 'strict decoding error: duplicate field "metadata.name", unknown field "spec.foo"');
});

test('status: {} and creationTimestamp: null are accepted (yaml.Marshal output)', () => {
  const decoded = decodeDocumentText(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p.static.k8s.io, creationTimestamp: null}
spec: {}
status: {}
`, 'policy');
  assert.equal(decoded.type, 'object');
  assert.deepEqual(decoded.type === 'object' && decoded.object.metadata, { name: 'p.static.k8s.io' });
});

test('wrong JSON types are hard errors worded as encoding/json', () => {
  const base = 'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: x}\n';
  assert.equal(decodeError(base + 'webhooks:\n- name: a\n  timeoutSeconds: "5"\n'),
    'json: cannot unmarshal string into Go struct field ValidatingWebhook.webhooks.timeoutSeconds of type int32');
  assert.equal(decodeError(base + 'webhooks:\n- name: a\n  timeoutSeconds: 1.5\n'),
    'json: cannot unmarshal number 1.5 into Go struct field ValidatingWebhook.webhooks.timeoutSeconds of type int32');
  assert.equal(decodeError(base + 'webhooks: {}\n'),
    'json: cannot unmarshal object into Go struct field ValidatingWebhookConfiguration.webhooks of type []v1.ValidatingWebhook');
  // upstream (tools/upstream-oracle load): the map's field, without the element's key
  assert.equal(decodeError(base.replace('{name: x}', '{name: x, labels: {a: 1}}')),
    'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string');
  assert.equal(decodeError(base + 'webhooks:\n- name: a\n  clientConfig: {caBundle: "not base64!"}\n'),
    'illegal base64 data at input byte 3');
});

// upstream: k8s.io/kubernetes pkg/admission/plugin/policy/manifest/loader/validating_loader.go:35 and
// webhook/manifest/loader/loader.go:41 (`scheme = runtime.NewScheme()`), named by apimachinery util/naming
// GetNameFromCallsite in a -trimpath release build
test('a kind outside the scheme names the scheme of the plugin family\'s loader', () => {
  const pod = 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n';
  assert.throws(() => decodeDocumentText(pod, 'policy'), { message: 'no kind "Pod" is registered for version "v1" in scheme "pkg/admission/plugin/policy/manifest/loader/validating_loader.go:35"' });
  assert.throws(() => decodeDocumentText(pod, 'webhook'), { message: 'no kind "Pod" is registered for version "v1" in scheme "pkg/admission/plugin/webhook/manifest/loader/loader.go:41"' });
});

// upstream: go.yaml.in/yaml/v2 v2.4.3 decode.go setMapIndex (the line of n.children[i+1], the value node)
test('a duplicate key with a block value is reported on the line the value starts', () => {
  const msg = decodeError('apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: p}\nspec: {}\nspec:\n  failurePolicy: Fail\n');
  assert.equal(msg, 'strict decoding error: yaml: unmarshal errors:\n  line 6: key "spec" already set in map');
});

// upstream: sigs.k8s.io/yaml YAMLToJSON (json.Marshal of Go maps: sorted keys) before the strict JSON decode, which
// reports unknown fields in the order it meets them
test('unknown fields of a YAML document are reported in sorted key order; of JSON, as written', () => {
  const head = 'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: p}\n';
  assert.equal(decodeError(head + 'zeta: 0\nspec: {zeta: 1, alpha: 2}\n'), 'strict decoding error: unknown field "spec.alpha", unknown field "spec.zeta", unknown field "zeta"');
  const json = '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"p"},"zeta":0,"spec":{"zeta":1,"alpha":2}}';
  assert.equal(decodeError(json), 'strict decoding error: unknown field "zeta", unknown field "spec.zeta", unknown field "spec.alpha"');
});

// upstream: the loaders' codecs decode every registered version strictly (serializer.EnableStrict) before the accept
// functions refuse what is not v1 (answers of the upstream-oracle)
test('another registered version is decoded strictly too: its strict errors come before the unsupported type', () => {
  assert.equal(decodeError('apiVersion: admissionregistration.k8s.io/v1beta1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: p}\nwebhooks: [{name: a, bogus: 1}]\n'), 'strict decoding error: unknown field "webhooks[0].bogus"');
  assert.equal(decodeError('apiVersion: v1\nkind: Status\nmessage: a\nmessage: b\n'), 'strict decoding error: yaml: unmarshal errors:\n  line 4: key "message" already set in map');
  assert.equal(decodeDocumentText('apiVersion: admissionregistration.k8s.io/v1alpha1\nkind: MutatingAdmissionPolicy\nmetadata: {name: p}\n', 'policy').type, 'foreign');
});

// upstream: apimachinery pkg/runtime/scheme.go New (unversionedKinds found by kind alone); the loaders'
// AddUnversionedTypes(metav1.SchemeGroupVersion, &metav1.List{}, &metav1.Status{})
test('the unversioned kinds decode under any apiVersion: a List of another group is a list', () => {
  const d = decodeDocumentText('apiVersion: example.com/v9\nkind: List\nitems: [{kind: X}]\n', 'policy');
  assert.equal(d.type, 'list');
  const status = decodeDocumentText('apiVersion: admissionregistration.k8s.io/v1\nkind: Status\n', 'policy');
  assert.deepEqual(status, { type: 'foreign', goType: '*v1.Status' });
});

test('kinds outside the scheme, missing kind or apiVersion', () => {
  assert.match(decodeError('apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n'), /^no kind "Pod" is registered for version "v1" in scheme /);
  assert.match(decodeError('apiVersion: apps/v1\nkind: Deployment\n'), /^no kind "Deployment" is registered for version "apps\/v1"/);
  assert.equal(decodeError('apiVersion: v1\nmetadata: {}'), "Object 'Kind' is missing in 'apiVersion: v1\nmetadata: {}'");
  assert.equal(decodeError('kind: List'), "Object 'apiVersion' is missing in 'kind: List'");
  assert.match(decodeError('- a\n- b'), /^couldn't get version\/kind; json parse error: json: cannot unmarshal array into Go value of type struct/);
});

test('registered foreign kinds decode to their Go type (the loader then refuses them)', () => {
  const d = decodeDocumentText('apiVersion: admissionregistration.k8s.io/v1beta1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: x}\n', 'policy');
  assert.deepEqual(d, { type: 'foreign', goType: '*v1beta1.ValidatingWebhookConfiguration' });
  assert.equal(decodeDocumentText('apiVersion: v1\nkind: Status\n', 'policy').type, 'foreign');
});

test('a generic v1 List yields its raw items', () => {
  const d = decodeDocumentText('apiVersion: v1\nkind: List\nitems:\n- {kind: X}\n- {apiVersion: v1}\n', 'policy');
  assert.equal(d.type, 'list');
  assert.deepEqual(d.type === 'list' && d.items, [{ kind: 'X' }, { apiVersion: 'v1' }]);
});

test('malformed YAML, alias bombs and deep nesting are errors, not crashes', () => {
  // upstream: go.yaml.in/yaml/v2 decode.go parser.fail names no line for a problem on the first line (its line 0)
  assert.equal(decodeError('a: b: c\n'), 'yaml: mapping values are not allowed in this context');
  assert.equal(decodeError('x: 1\na: b: c\n'), 'yaml: line 2: mapping values are not allowed in this context');
  const bomb = ['a: &a [x,x,x,x,x,x,x,x,x,x]'];
  for (let i = 1; i < 9; i++) bomb.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill('*' + String.fromCharCode(96 + i)).join(',')}]`);
  assert.equal(decodeError(bomb.join('\n') + '\nkind: X\n'), 'yaml: document contains excessive aliasing');
  const deep = 'a: ' + '['.repeat(5000) + ']'.repeat(5000);
  assert.match(decodeError(deep), /^yaml: /);
  const deepJSON = '{"a":' + '['.repeat(100000) + ']'.repeat(100000) + '}';
  assert.match(decodeError(deepJSON), /^(yaml: exceeded max depth|couldn't get version\/kind)/);
});

test('binary garbage is a decode error naming what went wrong', () => {
  const garbage = Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x9c, 0x3a, 0x20, 0x5b]).toString('utf8');
  assert.throws(() => decodeDocumentText(garbage, 'policy'), (err: Error) => err.message.length > 0);
});
