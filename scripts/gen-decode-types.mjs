#!/usr/bin/env node
// Generates lib/admission/mutating/decode-types.generated.ts: for every built-in kind kube-apiserver 1.36 serves (the
// x-kubernetes-group-version-kind roots of kubernetes v1.36.3 api/openapi-spec/v3), the struct types strict decoding
// walks after a JSONPatch (S/admission/plugin/policy/mutating/patch/json_patch.go decodes the patched object
// strictly into the kind's Go type): each struct's JSON fields with the mapped type the walker checks
// (lib/api/strict-walker.ts) and the Go type as encoding/json names it in a type error ("v1.PullPolicy",
// "[]v1.Container", "v1.ResourceList", "resource.Quantity"). Both come from the Go sources at v0.36.3: the types.go of
// every k8s.io/api group version, k8s.io/apimachinery meta/v1, k8s.io/apiextensions-apiserver apiextensions/v1 and
// k8s.io/kube-aggregator apiregistration/v1, read from the Go module cache. Types with their own UnmarshalJSON are
// the walker's scalars; apiextensions' JSON and JSONSchemaPropsOrArray/OrStringArray accept any JSON here (their
// UnmarshalJSON decodes a schema with the non-strict encoding/json, so nothing inside is an unknown field; a type
// error inside one is not reported here), JSONSchemaPropsOrBool a boolean or an object (strict-decode.ts).
// The generated file is committed, so neither the build nor the daemon reads the sources.
// Usage: node scripts/gen-decode-types.mjs [GOMODCACHE [output.ts]]
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const modCache = process.argv[2] ?? process.env.GOMODCACHE ?? join(homedir(), 'go/pkg/mod');
const output = process.argv[3] ?? join(here, '../lib/admission/mutating/decode-types.generated.ts');
const v = 'v0.36.3';
const specDir = join(modCache, 'k8s.io/kubernetes@v1.36.3/api/openapi-spec/v3');

// import path -> [directory, files, the prefix of its types' names (as merge-schema.generated.ts names them)]
const packages = new Map();
const apiRoot = join(modCache, `k8s.io/api@${v}`);
for (const group of readdirSync(apiRoot, { withFileTypes: true }).filter((d) => d.isDirectory())) {
  for (const version of readdirSync(join(apiRoot, group.name), { withFileTypes: true }).filter((d) => d.isDirectory())) {
    const file = join(apiRoot, group.name, version.name, 'types.go');
    if (existsSync(file)) packages.set(`k8s.io/api/${group.name}/${version.name}`, { files: [file], prefix: `${group.name}.${version.name}` });
  }
}
const meta = join(modCache, `k8s.io/apimachinery@${v}/pkg/apis/meta/v1`);
packages.set('k8s.io/apimachinery/pkg/apis/meta/v1', { files: [join(meta, 'types.go'), join(meta, 'group_version.go')], prefix: 'metav1' });
const apiextensions = join(modCache, `k8s.io/apiextensions-apiserver@${v}/pkg/apis/apiextensions/v1`);
packages.set('k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1', { files: [join(apiextensions, 'types.go'), join(apiextensions, 'types_jsonschema.go')], prefix: 'apiextensions.v1' });
packages.set('k8s.io/kube-aggregator/pkg/apis/apiregistration/v1', { files: [join(modCache, `k8s.io/kube-aggregator@${v}/pkg/apis/apiregistration/v1/types.go`)], prefix: 'apiregistration.v1' });

// Types whose UnmarshalJSON the walker judges itself (its vocabulary), by import path and name; the package name is
// what reflect prints.
const walkerScalars = new Map([
  ['k8s.io/apimachinery/pkg/apis/meta/v1.Time', 'metav1.Time'],
  ['k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime', 'metav1.MicroTime'],
  ['k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1', 'metav1.FieldsV1'],
  ['k8s.io/apimachinery/pkg/types.UID', 'types.UID'],
  ['k8s.io/apimachinery/pkg/api/resource.Quantity', 'resource.Quantity'],
  ['k8s.io/apimachinery/pkg/util/intstr.IntOrString', 'intstr.IntOrString'],
  ['k8s.io/apimachinery/pkg/runtime.RawExtension', 'runtime.RawExtension'],
  ['k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON', 'runtime.RawExtension'],
  ['k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrArray', 'runtime.RawExtension'],
  ['k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrBool', 'apiextensions.JSONSchemaPropsOrBool'],
  ['k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrStringArray', 'runtime.RawExtension'],
]);
// Named types outside the parsed packages: their underlying type.
const foreignUnderlying = new Map([['k8s.io/apimachinery/pkg/types.NodeName', 'string']]);
const builtins = new Set(['string', 'bool', 'int32', 'int64', 'float64']);

