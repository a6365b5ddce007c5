// The defaults of a PersistentVolumeSource's fields (a PersistentVolume's, and a VolumeAttachment's inline volume
// spec's), as kubernetes pkg/apis/core/v1/zz_generated.defaults.go applies them: SetDefaults_HostPathVolumeSource and
// the `+default=` markers of k8s.io/api core/v1 types.go on RBD, ISCSI, AzureDisk and ScaleIO.
import { isObject, setIfMissing } from './object.js';
import type { JsonObject } from './object.js';

export function persistentVolumeSource(source: JsonObject): void {
  // HostPathUnset
  if (isObject(source['hostPath'])) setIfMissing(source['hostPath'], 'type', '');
  const rbd = source['rbd'];
  if (isObject(rbd)) {
    setIfMissing(rbd, 'pool', 'rbd', '');
    setIfMissing(rbd, 'user', 'admin', '');
    setIfMissing(rbd, 'keyring', '/etc/ceph/keyring', '');
  }
  if (isObject(source['iscsi'])) setIfMissing(source['iscsi'], 'iscsiInterface', 'default', '');
  const azureDisk = source['azureDisk'];
  if (isObject(azureDisk)) {
    setIfMissing(azureDisk, 'cachingMode', 'ReadWrite');
    setIfMissing(azureDisk, 'fsType', 'ext4');
    setIfMissing(azureDisk, 'readOnly', false);
    setIfMissing(azureDisk, 'kind', 'Shared');
  }
  const scaleIO = source['scaleIO'];
  if (isObject(scaleIO)) {
    setIfMissing(scaleIO, 'storageMode', 'ThinProvisioned', '');
    setIfMissing(scaleIO, 'fsType', 'xfs', '');
  }
}
