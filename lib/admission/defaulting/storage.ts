// The scheme's defaulting of storage.k8s.io/v1 kinds (kube-apiserver 1.36, default feature gates): kubernetes
// pkg/apis/storage/v1/defaults.go (SetDefaults_StorageClass, _CSIDriver) and zz_generated.defaults.go
// (a VolumeAttachment's inline volume spec gets the core/v1 volume source defaults).
import { isObject, setIfMissing, structField, write } from './object.js';
import type { JsonObject } from './object.js';
import { isEmpty } from './items.js';
import { persistentVolumeSource } from './volume-sources.js';

export function storageClass(o: JsonObject): void {
  setIfMissing(o, 'reclaimPolicy', 'Delete');
  setIfMissing(o, 'volumeBindingMode', 'Immediate');
}

/** SetDefaults_CSIDriver: SELinuxMountReadWriteOncePod is GA (on) in 1.36, VolumeLimitScaling alpha (off) */
export function csiDriver(o: JsonObject): void {
  const spec = structField(o, 'spec');
  setIfMissing(spec, 'attachRequired', true);
  setIfMissing(spec, 'podInfoOnMount', false);
  setIfMissing(spec, 'storageCapacity', false);
  setIfMissing(spec, 'fsGroupPolicy', 'ReadWriteOnceWithFSType');
  if (isEmpty(spec['volumeLifecycleModes'])) write(spec, 'volumeLifecycleModes', ['Persistent']);
  setIfMissing(spec, 'requiresRepublish', false);
  setIfMissing(spec, 'seLinuxMount', false);
}

export function volumeAttachment(o: JsonObject): void {
  const spec = o['spec'];
  const source = isObject(spec) ? spec['source'] : undefined;
  const inline = isObject(source) ? source['inlineVolumeSpec'] : undefined;
  if (isObject(inline)) persistentVolumeSource(inline);
}
