#!/usr/bin/env node
// Generates lib/admission/mutating/merge-schema.generated.ts: the structured-merge schema of every built-in kind
// kube-apiserver 1.36 serves, from its OpenAPI v3 documents (kubernetes v1.36.3 api/openapi-spec/v3: one per group
// version, what /openapi/v3 serves). That is what a MutatingAdmissionPolicy's ApplyConfiguration is merged with
// upstream: S/admission/plugin/policy/mutating/patch/typeconverter.go builds its type converter per group version
// from /openapi/v3 with managedfields.NewTypeConverter(schemas, false), i.e. kube-openapi pkg/schemaconv
// ToSchemaFromOpenAPI, whose rules are followed here:
//   - `type: object` with properties: a struct (fields); `x-kubernetes-map-type: atomic` makes it atomic; a field
//     `allOf: [$ref]` with its own x-kubernetes-map-type overrides the referenced struct's (makeOpenAPIRef);
//   - `type: object` with additionalProperties: a map of that; without properties or additionalProperties: a map of
//     deduced values (no field is "not declared");
//   - `type: array`: x-kubernetes-list-type atomic | set | map (x-kubernetes-list-map-keys), else
//     x-kubernetes-patch-strategy merge (+ patch-merge-key: a map list keyed by it; without: a set), else atomic;
//   - no `type` (IntOrString, apiextensions JSON…): untyped, merged as deduced; Quantity a scalar, RawExtension
//     atomic (both special-cased upstream); string, integer, number, boolean scalars.
// Roots are the definitions' x-kubernetes-group-version-kind. Shapes (lib/admission/mutating/schema.ts): s scalar,
// a atomic, d deduced, o struct (n; a: 0|1 overrides its atomicity), m map (v; a atomic), l list (lt, e, k keys, d key
// defaults). With the client-go v0.36.3 applyconfigurations schema (structured-merge-schema-client-go-v0.36.3.yaml)
// at hand, every type both describe is checked to agree, and the script fails when one does not.
// The generated file is committed, so neither the build nor the daemon reads the sources.
// Usage: node scripts/gen-merge-schema.mjs [openapi-spec/v3 dir [client-go schema yaml|- [output.ts]]]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';

const here = dirname(fileURLToPath(import.meta.url));
const modCache = process.env.GOMODCACHE ?? join(homedir(), 'go/pkg/mod');
const specDir = process.argv[2] ?? join(modCache, 'k8s.io/kubernetes@v1.36.3/api/openapi-spec/v3');
const clientGoSchema = process.argv[3] ?? join(here, '../../shared/reference/k8s-api/structured-merge-schema-client-go-v0.36.3.yaml');
const output = process.argv[4] ?? join(here, '../lib/admission/mutating/merge-schema.generated.ts');

