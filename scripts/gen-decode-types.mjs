#!/usr/bin/env node
// Generates lib/admission/mutating/decode-types.generated.ts: for every struct type of the core, apps and batch kinds
// in ../shared/reference/k8s-api/list-map-keys.json, its JSON fields with the mapped type strict decoding walks
// (from that file) and the Go type as encoding/json names it in a type error ("v1.PullPolicy", "[]v1.Container",
// "v1.ResourceList", "resource.Quantity"), which needs the named types of the Go sources: pass the directories of
// k8s.io/api and k8s.io/apimachinery checked out at v0.36.3 (only core/v1, apps/v1, batch/v1 types.go and
// pkg/apis/meta/v1/types.go are read). The generated file is committed, so neither the build nor the daemon reads
// the sources.
// Usage: node scripts/gen-decode-types.mjs <k8s.io/api dir> <k8s.io/apimachinery dir> [list-map-keys.json [output.ts]]
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const [apiDir, machineryDir] = process.argv.slice(2);
if (!apiDir || !machineryDir) {
  console.error('usage: node scripts/gen-decode-types.mjs <k8s.io/api dir> <k8s.io/apimachinery dir> [list-map-keys.json [output.ts]]');
  process.exit(2);
}
const src = process.argv[4] ?? join(here, '../../shared/reference/k8s-api/list-map-keys.json');
const data = JSON.parse(readFileSync(src, 'utf8'));

// Go packages: the prefix list-map-keys.json uses, the file, and how other packages are imported in it.
const packages = {
  'core.v1': join(apiDir, 'core/v1/types.go'),
  'apps.v1': join(apiDir, 'apps/v1/types.go'),
  'batch.v1': join(apiDir, 'batch/v1/types.go'),
  metav1: join(machineryDir, 'pkg/apis/meta/v1/types.go'),
};
// import alias in a file -> list-map-keys prefix; every one of these packages is named "v1" in Go
const aliasPrefix = { metav1: 'metav1', v1: 'core.v1', corev1: 'core.v1', apps: 'apps.v1', batch: 'batch.v1' };

/** Parses `type X struct { … }` field lines and `type X <underlying>` declarations of one Go file. */
function parseGo(file, prefix) {
  const structs = new Map();
  const named = new Map();
  let current = null;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const decl = /^type (\w+) (.+)$/.exec(line);
    if (decl) {
      if (decl[2].startsWith('struct {')) {
        current = new Map();
        structs.set(`${prefix}.${decl[1]}`, current);
        if (decl[2].trim() === 'struct {}') current = null;
      } else {
        named.set(`${prefix}.${decl[1]}`, decl[2].replace(/\s*\/\/.*$/, '').trim());
        current = null;
      }
      continue;
    }
    if (current === null) continue;
    if (/^}/.test(line)) {
      current = null;
      continue;
    }
    const field = /^\s+(?:(\w+)\s+)?([^\s`]+)\s+`json:"([^"]*)"/.exec(line);
    if (!field) continue;
    const [name, options] = [field[3].split(',')[0], field[3].split(',').slice(1)];
    if (options.includes('inline') || (field[1] === undefined && name === '')) continue;
    current.set(name === '' ? field[1] : name, field[2]);
  }
  return { structs, named };
}

const goStructs = new Map();
const goNamed = new Map();
for (const [prefix, file] of Object.entries(packages)) {
  const { structs, named } = parseGo(file, prefix);
  for (const [k, v] of structs) goStructs.set(k, v);
  for (const [k, v] of named) goNamed.set(k, v);
}

/** The reflect.Type.String() of a Go type expression written in package `prefix`. */
function reflectString(expr, prefix) {
  if (expr.startsWith('*')) return reflectString(expr.slice(1), prefix);
  if (expr === '[]byte') return '[]uint8';
  if (expr.startsWith('[]')) return '[]' + reflectString(expr.slice(2), prefix);
  const map = /^map\[([^\]]+)\](.+)$/.exec(expr);
  if (map) return `map[${reflectString(map[1], prefix)}]${reflectString(map[2], prefix)}`;
  const qualified = /^(\w+)\.(\w+)$/.exec(expr);
  if (qualified) return aliasPrefix[qualified[1]] ? `v1.${qualified[2]}` : expr;
  if (/^(string|bool|byte|u?int(8|16|32|64)?|float(32|64))$/.test(expr)) return expr;
  return `v1.${expr}`;
}

