// The core/v1 defaulters of a PodSpec and everything in it, written through drafts (object.ts). Upstream: kubernetes
// pkg/apis/core/v1/defaults.go (SetDefaults_Pod, _PodSpec, _Container, _Probe, _HTTPGetAction, _Volume,
// _SecretVolumeSource, … _ObjectFieldSelector, _ServiceAccountTokenProjection, _PersistentVolumeClaimSpec) called
// where zz_generated.defaults.go calls them (on every field of those types, parent before children), plus the
// declarative `+default=` markers of k8s.io/api core/v1 types.go v0.36.3 (ContainerPort.protocol, GRPCAction.service,
// FileKeySelector.optional, RBD/ISCSI/AzureDisk/ScaleIO volume fields: volume-sources.ts). A default applies only
// where the field is absent (Go's nil, "" or 0 as the function tests it).
import { parseImageTag } from './image.js';
import { defaultParts, isMissing, isObject } from './object.js';
import type { Draft, JsonObject } from './object.js';
import { sharedVolumeSources } from './volume-sources.js';

/** v1.TerminationMessagePathDefault, v1.DefaultTerminationGracePeriodSeconds, v1.DefaultSchedulerName, … */
const terminationMessagePathDefault = '/dev/termination-log';
const defaultTerminationGracePeriodSeconds = 30;
const defaultSchedulerName = 'default-scheduler';
/** 0644: SecretVolumeSourceDefaultMode, ConfigMapVolumeSourceDefaultMode, DownwardAPI…, Projected… */
const defaultMode = 0o644;

/** SetDefaults_ObjectFieldSelector */
function fieldSelector(o: Draft | undefined): void {
  o?.setIfMissing('apiVersion', 'v1', '');
}

/** SetDefaults_HTTPGetAction */
function httpGet(o: Draft | undefined): void {
  if (o === undefined) return;
  o.setIfMissing('path', '/', '');
  o.setIfMissing('scheme', 'HTTP', '');
}

/** SetDefaults_Probe and its handlers */
function probe(o: Draft | undefined): void {
  if (o === undefined) return;
  o.setIfMissing('timeoutSeconds', 1, 0);
  o.setIfMissing('periodSeconds', 10, 0);
  o.setIfMissing('successThreshold', 1, 0);
  o.setIfMissing('failureThreshold', 3, 0);
  httpGet(o.object('httpGet'));
  // GRPCAction.service: +default=""
  o.object('grpc')?.setIfMissing('service', '');
}

/** The pull policy an image reference gets: Always for `latest` (SetDefaults_Container, SetDefaults_Volume). */
function pullPolicy(image: unknown): string {
  return parseImageTag(typeof image === 'string' ? image : '') === 'latest' ? 'Always' : 'IfNotPresent';
}

const portWithoutProtocol = (p: JsonObject): boolean => isMissing(p['protocol'], '');
/** only an env var's valueFrom has defaults */
const envFrom = (e: JsonObject): boolean => isObject(e['valueFrom']);

/** SetDefaults_Container, then its nested fields in order (ports, env, probes, lifecycle) */
function container(c: Draft): void {
  if (c.get('imagePullPolicy') === undefined || c.get('imagePullPolicy') === '') c.write('imagePullPolicy', pullPolicy(c.get('image')));
  c.setIfMissing('terminationMessagePath', terminationMessagePathDefault, '');
  c.setIfMissing('terminationMessagePolicy', 'File', '');
  for (const p of c.objects('ports', portWithoutProtocol)) p.setIfMissing('protocol', 'TCP', '');
  for (const e of c.objects('env', envFrom)) {
    const from = e.object('valueFrom');
    if (from === undefined) continue;
    fieldSelector(from.object('fieldRef'));
    // FileKeySelector.optional: +default=false
    from.object('fileKeyRef')?.setIfMissing('optional', false);
  }
  probe(c.object('livenessProbe'));
  probe(c.object('readinessProbe'));
  probe(c.object('startupProbe'));
  const lifecycle = c.object('lifecycle');
  if (lifecycle !== undefined) {
    httpGet(lifecycle.object('postStart')?.object('httpGet'));
    httpGet(lifecycle.object('preStop')?.object('httpGet'));
  }
}

/** SetDefaults_PersistentVolumeClaimSpec */
export function claimSpec(spec: Draft | undefined): void {
  spec?.setIfMissing('volumeMode', 'Filesystem');
}

const volumeSources = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi', 'glusterfs',
  'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc', 'azureFile', 'configMap',
  'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected', 'portworxVolume', 'scaleIO', 'storageos', 'csi',
  'ephemeral', 'image',
];

