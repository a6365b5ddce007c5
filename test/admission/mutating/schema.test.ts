// The merge schema the daemon ships: generated from the Kubernetes 1.36.3 merge markers by scripts/gen-list-types.mjs,
// committed, and kept in step with the reference data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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

const reference = join(root, '../shared/reference/k8s-api/list-map-keys.json');
test('the committed list-types.generated.ts is what the generator makes from the reference data', { skip: !existsSync(reference) && 'no ../shared reference data here' }, () => {
  const { dir, cleanup } = tempDir('sad-gen-');
  try {
    const out = join(dir, 'list-types.generated.ts');
    execFileSync(process.execPath, [join(root, 'scripts/gen-list-types.mjs'), reference, join(root, '../shared/reference/k8s-api/structured-merge-schema-client-go-v0.36.3.yaml'), out], { stdio: 'pipe' });
    assert.equal(readFileSync(out, 'utf8'), readFileSync(join(root, 'lib/admission/mutating/list-types.generated.ts'), 'utf8'));
  } finally {
    cleanup();
  }
});
