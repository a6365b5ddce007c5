// --crd DIR: the CustomResourceDefinitions custom resources are type-checked against. Reads the directory's .yaml,
// .yml and .json files (as a manifest directory is read), every document, a List (`kubectl get crd -o yaml`)
// unwrapped; anything that is not a CustomResourceDefinition is skipped. Only the type check reads them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { combineSources, BUILTIN_SCHEMAS } from '../cel/index.js';
import type { SchemaSource } from '../cel/index.js';
import { crdSchemas } from '../cel/schemas/crd.js';
import type { CustomResourceDefinition } from '../cel/schemas/crd.js';
import { ManifestError } from './errors.js';
import { isManifestFileName } from './files.js';

function definitionsIn(value: unknown): CustomResourceDefinition[] {
  if (value === null || typeof value !== 'object') return [];
  const object = value as { kind?: unknown; items?: unknown };
  if (object.kind === 'CustomResourceDefinition') return [object as CustomResourceDefinition];
  if (typeof object.kind === 'string' && object.kind.endsWith('List') && Array.isArray(object.items)) return object.items.flatMap(definitionsIn);
  return [];
}

/** The CustomResourceDefinitions in a directory. Throws ManifestError when it cannot be read or parsed. */
export function readCustomResourceDefinitions(dir: string): CustomResourceDefinition[] {
  let names: string[];
  try {
    names = readdirSync(dir, { withFileTypes: true }).filter((e) => !e.isDirectory() && isManifestFileName(e.name)).map((e) => e.name).sort();
  } catch (err) {
    throw new ManifestError(`failed to read CustomResourceDefinition directory "${dir}": ${(err as Error).message}`, { cause: err });
  }
  const crds: CustomResourceDefinition[] = [];
  for (const name of names) {
    const file = join(dir, name);
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
      if (doc.errors.length > 0) throw new ManifestError(`failed to parse "${file}": ${doc.errors[0]!.message}`);
      crds.push(...definitionsIn(doc.toJS()));
    }
  }
  return crds;
}

/** The schemas a type check uses: the built-in kinds, and the custom resources of --crd DIR where given. */
export function schemaSourceFor(crdDir: string): SchemaSource {
  return crdDir === '' ? BUILTIN_SCHEMAS : combineSources(BUILTIN_SCHEMAS, crdSchemas(readCustomResourceDefinitions(crdDir)));
}
