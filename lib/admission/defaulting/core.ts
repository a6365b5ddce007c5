// The scheme's defaulting of the core/v1 kinds beyond pods and their owners (kube-apiserver 1.36): kubernetes
// pkg/apis/core/v1/defaults.go (SetDefaults_ReplicationController, _Endpoints, _LimitRangeItem, _NodeStatus,
// _PersistentVolume) as zz_generated.defaults.go calls them, with the `+default=` markers of k8s.io/api v0.36.3
// (ReplicationControllerSpec.replicas). Quantities are not rounded (SetDefaults_ResourceList), as for pods: the
// README says so.
import { cloneJson } from '../../json/index.js';
import { setOwn } from '../../json/own.js';
import { isObject } from './object.js';
import type { Draft, JsonObject } from './object.js';
import { isEmpty } from './items.js';
import { podTemplate } from './pod.js';
import { sharedVolumeSources } from './volume-sources.js';

/** SetObjectDefaults_ReplicationController: selector and labels from the template's, replicas, the pod template */
export function replicationController(o: Draft): void {
  const spec = o.structField('spec');
  // the template is a pointer here (a Deployment's is a struct): no template, no template defaults
  const template = spec.object('template');
  const labels = template?.object('metadata')?.get('labels');
  // an empty map copied is still empty, which JSON omits: nothing to write
  if (isObject(labels) && Object.keys(labels).length > 0) {
    if (isEmpty(spec.get('selector'))) spec.write('selector', { ...labels });
    const metadata = o.structField('metadata');
    if (isEmpty(metadata.get('labels'))) metadata.write('labels', { ...labels });
  }
  spec.setIfMissing('replicas', 1);
  if (template !== undefined) podTemplate(template);
}

/** SetDefaults_Endpoints: each port's protocol */
export function endpoints(o: Draft): void {
  for (const subset of o.objects('subsets')) for (const port of subset.objects('ports')) port.setIfMissing('protocol', 'TCP', '');
}

/**
 * `item[key][k] = from[k]` for each resource of each of `sources` that the map lacks. A map that is not there is
 * made, and written only when it gets something (empty, omitempty omits it).
 */
function fillResources(item: Draft, key: string, sources: readonly unknown[]): void {
  const map = item.object(key);
  const created: JsonObject = {};
  for (const from of sources) {
    if (!isObject(from)) continue;
    for (const [k, v] of Object.entries(from)) {
      if (map !== undefined) {
        if (!map.has(k)) map.write(k, v);
      } else if (!Object.hasOwn(created, k)) setOwn(created, k, v);
    }
  }
  if (map === undefined && Object.keys(created).length > 0) item.write(key, created);
}

/** SetDefaults_LimitRangeItem: a Container limit's default limit from its max, its default request from the default
 * limit, then from its min. */
function limitRangeItem(item: Draft): void {
  if (item.get('type') !== 'Container') return;
  fillResources(item, 'default', [item.get('max')]);
  fillResources(item, 'defaultRequest', [item.get('default'), item.get('min')]);
}

export function limitRange(o: Draft): void {
  const spec = o.object('spec');
  if (spec !== undefined) for (const item of spec.objects('limits')) limitRangeItem(item);
}

/** SetDefaults_NodeStatus: allocatable is the capacity when unset */
export function node(o: Draft): void {
  const status = o.object('status');
  if (status === undefined) return;
  const allocatable = status.get('allocatable');
  const capacity = status.get('capacity');
  // an empty capacity copied is an empty map, which JSON omits
  if ((allocatable === undefined || allocatable === null) && isObject(capacity) && Object.keys(capacity).length > 0) status.write('allocatable', cloneJson(capacity));
}

/** SetDefaults_PersistentVolume and its volume source's */
export function persistentVolume(o: Draft): void {
  o.structField('status').setIfMissing('phase', 'Pending', '');
  const spec = o.structField('spec');
  spec.setIfMissing('persistentVolumeReclaimPolicy', 'Retain', '');
  spec.setIfMissing('volumeMode', 'Filesystem');
  sharedVolumeSources(spec);
}
