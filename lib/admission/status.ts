// The metav1.Status kube-apiserver returns for a denied request (admission.NewForbidden + apierrors.NewForbidden),
// so answers read exactly as the in-tree plugin's.
import type { AdmissionRequest, Status } from '../api/admission.js';

/** reasonToCode of the validating policy plugin. */
export function reasonToCode(reason: string): number {
  switch (reason) {
    case 'Forbidden': return 403;
    case 'Invalid': return 422;
    case 'RequestEntityTooLarge': return 413;
    default: return 500;
  }
}

/** extractResourceName: the request's name, else the object's name or generateName, else "Unknown". */
function requestName(request: AdmissionRequest): string {
  if (request.name) return request.name;
  const object = request.object;
  // an object without ObjectMeta gives a name-less error
  if (object !== null && object !== undefined && (typeof object !== 'object' || Array.isArray(object))) return '';
  const meta = (object as { metadata?: { name?: unknown; generateName?: unknown } } | null | undefined)?.metadata;
  if (meta === undefined || meta === null || typeof meta !== 'object') return 'Unknown';
  if (typeof meta.name === 'string' && meta.name !== '') return meta.name;
  if (typeof meta.generateName === 'string' && meta.generateName !== '') return meta.generateName;
  return 'Unknown';
}

export interface ForbiddenOptions {
  /**
   * Where the name comes from: 'extracted' (default) as the policy plugins' extractResourceName; 'request': the
   * request's name as is (attr.GetName(), as the webhook plugins pass it), and no details.name when it is empty.
   */
  readonly name?: 'extracted' | 'request';
}

/** `<resource>[.<group>] "<name>" is forbidden: <message>` with details, as apierrors.NewForbidden builds it. */
export function forbiddenStatus(request: AdmissionRequest, message: string, reason = 'Forbidden', options: ForbiddenOptions = {}): Status {
  const group = request.resource?.group ?? '';
  const resource = request.resource?.resource ?? '';
  const qualified = group === '' ? resource : `${resource}.${group}`;
  const fromRequest = options.name === 'request';
  const name = fromRequest ? request.name ?? '' : requestName(request);
  let text: string;
  if (qualified === '') text = `forbidden: ${message}`;
  else if (name === '') text = `${qualified} is forbidden: ${message}`;
  else text = `${qualified} ${JSON.stringify(name)} is forbidden: ${message}`;
  return {
    metadata: {},
    status: 'Failure',
    message: text,
    reason,
    // StatusDetails.name is omitempty
    details: fromRequest && name === '' ? { group, kind: resource } : { name, group, kind: resource },
    code: reasonToCode(reason),
  } as Status;
}
