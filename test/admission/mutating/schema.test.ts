// The merge schema the daemon ships: generated from kube-apiserver 1.36.3's OpenAPI v3 by scripts/gen-merge-schema.mjs
// (checked there against client-go v0.36.3's own structured-merge schema), committed, and kept in step with both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fieldShape, isAtomicMap, rootShape } from '../../../lib/admission/mutating/schema.js';
import type { Shape } from '../../../lib/admission/mutating/schema.js';
import { tempDir } from '../../helpers/fs.js';
import { root } from './helpers.js';

test('list types, keys and key defaults of the fields policies touch most', () => {
  const pod = rootShape('v1', 'Pod');
  const spec = fieldShape(pod, 'spec')!;
  const containers = fieldShape(spec, 'containers')!;
  assert.deepEqual(containers, { t: 'l', lt: 'map', e: { t: 'o', n: 'core.v1.Container' }, k: ['name'], d: { name: '' } });
  const container = (containers as { e: Shape }).e;
  assert.deepEqual(fieldShape(container, 'ports'), { t: 'l', lt: 'map', e: { t: 'o', n: 'core.v1.ContainerPort' }, k: ['containerPort', 'protocol'], d: { containerPort: 0, protocol: 'TCP' } });
  assert.equal((fieldShape(container, 'env') as { lt: string }).lt, 'map');
  assert.equal((fieldShape(container, 'args') as { lt: string }).lt, 'atomic');
  assert.equal((fieldShape(spec, 'tolerations') as { lt: string }).lt, 'atomic');
  assert.equal(isAtomicMap(fieldShape(spec, 'nodeSelector')!), true);
  assert.equal(isAtomicMap(fieldShape(fieldShape(rootShape('apps/v1', 'Deployment'), 'spec')!, 'selector')!), true);
  assert.equal((fieldShape(fieldShape(pod, 'metadata')!, 'finalizers') as { lt: string }).lt, 'set');
  assert.deepEqual(rootShape('example.com/v1', 'Widget'), { t: 'u' });
});

test('every built-in kind kube-apiserver 1.36 serves has a root, across groups and versions', () => {
  for (const [apiVersion, kind] of [['v1', 'Endpoints'], ['v1', 'Event'], ['events.k8s.io/v1', 'Event'], ['coordination.k8s.io/v1', 'Lease'],
    ['discovery.k8s.io/v1', 'EndpointSlice'], ['networking.k8s.io/v1', 'Ingress'], ['policy/v1', 'PodDisruptionBudget'],
    ['autoscaling/v1', 'HorizontalPodAutoscaler'], ['autoscaling/v2', 'HorizontalPodAutoscaler'], ['autoscaling/v1', 'Scale'],
    ['storage.k8s.io/v1', 'StorageClass'], ['apiextensions.k8s.io/v1', 'CustomResourceDefinition'], ['apiregistration.k8s.io/v1', 'APIService'],
    ['admissionregistration.k8s.io/v1', 'MutatingAdmissionPolicy'], ['resource.k8s.io/v1beta2', 'ResourceClaim']]) {
    assert.equal(rootShape(apiVersion!, kind!).t, 'o', `${apiVersion} ${kind}`);
  }
});

// upstream: kubernetes v1.36.3 api/openapi-spec/v3, in the Go module cache where Go is set up
const openAPI = join(process.env['GOMODCACHE'] ?? join(homedir(), 'go/pkg/mod'), 'k8s.io/kubernetes@v1.36.3/api/openapi-spec/v3');
const clientGoSchema = join(root, '../shared/reference/k8s-api/structured-merge-schema-client-go-v0.36.3.yaml');
test('the committed merge-schema.generated.ts is what the generator makes from kube-apiserver 1.36.3\'s OpenAPI v3', { skip: !existsSync(openAPI) && `no ${openAPI} here` }, () => {
  const { dir, cleanup } = tempDir('sad-gen-');
  try {
    const out = join(dir, 'merge-schema.generated.ts');
    execFileSync(process.execPath, [join(root, 'scripts/gen-merge-schema.mjs'), openAPI, existsSync(clientGoSchema) ? clientGoSchema : '-', out], { stdio: 'pipe' });
    assert.equal(readFileSync(out, 'utf8'), readFileSync(join(root, 'lib/admission/mutating/merge-schema.generated.ts'), 'utf8'));
  } finally {
    cleanup();
  }
});

const modCache = join(openAPI, '../../../../..');
const goSources = [openAPI, ...['api', 'apimachinery', 'apiextensions-apiserver', 'kube-aggregator'].map((m) => join(modCache, `k8s.io/${m}@v0.36.3`))];
const missingSource = goSources.find((dir) => !existsSync(dir));
test('the committed decode-types.generated.ts is what the generator makes from the v0.36.3 Go sources', { skip: missingSource !== undefined && `no ${missingSource} here` }, () => {
  const { dir, cleanup } = tempDir('sad-gen-');
  try {
    const out = join(dir, 'decode-types.generated.ts');
    execFileSync(process.execPath, [join(root, 'scripts/gen-decode-types.mjs'), modCache, out], { stdio: 'pipe' });
    assert.equal(readFileSync(out, 'utf8'), readFileSync(join(root, 'lib/admission/mutating/decode-types.generated.ts'), 'utf8'));
  } finally {
    cleanup();
  }
});
