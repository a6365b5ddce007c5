// The scheme's defaulting of the core/v1 kinds beyond pods and their owners (kube-apiserver 1.36): kubernetes
// pkg/apis/core/v1/defaults.go (SetDefaults_ReplicationController, _Endpoints, _LimitRangeItem, _NodeStatus,
// _PersistentVolume) as zz_generated.defaults.go calls them, with the `+default=` markers of k8s.io/api v0.36.3
// (ReplicationControllerSpec.replicas). Quantities are not rounded (SetDefaults_ResourceList), as for pods: the
// README says so.
import { cloneJson } from '../../json/index.js';
import { isObject, setIfMissing, structField, write } from './object.js';
import type { JsonObject } from './object.js';
import { isEmpty, objectItems } from './items.js';
import { podTemplate } from './pod.js';
import { persistentVolumeSource } from './volume-sources.js';

/** SetObjectDefaults_ReplicationController: selector and labels from the template's, replicas, the pod template */
export function replicationController(o: JsonObject): void {
  const spec = structField(o, 'spec');
  const template = spec['template'];
  // the template is a pointer here (a Deployment's is a struct): no template, no template defaults
  const labels = isObject(template) && isObject(template['metadata']) ? template['metadata']['labels'] : undefined;
  // an empty map copied is still empty, which JSON omits: nothing to write
  if (isObject(labels) && Object.keys(labels).length > 0) {
    if (isEmpty(spec['selector'])) write(spec, 'selector', { ...labels });
    const metadata = structField(o, 'metadata');
    if (isEmpty(metadata['labels'])) write(metadata, 'labels', { ...labels });
  }
  setIfMissing(spec, 'replicas', 1);
  if (isObject(template)) podTemplate(template);
}

/** SetDefaults_Endpoints: each port's protocol */
export function endpoints(o: JsonObject): void {
  for (const subset of objectItems(o['subsets'])) for (const port of objectItems(subset['ports'])) setIfMissing(port, 'protocol', 'TCP', '');
}

/** `to[k] = from[k]` for each resource `from` has and `to` lacks */
function fillResources(to: JsonObject, from: unknown): void {
  if (!isObject(from)) return;
  for (const [k, v] of Object.entries(from)) if (!Object.hasOwn(to, k)) write(to, k, v);
}

/**
 * SetDefaults_LimitRangeItem: a Container limit's default limit from its max, its default request from the default
 * limit, then from its min. The two maps are made even when empty (omitted then, as omitempty does).
 */
function limitRangeItem(item: JsonObject): void {
  if (item['type'] !== 'Container') return;
  const limits = isObject(item['default']) ? item['default'] : {};
  fillResources(limits, item['max']);
  const requests = isObject(item['defaultRequest']) ? item['defaultRequest'] : {};
  fillResources(requests, limits);
  fillResources(requests, item['min']);
  if (Object.keys(limits).length > 0) write(item, 'default', limits);
  if (Object.keys(requests).length > 0) write(item, 'defaultRequest', requests);
}

export function limitRange(o: JsonObject): void {
  const spec = o['spec'];
  if (isObject(spec)) for (const item of objectItems(spec['limits'])) limitRangeItem(item);
}

/** SetDefaults_NodeStatus: allocatable is the capacity when unset */
export function node(o: JsonObject): void {
  const status = o['status'];
  if (!isObject(status)) return;
  const allocatable = status['allocatable'];
  const capacity = status['capacity'];
  // an empty capacity copied is an empty map, which JSON omits
  if ((allocatable === undefined || allocatable === null) && isObject(capacity) && Object.keys(capacity).length > 0) write(status, 'allocatable', cloneJson(capacity));
}

/** SetDefaults_PersistentVolume and its volume source's */
export function persistentVolume(o: JsonObject): void {
  setIfMissing(structField(o, 'status'), 'phase', 'Pending', '');
  const spec = structField(o, 'spec');
  setIfMissing(spec, 'persistentVolumeReclaimPolicy', 'Retain', '');
  setIfMissing(spec, 'volumeMode', 'Filesystem');
  persistentVolumeSource(spec);
}