// every group version's document; a definition shared by several is the same in each but for its GVK list
const definitions = new Map();
const gvks = new Map();
for (const file of readdirSync(specDir).filter((f) => f.endsWith('_openapi.json')).sort()) {
  const schemas = JSON.parse(readFileSync(join(specDir, file), 'utf8')).components?.schemas ?? {};
  for (const [name, schema] of Object.entries(schemas)) {
    if (!definitions.has(name)) definitions.set(name, schema);
    for (const gvk of schema['x-kubernetes-group-version-kind'] ?? []) {
      gvks.set(`${gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`} ${gvk.kind}`, name);
    }
  }
}

const prefixes = [
  ['io.k8s.apimachinery.pkg.apis.meta.v1.', 'metav1.'],
  ['io.k8s.api.', ''],
  ['io.k8s.apiextensions-apiserver.pkg.apis.', ''],
  ['io.k8s.kube-aggregator.pkg.apis.', ''],
];
/** `core.v1.PodSpec`, `metav1.ObjectMeta`, `apiextensions.v1.JSONSchemaProps`: short, and unique. */
function shortName(name) {
  for (const [long, short] of prefixes) if (name.startsWith(long)) return short + name.slice(long.length);
  return name;
}

const refName = (ref) => ref.slice(ref.lastIndexOf('/') + 1);
const scalar = { t: 's' };
const deducedShape = { t: 'd' };
const atomicShape = { t: 'a' };

/** A definition that is no struct: its shape wherever it is referenced. */
function aliasOf(name) {
  if (name === 'io.k8s.apimachinery.pkg.api.resource.Quantity') return scalar;
  if (name === 'io.k8s.apimachinery.pkg.runtime.RawExtension') return atomicShape;
  const def = definitions.get(name);
  if (def === undefined) throw new Error(`no definition ${name}`);
  if (def['x-kubernetes-preserve-unknown-fields'] === true) throw new Error(`${name}: x-kubernetes-preserve-unknown-fields is not modelled`);
  const type = def.type ?? '';
  if (type === '') return deducedShape;
  if (type === 'object') return def.properties === undefined && def.additionalProperties === undefined ? deducedShape : undefined;
  if (type === 'array') return shapeOf(def, name);
  return scalar;
}

function mapType(ext, where) {
  const v = ext['x-kubernetes-map-type'];
  if (v === undefined) return undefined;
  if (v !== 'atomic' && v !== 'granular') throw new Error(`${where}: unknown map type ${v}`);
  return v === 'atomic' ? 1 : 0;
}

function listType(s, where) {
  const lt = s['x-kubernetes-list-type'];
  if (lt === 'atomic' || lt === 'set') return { lt };
  if (lt === 'map') {
    if (!Array.isArray(s['x-kubernetes-list-map-keys'])) throw new Error(`${where}: missing map keys`);
    return { lt, k: s['x-kubernetes-list-map-keys'] };
  }
  if (lt !== undefined) throw new Error(`${where}: unknown list type ${lt}`);
  const strategy = s['x-kubernetes-patch-strategy'];
  if (strategy === 'merge' || strategy === 'merge,retainKeys') {
    const key = s['x-kubernetes-patch-merge-key'];
    return key === undefined ? { lt: 'set' } : { lt: 'map', k: [key] };
  }
  return { lt: 'atomic' };
}

/** Key fields' defaults of a map list's element struct (the struct field's `default`). */
function keyDefaults(element, keys) {
  if (element.t !== 'o') return undefined;
  const props = definitions.get(element.long)?.properties ?? {};
  const d = {};
  for (const k of keys) if (props[k]?.default !== undefined) d[k] = props[k].default;
  return Object.keys(d).length > 0 ? d : undefined;
}

/** The shape of a property, item or additionalProperties schema. */
function shapeOf(s, where) {
  const ref = s.$ref ?? (s.allOf?.length === 1 ? s.allOf[0].$ref : undefined);
  if (ref !== undefined) {
    const name = refName(ref);
    const alias = aliasOf(name);
    if (alias !== undefined) return alias;
    const out = { t: 'o', n: shortName(name), long: name };
    const override = mapType(s, where);
    if (override !== undefined) out.a = override;
    return out;
  }
  if (s['x-kubernetes-preserve-unknown-fields'] === true) throw new Error(`${where}: x-kubernetes-preserve-unknown-fields is not modelled`);
  const type = s.type ?? '';
  if (type === '') return deducedShape;
  if (type === 'array') {
    const element = s.items === undefined ? deducedShape : shapeOf(s.items, `${where}[]`);
    const out = { t: 'l', ...listType(s, where), e: element };
    if (out.lt === 'map') {
      const d = keyDefaults(element, out.k);
      if (d !== undefined) out.d = d;
    }
    return out;
  }
  if (type === 'object') {
    if (s.properties !== undefined) throw new Error(`${where}: an inline struct is not modelled`);
    const v = s.additionalProperties === undefined || s.additionalProperties === true ? deducedShape : shapeOf(s.additionalProperties, `${where}{}`);
    const out = { t: 'm', v };
    if (mapType(s, where) === 1) out.a = 1;
    return out;
  }
  return scalar;
}

const strip = (shape) => JSON.parse(JSON.stringify(shape, (k, v) => (k === 'long' ? undefined : v)));

const types = {};
for (const name of [...definitions.keys()].sort()) {
  const def = definitions.get(name);
  if ((def.type ?? '') !== 'object' || def.properties === undefined || aliasOf(name) !== undefined) continue;
  if (def.additionalProperties !== undefined) throw new Error(`${name}: a struct with additionalProperties is not modelled`);
  const fields = {};
  for (const field of Object.keys(def.properties).sort()) fields[field] = strip(shapeOf(def.properties[field], `${name}.${field}`));
  const short = shortName(name);
  if (types[short] !== undefined) throw new Error(`two definitions named ${short}`);
  types[short] = mapType(def, name) === 1 ? { atomic: true, fields } : { fields };
}
const roots = {};
for (const key of [...gvks.keys()].sort()) {
  const name = gvks.get(key);
  if (types[shortName(name)] !== undefined) roots[key] = shortName(name);
}

// The cross-check against client-go's own structured-merge schema, where it is at hand.
let checked = 0;
if (clientGoSchema !== '-') {
  let smd;
  try {
    smd = parse(readFileSync(clientGoSchema, 'utf8'));
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
    console.log(`not checked: ${clientGoSchema} is not there`);
  }
  const byName = new Map((smd?.types ?? []).map((t) => [t.name, t]));
  const disagreements = [];
  const describeRef = (ref) => {
    if (ref.namedType !== undefined) {
      // client-go's schema comes from the OpenAPI v2 models, where IntOrString is a string of format int-or-string
      // (an untyped scalar); in the v3 documents kube-apiserver converts it has no type (untyped scalar, list or
      // map). Both merge a string or a number alike.
      if (ref.namedType === 'io.k8s.apimachinery.pkg.util.intstr.IntOrString') return 'd';
      const alias = ref.namedType.startsWith('__') ? (ref.namedType === '__untyped_atomic_' ? 'a' : 'd') : undefined;
      if (alias) return alias;
      const t = byName.get(ref.namedType);
      if (t?.scalar !== undefined && t.map === undefined) return 's';
      if (t?.map !== undefined && (t.map.fields ?? []).length === 0 && t.map.elementType?.namedType === '__untyped_deduced_') return 'd';
      if (t?.map !== undefined && (t.map.fields ?? []).length === 0 && t.map.elementType?.scalar === 'untyped') return 'd';
      return `o:${shortName(ref.namedType)}${ref.elementRelationship === 'separable' ? ':0' : ref.elementRelationship === 'atomic' ? ':1' : ''}`;
    }
    if (ref.scalar !== undefined) return ref.scalar === 'untyped' ? 'd' : 's';
    if (ref.list !== undefined) {
      const l = ref.list;
      const lt = l.elementRelationship === 'atomic' ? 'atomic' : (l.keys ?? []).length > 0 ? 'map' : 'set';
      return `l:${lt}:${(l.keys ?? []).join(',')}:${describeRef(l.elementType)}`;
    }
    if (ref.map !== undefined) return `m:${ref.map.elementRelationship === 'atomic' ? 1 : ''}:${describeRef(ref.map.elementType)}`;
    return '?';
  };
  const describeShape = (s) => {
    switch (s.t) {
      case 'o': return `o:${s.n}${s.a === undefined ? '' : `:${s.a}`}`;
      case 'l': return `l:${s.lt}:${(s.k ?? []).join(',')}:${describeShape(s.e)}`;
      case 'm': return `m:${s.a ? 1 : ''}:${describeShape(s.v)}`;
      default: return s.t;
    }
  };
  for (const [long] of definitions) {
    const t = byName.get(long);
    const ours = types[shortName(long)];
    if (t?.map?.fields === undefined || ours === undefined) continue;
    checked++;
    if ((t.map.elementRelationship === 'atomic') !== (ours.atomic === true)) disagreements.push(`${long}: atomic`);
    const theirs = new Map(t.map.fields.map((f) => [f.name, f]));
    for (const name of new Set([...theirs.keys(), ...Object.keys(ours.fields)])) {
      const f = theirs.get(name);
      const mine = ours.fields[name];
      if (f === undefined || mine === undefined) {
        disagreements.push(`${long}.${name}: only in ${f === undefined ? 'the OpenAPI' : 'client-go'}`);
        continue;
      }
      const a = describeRef(f.type);
      const b = describeShape(mine);
      if (a !== b) disagreements.push(`${long}.${name}: client-go ${a}, OpenAPI ${b}`);
    }
  }
  if (disagreements.length > 0) {
    console.error(`the OpenAPI and client-go's schema disagree:\n${disagreements.join('\n')}`);
    process.exit(1);
  }
}

const header = '// Generated by scripts/gen-merge-schema.mjs from kubernetes v1.36.3 api/openapi-spec/v3 (the OpenAPI v3 kube-apiserver\n' +
  '// 1.36 serves). Do not edit. Shapes: s scalar, a atomic, d deduced, o struct (n; a overrides atomicity), m map (v; a\n' +
  '// atomic), l list (lt listType, e element, k listMapKey, d key defaults).\n';
// As JSON text parsed on first use: a process that never merges an apply configuration (validate, most of serve's
// life) then pays for scanning one string, not for building 750 objects at startup.
writeFileSync(output, header + `import type { MergeSchema } from './schema.js';\n\n` +
  `const text = ${JSON.stringify(JSON.stringify({ roots, types }))};\n\n` +
  `let parsed: MergeSchema | undefined;\n\n` +
  `/** The schema, parsed on first use. */\n` +
  `export function mergeSchema(): MergeSchema {\n  return (parsed ??= JSON.parse(text) as MergeSchema);\n}\n`);
console.log(`wrote ${Object.keys(types).length} types, ${Object.keys(roots).length} roots${checked > 0 ? `; ${checked} types checked against client-go's schema` : ''}`);
