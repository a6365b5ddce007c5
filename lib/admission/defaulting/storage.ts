// The scheme's defaulting of storage.k8s.io/v1 kinds (kube-apiserver 1.36, default feature gates): kubernetes
// pkg/apis/storage/v1/defaults.go (SetDefaults_StorageClass, _CSIDriver) and zz_generated.defaults.go
// (a VolumeAttachment's inline volume spec gets the core/v1 volume source defaults).
import type { Draft } from './object.js';
import { isEmpty } from './items.js';
import { sharedVolumeSources } from './volume-sources.js';

export function storageClass(o: Draft): void {
  o.setIfMissing('reclaimPolicy', 'Delete');
  o.setIfMissing('volumeBindingMode', 'Immediate');
}

/** SetDefaults_CSIDriver: SELinuxMountReadWriteOncePod is GA (on) in 1.36, VolumeLimitScaling alpha (off) */
export function csiDriver(o: Draft): void {
  const spec = o.structField('spec');
  spec.setIfMissing('attachRequired', true);
  spec.setIfMissing('podInfoOnMount', false);
  spec.setIfMissing('storageCapacity', false);
  spec.setIfMissing('fsGroupPolicy', 'ReadWriteOnceWithFSType');
  if (isEmpty(spec.get('volumeLifecycleModes'))) spec.write('volumeLifecycleModes', ['Persistent']);
  spec.setIfMissing('requiresRepublish', false);
  spec.setIfMissing('seLinuxMount', false);
}

export function volumeAttachment(o: Draft): void {
  const inline = o.object('spec')?.object('source')?.object('inlineVolumeSpec');
  if (inline !== undefined) sharedVolumeSources(inline);
}
