// The core/v1 defaulters of a PodSpec and everything in it, applied to a JSON object in place (the caller owns the
// copy). Upstream: kubernetes pkg/apis/core/v1/defaults.go (SetDefaults_Pod, _PodSpec, _Container, _Probe,
// _HTTPGetAction, _Volume, _SecretVolumeSource, … _ObjectFieldSelector, _ServiceAccountTokenProjection,
// _PersistentVolumeClaimSpec) called where zz_generated.defaults.go calls them (on every field of those types,
// parent before children), plus the declarative `+default=` markers of k8s.io/api core/v1 types.go v0.36.3
// (ContainerPort.protocol, GRPCAction.service, FileKeySelector.optional, RBD/ISCSI/AzureDisk/ScaleIO volume fields).
// A default applies only where the field is absent (Go's nil, "" or 0 as the function tests it).
import { parseImageTag } from './image.js';
import { defaultPart, isObject, setIfMissing, structField, write } from './object.js';
import type { JsonObject } from './object.js';

/** v1.TerminationMessagePathDefault, v1.DefaultTerminationGracePeriodSeconds, v1.DefaultSchedulerName, … */
const terminationMessagePathDefault = '/dev/termination-log';
const defaultTerminationGracePeriodSeconds = 30;
const defaultSchedulerName = 'default-scheduler';
/** 0644: SecretVolumeSourceDefaultMode, ConfigMapVolumeSourceDefaultMode, DownwardAPI…, Projected… */
const defaultMode = 0o644;

const objects = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** SetDefaults_ObjectFieldSelector */
function fieldSelector(o: unknown): void {
  if (isObject(o)) setIfMissing(o, 'apiVersion', 'v1', '');
}

/** SetDefaults_HTTPGetAction */
function httpGet(o: unknown): void {
  if (!isObject(o)) return;
  setIfMissing(o, 'path', '/', '');
  setIfMissing(o, 'scheme', 'HTTP', '');
}

/** SetDefaults_Probe and its handlers */
function probe(o: unknown): void {
  if (!isObject(o)) return;
  setIfMissing(o, 'timeoutSeconds', 1, 0);
  setIfMissing(o, 'periodSeconds', 10, 0);
  setIfMissing(o, 'successThreshold', 1, 0);
  setIfMissing(o, 'failureThreshold', 3, 0);
  httpGet(o['httpGet']);
  // GRPCAction.service: +default=""
  if (isObject(o['grpc'])) setIfMissing(o['grpc'], 'service', '');
}

/** SetDefaults_Container, then its nested fields in order (ports, env, probes, lifecycle) */
function container(c: JsonObject): void {
  if (c['imagePullPolicy'] === undefined || c['imagePullPolicy'] === '') {
    write(c, 'imagePullPolicy', parseImageTag(typeof c['image'] === 'string' ? c['image'] : '') === 'latest' ? 'Always' : 'IfNotPresent');
  }
  setIfMissing(c, 'terminationMessagePath', terminationMessagePathDefault, '');
  setIfMissing(c, 'terminationMessagePolicy', 'File', '');
  for (const p of objects(c['ports'])) setIfMissing(p, 'protocol', 'TCP', '');
  for (const e of objects(c['env'])) {
    const from = e['valueFrom'];
    if (!isObject(from)) continue;
    fieldSelector(from['fieldRef']);
    // FileKeySelector.optional: +default=false
    if (isObject(from['fileKeyRef'])) setIfMissing(from['fileKeyRef'], 'optional', false);
  }
  probe(c['livenessProbe']);
  probe(c['readinessProbe']);
  probe(c['startupProbe']);
  const lifecycle = c['lifecycle'];
  if (isObject(lifecycle)) {
    if (isObject(lifecycle['postStart'])) httpGet(lifecycle['postStart']['httpGet']);
    if (isObject(lifecycle['preStop'])) httpGet(lifecycle['preStop']['httpGet']);
  }
}

/** SetDefaults_PersistentVolumeClaimSpec */
export function claimSpec(spec: unknown): void {
  if (isObject(spec)) setIfMissing(spec, 'volumeMode', 'Filesystem');
}

const volumeSources = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi', 'glusterfs',
  'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc', 'azureFile', 'configMap',
  'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected', 'portworxVolume', 'scaleIO', 'storageos', 'csi',
  'ephemeral', 'image',
];

