// The defaults of the volume source fields a Volume and a PersistentVolumeSource share (a Pod's volumes, a
// PersistentVolume's spec, a VolumeAttachment's inline volume spec), as kubernetes
// pkg/apis/core/v1/zz_generated.defaults.go applies them: SetDefaults_HostPathVolumeSource and the `+default=`
// markers of k8s.io/api core/v1 types.go on RBD, ISCSI, AzureDisk and ScaleIO.
import type { Draft } from './object.js';

/** The fields a VolumeSource and a PersistentVolumeSource share that have defaults */
export function sharedVolumeSources(source: Draft): void {
  // HostPathUnset
  source.object('hostPath')?.setIfMissing('type', '');
  const rbd = source.object('rbd');
  if (rbd !== undefined) {
    rbd.setIfMissing('pool', 'rbd', '');
    rbd.setIfMissing('user', 'admin', '');
    rbd.setIfMissing('keyring', '/etc/ceph/keyring', '');
  }
  source.object('iscsi')?.setIfMissing('iscsiInterface', 'default', '');
  const azureDisk = source.object('azureDisk');
  if (azureDisk !== undefined) {
    azureDisk.setIfMissing('cachingMode', 'ReadWrite');
    azureDisk.setIfMissing('fsType', 'ext4');
    azureDisk.setIfMissing('readOnly', false);
    azureDisk.setIfMissing('kind', 'Shared');
  }
  const scaleIO = source.object('scaleIO');
  if (scaleIO !== undefined) {
    scaleIO.setIfMissing('storageMode', 'ThinProvisioned', '');
    scaleIO.setIfMissing('fsType', 'xfs', '');
  }
}