/** SetDefaults_Volume and the defaulters of its source */
function volume(v: Draft): void {
  if (volumeSources.every((k) => v.get(k) === undefined || v.get(k) === null)) v.write('emptyDir', {});
  // ImageVolume (on by default in 1.36): pullPolicy from the reference's tag
  const image = v.object('image');
  if (image !== undefined && (image.get('pullPolicy') === undefined || image.get('pullPolicy') === '')) image.write('pullPolicy', pullPolicy(image.get('reference')));
  // hostPath, rbd, iscsi, azureDisk, scaleIO: as a PersistentVolume's
  sharedVolumeSources(v);
  v.object('secret')?.setIfMissing('defaultMode', defaultMode);
  const downwardAPI = v.object('downwardAPI');
  if (downwardAPI !== undefined) {
    downwardAPI.setIfMissing('defaultMode', defaultMode);
    for (const item of downwardAPI.objects('items')) fieldSelector(item.object('fieldRef'));
  }
  v.object('configMap')?.setIfMissing('defaultMode', defaultMode);
  const projected = v.object('projected');
  if (projected !== undefined) {
    projected.setIfMissing('defaultMode', defaultMode);
    for (const source of projected.objects('sources')) {
      const downward = source.object('downwardAPI');
      if (downward !== undefined) for (const item of downward.objects('items')) fieldSelector(item.object('fieldRef'));
      // SetDefaults_ServiceAccountTokenProjection: an hour
      source.object('serviceAccountToken')?.setIfMissing('expirationSeconds', 3600);
    }
  }
  claimSpec(v.object('ephemeral')?.object('volumeClaimTemplate')?.object('spec'));
}

/**
 * SetDefaults_PodSpec, then the defaulters of its volumes and containers (every PodSpec: pods and templates).
 * `podContainer`: what a Pod's containers and init containers get (their SetDefaults_Pod part, then
 * SetDefaults_Container); a template's get SetDefaults_Container alone.
 */
export function podSpec(spec: Draft | undefined, podContainer: (c: Draft) => void = container): void {
  if (spec === undefined) return;
  spec.setIfMissing('dnsPolicy', 'ClusterFirst', '');
  spec.setIfMissing('restartPolicy', 'Always', '');
  spec.setIfMissing('securityContext', {});
  spec.setIfMissing('terminationGracePeriodSeconds', defaultTerminationGracePeriodSeconds);
  spec.setIfMissing('schedulerName', defaultSchedulerName, '');
  defaultParts(spec, 'volumes', volume);
  defaultParts(spec, 'initContainers', podContainer);
  defaultParts(spec, 'containers', podContainer);
  defaultParts(spec, 'ephemeralContainers', container);
}

/** A PodTemplateSpec's spec (a struct: Go defaults it even when absent) */
export function podTemplate(template: Draft): void {
  podSpec(template.structField('spec'));
}

/** Requests default to limits for each resource a container limits but does not request (SetDefaults_Pod). */
function requestsFromLimits(c: Draft): void {
  const resources = c.object('resources');
  const limits = resources?.get('limits');
  if (resources === undefined || !isObject(limits)) return;
  const requests = resources.object('requests');
  if (requests !== undefined) {
    for (const k of Object.keys(limits)) if (!requests.has(k)) requests.write(k, limits[k]);
    return;
  }
  // absent: the limits copied; an empty map is omitted, as omitempty does
  const keys = Object.keys(limits);
  if (keys.length > 0) resources.write('requests', { ...limits });
}

/** hostNetwork: each container port's hostPort defaults to its containerPort (SetDefaults_Pod) */
function hostPorts(c: Draft): void {
  for (const p of c.objects('ports')) {
    const containerPort = p.get('containerPort');
    // a zero port stays omitted
    if ((p.get('hostPort') === undefined || p.get('hostPort') === 0) && typeof containerPort === 'number' && containerPort !== 0) p.write('hostPort', containerPort);
  }
}

// A Pod's (init) container: SetDefaults_Pod's part (requests from limits, host ports on the host network), then
// SetDefaults_Container. Upstream runs SetDefaults_Pod over every container before SetDefaults_PodSpec's; each part
// writes only inside its own container and reads nothing another part writes, so one pass per container is the same.
function podContainer(c: Draft): void {
  requestsFromLimits(c);
  container(c);
}

function hostNetworkPodContainer(c: Draft): void {
  requestsFromLimits(c);
  hostPorts(c);
  container(c);
}

/** SetObjectDefaults_Pod: SetDefaults_Pod, then the PodSpec's */
export function pod(o: Draft): void {
  const spec = o.structField('spec');
  spec.setIfMissing('enableServiceLinks', true);
  podSpec(spec, spec.get('hostNetwork') === true ? hostNetworkPodContainer : podContainer);
}
