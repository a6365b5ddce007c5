// ValidateObjectMeta(meta, requiresNamespace=false, NameIsDNSSubdomain, "metadata") from
// k8s.io/apimachinery/pkg/api/validation/objectmeta.go (v0.36), as run on every admission object on create.
import type { ManagedFieldsEntry, ObjectMeta, OwnerReference } from '../../api/types.js';
import { forbidden, invalid, Named, Path, required, tooLong } from './field-error.js';
import type { FieldError } from './field-error.js';
import { byteLength, isGoPrint } from '../../validation/go-format.js';
import { isQualifiedName, nameIsDNSSubdomain } from './names.js';
import { validateLabels } from './selectors.js';

const totalAnnotationSizeLimitB = 256 * (1 << 10);
const fieldManagerMaxLength = 128;
const maxSubresourceNameLength = 256;

/** ValidateAnnotations: keys are qualified names compared case-insensitively; total size ≤ 256 KiB. */
function validateAnnotations(annotations: Readonly<Record<string, string>> | undefined, fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  let totalSize = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalid(fldPath, k, msg));
    totalSize += byteLength(k) + byteLength(v);
  }
  if (totalSize > totalAnnotationSizeLimitB) errs.push(tooLong(fldPath, totalAnnotationSizeLimitB));
  return errs;
}

/** schema.ParseGroupVersion, reduced to what FromAPIVersionAndKind needs. */
function parseGroupVersion(gv: string): { group: string; version: string } | undefined {
  if (gv.length === 0 || gv === '/') return { group: '', version: '' };
  const slashes = gv.split('/').length - 1;
  if (slashes === 0) return { group: '', version: gv };
  if (slashes === 1) {
    const i = gv.indexOf('/');
    return { group: gv.slice(0, i), version: gv.slice(i + 1) };
  }
  return undefined;
}

/** metav1.OwnerReference as json.Marshal writes it (struct field order, omitempty pointers). */
function ownerReferenceJson(ref: OwnerReference): Record<string, unknown> {
  const out: Record<string, unknown> = {
    apiVersion: ref.apiVersion ?? '',
    kind: ref.kind ?? '',
    name: ref.name ?? '',
    uid: ref.uid ?? '',
  };
  if (ref.controller !== null && ref.controller !== undefined) out['controller'] = ref.controller;
  if (ref.blockOwnerDeletion !== null && ref.blockOwnerDeletion !== undefined) out['blockOwnerDeletion'] = ref.blockOwnerDeletion;
  return out;
}

function validateOwnerReference(ref: OwnerReference, fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = ref.apiVersion ?? '';
  const kind = ref.kind ?? '';
  const gv = parseGroupVersion(apiVersion) ?? { group: '', version: '' };
  if (gv.version.length === 0) errs.push(invalid(fldPath.child('apiVersion'), apiVersion, 'version must not be empty'));
  if (kind.length === 0) errs.push(invalid(fldPath.child('kind'), kind, 'must not be empty'));
  if ((ref.name ?? '').length === 0) errs.push(invalid(fldPath.child('name'), ref.name ?? '', 'must not be empty'));
  if ((ref.uid ?? '').length === 0) errs.push(invalid(fldPath.child('uid'), ref.uid ?? '', 'must not be empty'));
  if (gv.group === '' && gv.version === 'v1' && kind === 'Event') {
    errs.push(invalid(fldPath, ownerReferenceJson(ref), `${gv.group}/${gv.version}, Kind=${kind} is disallowed from being an owner`));
  }
  return errs;
}

function validateOwnerReferences(refs: readonly OwnerReference[], fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  let firstControllerName = '';
  for (const ref of refs) {
    errs.push(...validateOwnerReference(ref, fldPath));
    if (ref.controller === true) {
      const current = `${ref.kind ?? ''}/${ref.name ?? ''}`;
      if (firstControllerName !== '') {
        errs.push(invalid(fldPath, refs.map(ownerReferenceJson),
          `Only one reference can have Controller set to true. Found "true" in references for ${firstControllerName} and ${current}`));
      } else {
        firstControllerName = current;
      }
    }
  }
  return errs;
}

function validateFinalizers(finalizers: readonly string[], fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of finalizers) {
    for (const msg of isQualifiedName(f)) errs.push(invalid(fldPath, f, msg));
  }
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errs.push(invalid(fldPath, [...finalizers], 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

/** fmt's %#U: "U+0007", plus " 'x'" when the rune is printable. */
function sharpU(cp: number): string {
  const code = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return isGoPrint(cp) ? `${code} '${String.fromCodePoint(cp)}'` : code;
}

function validateFieldManager(fieldManager: string, fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (byteLength(fieldManager) > fieldManagerMaxLength) errs.push(tooLong(fldPath, fieldManagerMaxLength));
  let position = 0;
  for (const ch of fieldManager) {
    const cp = ch.codePointAt(0)!;
    if (!isGoPrint(cp)) errs.push(invalid(fldPath, fieldManager, `invalid character ${sharpU(cp)} (at position ${position})`));
    position += byteLength(ch);
  }
  return errs;
}

function validateManagedFields(entries: readonly ManagedFieldsEntry[], fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  entries.forEach((entry, i) => {
    const p = fldPath.index(i);
    const operation = entry.operation ?? '';
    if (operation !== 'Apply' && operation !== 'Update') {
      errs.push(invalid(p.child('operation'), new Named(operation), 'must be `Apply` or `Update`'));
    }
    const fieldsType = entry.fieldsType ?? '';
    if (fieldsType.length > 0 && fieldsType !== 'FieldsV1') errs.push(invalid(p.child('fieldsType'), fieldsType, 'must be `FieldsV1`'));
    errs.push(...validateFieldManager(entry.manager ?? '', p.child('manager')));
    if (byteLength(entry.subresource ?? '') > maxSubresourceNameLength) errs.push(tooLong(p.child('subresource'), maxSubresourceNameLength));
  });
  return errs;
}

/** ValidateObjectMeta(&obj.ObjectMeta, false, NameIsDNSSubdomain, field.NewPath("metadata")) */
export function validateObjectMeta(meta: ObjectMeta | null | undefined): FieldError[] {
  const fldPath = Path.of('metadata');
  const m = meta ?? {};
  const errs: FieldError[] = [];
  const generateName = m.generateName ?? '';
  if (generateName.length !== 0) {
    for (const msg of nameIsDNSSubdomain(generateName, true)) errs.push(invalid(fldPath.child('generateName'), generateName, msg));
  }
  const name = m.name ?? '';
  if (name.length === 0) {
    errs.push(required(fldPath.child('name'), 'name or generateName is required'));
  } else {
    for (const msg of nameIsDNSSubdomain(name, false)) errs.push(invalid(fldPath.child('name'), name, msg));
  }
  // Cluster-scoped kinds: a namespace is not allowed.
  if ((m.namespace ?? '').length !== 0) errs.push(forbidden(fldPath.child('namespace'), 'not allowed on this type'));
  const generation = m.generation ?? 0;
  if (generation < 0) errs.push(invalid(fldPath.child('generation'), generation, 'must be greater than or equal to 0'));
  errs.push(...validateLabels(m.labels, fldPath.child('labels')));
  errs.push(...validateAnnotations(m.annotations, fldPath.child('annotations')));
  errs.push(...validateOwnerReferences(m.ownerReferences ?? [], fldPath.child('ownerReferences')));
  errs.push(...validateFinalizers(m.finalizers ?? [], fldPath.child('finalizers')));
  errs.push(...validateManagedFields(m.managedFields ?? [], fldPath.child('managedFields')));
  return errs;
}