/** One Go file: package name, imports (alias -> path), struct field lines and named types. */
function parseGo(file, importPath, structs, named, packageNames) {
  const text = readFileSync(file, 'utf8');
  const pkg = /^package (\w+)/m.exec(text)[1];
  packageNames.set(importPath, pkg);
  const imports = new Map();
  for (const m of text.matchAll(/^\s*(?:import\s+)?(?:(\w+)\s+)?"([^"]+)"\s*$/gm)) imports.set(m[1] ?? m[2].slice(m[2].lastIndexOf('/') + 1), m[2]);
  let current = null;
  for (const line of text.split('\n')) {
    const decl = /^type (\w+) (.+)$/.exec(line);
    if (decl) {
      current = null;
      if (/^struct\s*\{/.test(decl[2])) {
        const struct = { name: decl[1], importPath, imports, fields: [] };
        structs.set(`${importPath}.${decl[1]}`, struct);
        if (!/^struct\s*\{\s*\}/.test(decl[2])) current = struct;
      } else {
        const expr = decl[2].replace(/\s*\/\/.*$/, '').trim();
        // `type X = pkg.Y` is pkg.Y itself, for reflect too
        named.set(`${importPath}.${decl[1]}`, { expr: expr.replace(/^=\s*/, ''), alias: expr.startsWith('='), importPath, imports });
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
    const [name, ...options] = field[3].split(',');
    if (name === '-') continue;
    current.fields.push({ json: name, embedded: field[1] === undefined, inline: options.includes('inline') || (field[1] === undefined && name === ''), expr: field[2] });
  }
}

const structs = new Map();
const named = new Map();
const packageNames = new Map([['k8s.io/apimachinery/pkg/types', 'types'], ['k8s.io/apimachinery/pkg/api/resource', 'resource'],
  ['k8s.io/apimachinery/pkg/util/intstr', 'intstr'], ['k8s.io/apimachinery/pkg/runtime', 'runtime']]);
for (const [importPath, { files }] of packages) for (const file of files) parseGo(file, importPath, structs, named, packageNames);

/** A type expression's referent: [import path, name], or a builtin name. */
function resolve(expr, ctx) {
  const q = /^(\w+)\.(\w+)$/.exec(expr);
  if (q) {
    const path = ctx.imports.get(q[1]);
    if (path === undefined) throw new Error(`${ctx.importPath}: unknown import ${q[1]}`);
    return `${path}.${q[2]}`;
  }
  return builtins.has(expr) ? expr : `${ctx.importPath}.${expr}`;
}

const typeName = (key) => {
  const dot = key.lastIndexOf('.');
  return `${packages.get(key.slice(0, dot)).prefix}.${key.slice(dot + 1)}`;
};

/** The walker's type for a Go type expression written in `ctx`'s package; collects the structs it needs. */
function walkerType(expr, ctx, needed) {
  if (expr.startsWith('*')) return '*' + walkerType(expr.slice(1), ctx, needed);
  if (expr === '[]byte') return 'bytes';
  if (expr.startsWith('[]')) return '[]' + walkerType(expr.slice(2), ctx, needed);
  const map = /^map\[([^\]]+)\](.+)$/.exec(expr);
  if (map) return `map[string]${walkerType(map[2], ctx, needed)}`;
  const key = resolve(expr, ctx);
  if (builtins.has(key)) return key;
  if (walkerScalars.has(key)) return walkerScalars.get(key);
  if (foreignUnderlying.has(key)) return foreignUnderlying.get(key);
  if (structs.has(key)) {
    needed.push(key);
    return typeName(key);
  }
  const n = named.get(key);
  if (n?.alias === true) return walkerType(n.expr, n, needed);
  if (n === undefined) throw new Error(`${ctx.importPath}: no type ${expr} (${key})`);
  return walkerType(n.expr, n, needed);
}

/** reflect.Type.String() of a Go type expression written in `ctx`'s package (a pointer: its element). */
function reflectString(expr, ctx) {
  if (expr.startsWith('*')) return reflectString(expr.slice(1), ctx);
  if (expr === '[]byte') return '[]uint8';
  if (expr.startsWith('[]')) return '[]' + reflectString(expr.slice(2), ctx);
  const map = /^map\[([^\]]+)\](.+)$/.exec(expr);
  if (map) return `map[${reflectString(map[1], ctx)}]${reflectString(map[2], ctx)}`;
  const key = resolve(expr, ctx);
  if (builtins.has(key)) return key;
  const alias = named.get(key);
  if (alias?.alias === true) return reflectString(alias.expr, alias);
  const dot = key.lastIndexOf('.');
  const pkg = packageNames.get(key.slice(0, dot));
  if (pkg === undefined) throw new Error(`no package name for ${key}`);
  return `${pkg}.${key.slice(dot + 1)}`;
}

function fieldsOf(key, needed) {
  const s = structs.get(key);
  const out = {};
  for (const f of s.fields) {
    if (f.inline) {
      let inner = resolve(f.expr.replace(/^\*/, ''), s);
      for (let n = named.get(inner); n?.alias === true; n = named.get(inner)) inner = resolve(n.expr, n);
      if (inner === 'k8s.io/apimachinery/pkg/apis/meta/v1.TypeMeta') Object.assign(out, { kind: { type: 'string', go: 'string' }, apiVersion: { type: 'string', go: 'string' } });
      else if (structs.has(inner)) Object.assign(out, fieldsOf(inner, needed));
      else throw new Error(`inline ${inner} of ${key} is unknown`);
      continue;
    }
    out[f.json] = { type: walkerType(f.expr, s, needed), go: reflectString(f.expr, s) };
  }
  return out;
}

// roots: every group-version-kind the OpenAPI v3 documents declare whose Go struct was read
const roots = {};
const pending = [];
for (const file of readdirSync(specDir).filter((f) => f.endsWith('_openapi.json')).sort()) {
  const schemas = JSON.parse(readFileSync(join(specDir, file), 'utf8')).components?.schemas ?? {};
  for (const [definition, schema] of Object.entries(schemas)) {
    for (const gvk of schema['x-kubernetes-group-version-kind'] ?? []) {
      const key = [...structs.keys()].find((k) => typeName(k) === definition.replace(/^io\.k8s\.api\./, '').replace(/^io\.k8s\.apimachinery\.pkg\.apis\.meta\.v1\./, 'metav1.')
        .replace(/^io\.k8s\.apiextensions-apiserver\.pkg\.apis\./, '').replace(/^io\.k8s\.kube-aggregator\.pkg\.apis\./, ''));
      if (key === undefined) continue;
      roots[`${gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`} ${gvk.kind}`] = typeName(key);
      pending.push(key);
    }
  }
}
const schema = {};
while (pending.length > 0) {
  const key = pending.pop();
  const name = typeName(key);
  if (schema[name] !== undefined) continue;
  const needed = [];
  schema[name] = { go: structs.get(key).name, fields: fieldsOf(key, needed) };
  pending.push(...needed);
}
const sortedSchema = Object.fromEntries(Object.keys(schema).sort().map((k) => [k, schema[k]]));
const sortedRoots = Object.fromEntries(Object.keys(roots).sort().map((k) => [k, roots[k]]));

const header = `// Generated by scripts/gen-decode-types.mjs from the Go types of k8s.io/api, apimachinery, apiextensions-apiserver and\n` +
  `// kube-aggregator ${v}, for the kinds of kubernetes v1.36.3 api/openapi-spec/v3. Do not edit.\n`;
// As JSON text parsed on first use, like merge-schema.generated.ts: only a JSONPatch mutation needs it.
writeFileSync(output, header +
  `import type { ApiSchema } from '../../api/schema.js';\n\n` +
  `/** \`<apiVersion> <kind>\` -> root type, and the types */\n` +
  `interface DecodeTypes {\n  readonly roots: Readonly<Record<string, string>>;\n  readonly types: ApiSchema;\n}\n\n` +
  `const text = ${JSON.stringify(JSON.stringify({ roots: sortedRoots, types: sortedSchema }))};\n\n` +
  `let parsed: DecodeTypes | undefined;\n\n` +
  `/** The types, parsed on first use. */\n` +
  `export function decodeTypes(): DecodeTypes {\n  return (parsed ??= JSON.parse(text) as DecodeTypes);\n}\n`);
console.log(`wrote ${Object.keys(sortedSchema).length} types, ${Object.keys(sortedRoots).length} roots`);