/** SetDefaults_Volume and the defaulters of its source */
function volume(v: JsonObject): void {
  if (volumeSources.every((k) => v[k] === undefined || v[k] === null)) write(v, 'emptyDir', {});
  // ImageVolume (on by default in 1.36): pullPolicy from the reference's tag
  const image = v['image'];
  if (isObject(image) && (image['pullPolicy'] === undefined || image['pullPolicy'] === '')) {
    write(image, 'pullPolicy', parseImageTag(typeof image['reference'] === 'string' ? image['reference'] : '') === 'latest' ? 'Always' : 'IfNotPresent');
  }
  // SetDefaults_HostPathVolumeSource: HostPathUnset
  if (isObject(v['hostPath'])) setIfMissing(v['hostPath'], 'type', '');
  if (isObject(v['secret'])) setIfMissing(v['secret'], 'defaultMode', defaultMode);
  if (isObject(v['iscsi'])) setIfMissing(v['iscsi'], 'iscsiInterface', 'default', '');
  if (isObject(v['rbd'])) {
    setIfMissing(v['rbd'], 'pool', 'rbd', '');
    setIfMissing(v['rbd'], 'user', 'admin', '');
    setIfMissing(v['rbd'], 'keyring', '/etc/ceph/keyring', '');
  }
  if (isObject(v['downwardAPI'])) {
    setIfMissing(v['downwardAPI'], 'defaultMode', defaultMode);
    for (const item of objects(v['downwardAPI']['items'])) fieldSelector(item['fieldRef']);
  }
  if (isObject(v['configMap'])) setIfMissing(v['configMap'], 'defaultMode', defaultMode);
  if (isObject(v['azureDisk'])) {
    const d = v['azureDisk'];
    setIfMissing(d, 'cachingMode', 'ReadWrite');
    setIfMissing(d, 'fsType', 'ext4');
    setIfMissing(d, 'readOnly', false);
    setIfMissing(d, 'kind', 'Shared');
  }
  if (isObject(v['projected'])) {
    setIfMissing(v['projected'], 'defaultMode', defaultMode);
    for (const source of objects(v['projected']['sources'])) {
      if (isObject(source['downwardAPI'])) for (const item of objects(source['downwardAPI']['items'])) fieldSelector(item['fieldRef']);
      // SetDefaults_ServiceAccountTokenProjection: an hour
      if (isObject(source['serviceAccountToken'])) setIfMissing(source['serviceAccountToken'], 'expirationSeconds', 3600);
    }
  }
  if (isObject(v['scaleIO'])) {
    setIfMissing(v['scaleIO'], 'storageMode', 'ThinProvisioned', '');
    setIfMissing(v['scaleIO'], 'fsType', 'xfs', '');
  }
  const ephemeral = v['ephemeral'];
  if (isObject(ephemeral) && isObject(ephemeral['volumeClaimTemplate'])) claimSpec(ephemeral['volumeClaimTemplate']['spec']);
}

/**
 * SetDefaults_PodSpec, then the defaulters of its volumes and containers (every PodSpec: pods and templates).
 * `podContainer`: what a Pod's containers and init containers get (their SetDefaults_Pod part, then
 * SetDefaults_Container); a template's get SetDefaults_Container alone.
 */
export function podSpec(spec: unknown, podContainer: (c: JsonObject) => void = container): void {
  if (!isObject(spec)) return;
  setIfMissing(spec, 'dnsPolicy', 'ClusterFirst', '');
  setIfMissing(spec, 'restartPolicy', 'Always', '');
  setIfMissing(spec, 'securityContext', {});
  setIfMissing(spec, 'terminationGracePeriodSeconds', defaultTerminationGracePeriodSeconds);
  setIfMissing(spec, 'schedulerName', defaultSchedulerName, '');
  for (const v of objects(spec['volumes'])) defaultPart(volume, v);
  for (const c of objects(spec['initContainers'])) defaultPart(podContainer, c);
  for (const c of objects(spec['containers'])) defaultPart(podContainer, c);
  for (const c of objects(spec['ephemeralContainers'])) defaultPart(container, c);
}

/** A PodTemplateSpec's spec (a struct: Go defaults it even when absent) */
export function podTemplate(template: JsonObject): void {
  podSpec(structField(template, 'spec'));
}

/** Requests default to limits for each resource a container limits but does not request (SetDefaults_Pod). */
function requestsFromLimits(c: JsonObject): void {
  const resources = c['resources'];
  if (!isObject(resources) || !isObject(resources['limits'])) return;
  const limits = resources['limits'];
  const requests = isObject(resources['requests']) ? resources['requests'] : {};
  for (const [k, v] of Object.entries(limits)) if (!Object.hasOwn(requests, k)) write(requests, k, v);
  // an empty map is omitted, as omitempty does
  if (Object.keys(requests).length > 0) write(resources, 'requests', requests);
}

/** hostNetwork: each container port's hostPort defaults to its containerPort (SetDefaults_Pod) */
function hostPorts(c: JsonObject): void {
  for (const p of objects(c['ports'])) {
    // a zero port stays omitted
    if ((p['hostPort'] === undefined || p['hostPort'] === 0) && typeof p['containerPort'] === 'number' && p['containerPort'] !== 0) write(p, 'hostPort', p['containerPort']);
  }
}

// A Pod's (init) container: SetDefaults_Pod's part (requests from limits, host ports on the host network), then
// SetDefaults_Container. Upstream runs SetDefaults_Pod over every container before SetDefaults_PodSpec's; each part
// writes only inside its own container and reads nothing another part writes, so one pass per container is the same.
function podContainer(c: JsonObject): void {
  requestsFromLimits(c);
  container(c);
}

function hostNetworkPodContainer(c: JsonObject): void {
  requestsFromLimits(c);
  hostPorts(c);
  container(c);
}

/** SetObjectDefaults_Pod: SetDefaults_Pod, then the PodSpec's */
export function pod(o: JsonObject): void {
  const spec = structField(o, 'spec');
  setIfMissing(spec, 'enableServiceLinks', true);
  podSpec(spec, spec['hostNetwork'] === true ? hostNetworkPodContainer : podContainer);
}
