// The strict decoder's view of admissionregistration.k8s.io's other versions: v1's types and fields (v1beta1 and
// v1alpha1 have the same ones), with each field's Go type as that version's package declares it, so that a type error
// names `v1beta1.FailurePolicyType` as upstream's decoder does (version-schemas.generated.ts).
import { apiSchema } from './schema.generated.js';
import type { ApiSchema } from './schema.js';
import { VERSION_GO_TYPES } from './version-schemas.generated.js';

const schemas = new Map<string, ApiSchema>();

/** The schema to decode `apiVersion` with: v1's for v1 and any version without overrides. */
export function schemaForVersion(apiVersion: string): ApiSchema {
  const overrides = Object.hasOwn(VERSION_GO_TYPES, apiVersion) ? VERSION_GO_TYPES[apiVersion]! : undefined;
  if (overrides === undefined) return apiSchema;
  let schema = schemas.get(apiVersion);
  if (schema === undefined) {
    schema = {};
    for (const [name, type] of Object.entries(apiSchema)) {
      const goTypes = Object.hasOwn(overrides, name) ? overrides[name]! : {};
      const fields = Object.fromEntries(Object.entries(type.fields).map(([f, field]) => [f, Object.hasOwn(goTypes, f) ? { ...field, go: goTypes[f]! } : field]));
      schema[name] = { ...type, fields };
    }
    schemas.set(apiVersion, schema);
  }
  return schema;
}