/** The Go type expression of a field, for a pointer's element the element (the decoder dereferences first). */
function goFieldType(typeName, jsonName) {
  const prefix = typeName.slice(0, typeName.lastIndexOf('.'));
  const fields = goStructs.get(typeName);
  if (!fields) throw new Error(`no Go struct ${typeName}`);
  const expr = fields.get(jsonName);
  if (expr === undefined) throw new Error(`no Go field ${typeName}.${jsonName}`);
  return reflectString(expr, prefix);
}

// The walker's vocabulary for list-map-keys' mapped types (lib/api/strict-walker.ts).
const walkerScalars = new Map([
  ['string', 'string'], ['bool', 'bool'], ['int32', 'int32'], ['int64', 'int64'], ['float64', 'float64'], ['bytes', 'bytes'],
  ['types.UID', 'types.UID'], ['metav1.Time', 'metav1.Time'], ['metav1.MicroTime', 'metav1.MicroTime'],
  ['resource.Quantity', 'resource.Quantity'], ['intstr.IntOrString', 'intstr.IntOrString'], ['metav1.FieldsV1', 'metav1.FieldsV1'],
]);
function walkerType(t) {
  if (t.startsWith('*')) return '*' + walkerType(t.slice(1));
  if (t.startsWith('[]')) return '[]' + walkerType(t.slice(2));
  const map = /^map\[string\](.+)$/.exec(t);
  if (map) return `map[string]${walkerType(map[1])}`;
  if (walkerScalars.has(t)) return walkerScalars.get(t);
  if (!data.types[t]) throw new Error(`no type ${t} in list-map-keys.json`);
  return t;
}

function fieldsOf(typeName) {
  const out = {};
  for (const [name, f] of Object.entries(data.types[typeName].fields)) {
    if (f.inline) {
      const inner = f.type.replace(/^\*/, '');
      if (data.types[inner]) Object.assign(out, fieldsOf(inner));
      else if (inner === 'metav1.TypeMeta') Object.assign(out, { kind: { type: 'string', go: 'string' }, apiVersion: { type: 'string', go: 'string' } });
      else throw new Error(`inline ${inner} of ${typeName} is unknown`);
      continue;
    }
    out[name] = { type: walkerType(f.type), go: goFieldType(typeName, name) };
  }
  return out;
}

const schema = {};
for (const name of Object.keys(data.types).sort()) {
  if (name === 'metav1.TypeMeta') continue;
  schema[name] = { go: name.slice(name.lastIndexOf('.') + 1), fields: fieldsOf(name) };
}
const roots = {};
for (const [key, typeName] of Object.entries(data.roots)) {
  const [groupVersion, kind] = key.split(' ');
  roots[`${groupVersion.startsWith('core/') ? groupVersion.slice(5) : groupVersion} ${kind}`] = typeName;
}

const header = `// Generated by scripts/gen-decode-types.mjs from Kubernetes v0.36.3 (list-map-keys.json and the k8s.io/api,\n` +
  `// k8s.io/apimachinery types.go for Go type names). Do not edit.\n`;
writeFileSync(process.argv[5] ?? join(here, '../lib/admission/mutating/decode-types.generated.ts'), header +
  `import type { ApiSchema } from '../../api/schema.js';\n\n` +
  `/** \`<apiVersion> <kind>\` -> root type */\n` +
  `export const decodeRoots: Readonly<Record<string, string>> = ${JSON.stringify(roots)};\n\n` +
  `export const decodeSchema: ApiSchema = ${JSON.stringify(schema)};\n`);
console.log(`wrote ${Object.keys(schema).length} types, ${Object.keys(roots).length} roots`);
