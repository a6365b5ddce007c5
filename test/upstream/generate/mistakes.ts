// Manifest directories with the mistakes people make, for the loader's error texts: YAML syntax errors, unknown and
// misspelt fields, names without the reserved suffix, duplicates, bindings naming no policy, the wrong kind or
// apiVersion for the plugin, files the loader skips or refuses by their suffix, invalid fields and CEL that does not
// compile, keys that are not strings (maps, sequences, nulls, numbers), NEL/LS/PS line breaks. Each directory starts valid (a generated policy set) and gets one or two mistakes.
import { stringify } from 'yaml';
import type { Rng } from './rng.js';
import type { JsonObject } from './requests.js';

export type Files = Record<string, string>;

const yaml = (objects: readonly JsonObject[]): string => objects.map((o) => stringify(o)).join('---\n');

type Mistake = (rng: Rng, objects: JsonObject[]) => Files | undefined;

/** Whole lines people paste or mistype into a manifest. */
const badLines = [
  '  bad: [unclosed', '\tindented: with a tab', 'key: value: another', '- stray list item', '  "unterminated', "  'unterminated",
  '  x: {a: 1', '  x: [a, b]]', '  x: }', '  x: "bad \\q escape"', '  x: "\\x4"', '  x: "\\uD800"', '  x: *undefinedAnchor',
  '  x: &', '  x: @at', '  x: `tick', '  x: |0', '  x: |x', '  x: !<tag', '  x: !a!b c', '  ? complex', ' y: misaligned',
  '     z: too deep', '%YAML 1.2', '... ', '  x: "a\u0001b"', '  - x', '  x: - y', '\t# tabbed comment', '  x: ? y',
];

/** Short fragments dropped inside a line. */
const badFragments = ['\t', ':', ': ', '- ', '[', ']', '{', '}', ',', '"', "'", '\\', '#', '&a ', '*a', '!', '|', '>', '%', '@', '`', '\u0001', '\u007f', '\u2028', '? '];

/** Text with one to three YAML mistakes: lines inserted, fragments dropped in, characters removed, indentation tabbed. */
function yamlDamage(rng: Rng, text: string): string {
  let lines = text.split('\n');
  const damages = rng.int(1, 3);
  for (let d = 0; d < damages; d++) {
    const at = rng.int(1, Math.max(1, lines.length - 2));
    const line = lines[at] ?? '';
    switch (rng.int(0, 4)) {
      case 0:
        lines.splice(at, 0, rng.pick(badLines));
        break;
      case 1: {
        const col = rng.int(0, line.length);
        lines[at] = line.slice(0, col) + rng.pick(badFragments) + line.slice(col);
        break;
      }
      case 2: {
        const col = rng.int(0, Math.max(0, line.length - 1));
        lines[at] = line.slice(0, col) + line.slice(col + 1);
        break;
      }
      case 3:
        lines[at] = line.replace(/^ +/, (spaces) => '\t'.repeat(Math.max(1, spaces.length >> 1)));
        break;
      default:
        // Windows line endings and a leading separator change what the splitter hands the YAML reader
        lines = rng.chance(0.5) ? lines.map((l) => `${l}\r`) : ['---', ...lines];
        break;
    }
  }
  return lines.join('\n');
}

/** Keys go-yaml decodes as something other than a string: maps and sequences (refused), nulls, uint64s, numbers, bools. */
const oddKeys = [
  ['{patchType: JSONPatch, b: 2}: c'], ['? {a: 1, b: [x, ~]}', ': c'], ['[a, 1, ~]: c'], ['? [x]', ': y'], ['~: a'],
  ['null: {b: 1}'], ['? ', ': x'], ['18446744073709551615: a'], ['1.5: a'], ['1e6: a'], ['.inf: a'], ['yes: a'], ['0x1F: a'],
  ['2001-12-14: a'], ['<<: {a: 1}'], ['<<: 1'],
];

/** Lines of `text` with one key go-yaml does not read as a string inserted at the indentation of a mapping's key. */
function oddKey(rng: Rng, text: string): string {
  const lines = text.split('\n');
  const keyLines = lines.map((l, i) => [i, /^( *)[A-Za-z][A-Za-z0-9]*:/.exec(l)] as const).filter(([, m]) => m !== null);
  const [at, m] = rng.pick(keyLines);
  lines.splice(at, 0, ...rng.pick(oddKeys).map((l) => `${m![1]}${l}`));
  return lines.join('\n');
}

/** NEL, LS or PS (line breaks to go-yaml, not to most YAML libraries) inside a line, at its start, ending it, or in a comment. */
function unicodeBreak(rng: Rng, text: string): string {
  const lines = text.split('\n');
  const at = rng.int(1, Math.max(1, lines.length - 2));
  const line = lines[at] ?? '';
  const brk = rng.pick(['\u0085', '\u2028', '\u2029']);
  switch (rng.int(0, 3)) {
    case 0: {
      const col = rng.int(0, line.length);
      lines[at] = line.slice(0, col) + brk + line.slice(col);
      break;
    }
    case 1:
      lines[at] = brk + line;
      break;
    case 2:
      lines[at] = `${line}${brk}${lines[at + 1] ?? ''}`;
      lines.splice(at + 1, 1);
      break;
    default:
      lines[at] = `${line} # note${brk}${rng.pick(['', 'x: 1', '  y'])}`;
      break;
  }
  return lines.join('\n');
}

const specOf = (o: JsonObject): JsonObject => (o['spec'] ??= {}) as JsonObject;
const metaOf = (o: JsonObject): JsonObject => (o['metadata'] ??= {}) as JsonObject;
const policies = (objects: JsonObject[]): JsonObject[] => objects.filter((o) => !String(o['kind']).endsWith('Binding'));
const bindings = (objects: JsonObject[]): JsonObject[] => objects.filter((o) => String(o['kind']).endsWith('Binding'));

const mistakes: Record<string, Mistake> = {
  yamlSyntax: (rng, objects) => ({ 'policies.yaml': yamlDamage(rng, yaml(objects)) }),
  unknownField: (rng, objects) => {
    const o = rng.pick(objects);
    specOf(o)[rng.pick(['unknownField', 'validation', 'matchConstraint', 'failurepolicy', 'policyname'])] = rng.pick(['x', 1, ['y']]);
    return undefined;
  },
  unknownTopField: (rng, objects) => {
    rng.pick(objects)[rng.pick(['specs', 'status', 'Spec'])] = {};
    return undefined;
  },
  missingSuffix: (rng, objects) => {
    const o = rng.pick(objects);
    metaOf(o)['name'] = String(metaOf(o)['name']).replace('.static.k8s.io', rng.pick(['', '.k8s.io', '.static.k8s.io.']));
    return undefined;
  },
  noName: (rng, objects) => {
    delete metaOf(rng.pick(objects))['name'];
    return undefined;
  },
  duplicateName: (rng, objects) => {
    const o = rng.pick(objects);
    objects.push(structuredClone(o));
    return undefined;
  },
  danglingBinding: (rng, objects) => {
    const b = bindings(objects);
    if (b.length === 0) return undefined;
    specOf(rng.pick(b))['policyName'] = rng.pick(['missing.static.k8s.io', 'missing', '']);
    return undefined;
  },
  wrongApiVersion: (rng, objects) => {
    rng.pick(objects)['apiVersion'] = rng.pick(['admissionregistration.k8s.io/v1beta1', 'admissionregistration.k8s.io/v1alpha1', 'admissionregistration.k8s.io/v2', 'v1', '']);
    return undefined;
  },
  wrongKind: (rng, objects) => {
    rng.pick(objects)['kind'] = rng.pick(['ValidatingWebhookConfiguration', 'ConfigMap', 'MutatingAdmissionPolicy', 'ValidatingAdmissionPolicy', '']);
    return undefined;
  },
  damagedExpression: (rng, objects) => {
    // A policy's own expression with one slip of the keyboard: cut short, a character lost, one typed in, or two
    // swapped. cel-go's parser decides the errors (ANTLR's recovery, its visitor's and macros' checks).
    const sites = expressionSites(policies(objects));
    if (sites.length === 0) return undefined;
    const [holder, key] = rng.pick(sites);
    const original = String(holder[key]);
    for (let tries = 0; tries < 8; tries++) {
      const damaged = damage(rng, original);
      if (damaged !== original) {
        holder[key] = damaged;
        return undefined;
      }
    }
    return undefined;
  },
  badExpression: (rng, objects) => {
    const p = policies(objects);
    if (p.length === 0) return undefined;
    const spec = specOf(rng.pick(p));
    const bad = rng.pick(['object.metadata.name ==', 'object.nope(', 'undeclared.x == 1', "1 + 'a'", '[1, "a"][0] == 1', "['a', dyn(1)].size() > 0", 'object.metadata.name.size() > 0 &&', 'x.y']);
    const validations = spec['validations'];
    if (Array.isArray(validations) && validations.length > 0) (validations[0] as JsonObject)['expression'] = bad;
    const mutations = spec['mutations'];
    if (Array.isArray(mutations) && mutations.length > 0) (mutations[0] as JsonObject)['applyConfiguration'] = { expression: bad };
    return undefined;
  },
  invalidField: (rng, objects) => {
    const o = rng.pick(objects);
    const spec = specOf(o);
    switch (rng.int(0, 8)) {
      case 5: for (const v of (spec['validations'] as JsonObject[] | undefined) ?? []) v['message'] = 'a\nmultiline message'; break;
      case 6: for (const v of (spec['validations'] as JsonObject[] | undefined) ?? []) v['reason'] = rng.pick(['Unauthorized', 'forbidden', '']); break;
      case 7: for (const m of (spec['mutations'] as JsonObject[] | undefined) ?? []) m['jsonPatch'] = { expression: rng.pick(['[]', "JSONPatch{op: 'add', path: '/x', value: 1}", "[{'op': 'add'}]"]) }; break;
      case 8: spec['auditAnnotations'] = [{ key: rng.pick(['ok', 'bad key', '', 'x'.repeat(70)]), valueExpression: rng.pick(["object.metadata.labels['team']", "true ? 'a' : null", "'v'"]) }]; break;
      case 0: spec['failurePolicy'] = 'Sometimes'; break;
      case 1: spec['validationActions'] = rng.pick([['Deny', 'Warn'], [], ['Deny', 'Deny'], ['Block']]); break;
      case 2: spec['matchConstraints'] = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['PATCH'], resources: ['pods'] }] }; break;
      case 3: spec['validations'] = []; break;
      default: spec['paramKind'] = { apiVersion: 'v1', kind: 'ConfigMap' }; break;
    }
    return undefined;
  },
  wrongType: (rng, objects) => {
    const o = rng.pick(objects);
    const spec = specOf(o);
    const field = rng.pick(['failurePolicy', 'validations', 'matchConstraints', 'policyName', 'variables']);
    spec[field] = rng.pick([1, true, 'text', { a: 1 }, [1]]);
    return undefined;
  },
  fileSuffix: (rng, objects) => ({ [rng.pick(['policies.yml', 'policies.json', 'policies.txt', 'policies.YAML', '.hidden.yaml', 'policies.yaml~', 'policies'])]: yaml(objects) }),
  jsonFile: (_rng, objects) => ({ 'policies.json': JSON.stringify(objects.length === 1 ? objects[0] : { apiVersion: 'v1', kind: 'List', items: objects }) }),
  listWrapper: (rng, objects) => ({ 'policies.yaml': stringify({ apiVersion: 'admissionregistration.k8s.io/v1', kind: rng.pick(['ValidatingAdmissionPolicyList', 'List', 'MutatingAdmissionPolicyList']), items: objects }) }),
  emptyDocuments: (_rng, objects) => ({ 'policies.yaml': `---\n${yaml(objects)}\n---\n# only a comment\n---\n` }),
  splitFiles: (_rng, objects) => Object.fromEntries(objects.map((o, i) => [`${String(i).padStart(2, '0')}-${String(metaOf(o)['name'] ?? 'x')}.yaml`, stringify(o)])),
  emptyFile: () => ({ 'empty.yaml': '' }),
  nullDocument: (_rng, objects) => ({ 'policies.yaml': `${yaml(objects)}---\nnull\n` }),
  scalarDocument: (_rng, objects) => ({ 'policies.yaml': `${yaml(objects)}---\njust a string\n` }),
  duplicateKey: (_rng, objects) => ({ 'policies.yaml': yaml(objects).replace('spec:', 'spec: {}\nspec:') }),
  oddKey: (rng, objects) => ({ 'policies.yaml': oddKey(rng, yaml(objects)) }),
  unicodeBreak: (rng, objects) => ({ 'policies.yaml': unicodeBreak(rng, yaml(objects)) }),
};

/** Every CEL expression of the policies, as (object holding it, key). */
function expressionSites(objects: JsonObject[]): Array<[JsonObject, string]> {
  const sites: Array<[JsonObject, string]> = [];
  const add = (o: unknown, key: string): void => {
    if (typeof o === 'object' && o !== null && typeof (o as JsonObject)[key] === 'string') sites.push([o as JsonObject, key]);
  };
  for (const p of objects) {
    const spec = specOf(p);
    for (const v of (spec['validations'] as JsonObject[] | undefined) ?? []) {
      add(v, 'expression');
      add(v, 'messageExpression');
    }
    for (const v of (spec['variables'] as JsonObject[] | undefined) ?? []) add(v, 'expression');
    for (const c of (spec['matchConditions'] as JsonObject[] | undefined) ?? []) add(c, 'expression');
    for (const a of (spec['auditAnnotations'] as JsonObject[] | undefined) ?? []) add(a, 'valueExpression');
    for (const m of (spec['mutations'] as JsonObject[] | undefined) ?? []) {
      add(m['applyConfiguration'], 'expression');
      add(m['jsonPatch'], 'expression');
    }
  }
  return sites;
}

function damage(rng: Rng, text: string): string {
  if (text.length < 2) return `${text}(`;
  const at = rng.int(0, text.length - 1);
  switch (rng.int(0, 3)) {
    case 0: return text.slice(0, Math.max(1, at));
    case 1: return text.slice(0, at) + text.slice(at + 1);
    case 2: return text.slice(0, at) + rng.pick(['(', ')', '[', ']', '{', '}', ',', '.', '!', '-', '+', '?', ':', "'", '"', '=', '<', '&', '|', '@', '`', '\\', ' 1', ' x']) + text.slice(at);
    default: return at + 1 < text.length ? text.slice(0, at) + text[at + 1] + text[at] + text.slice(at + 2) : text.slice(0, at);
  }
}

/**
 * Mistakes whose upstream answer the daemon does not give yet, left out of generation until it does (README
 * "Parity with upstream", open differences). None at present.
 */
export const openMistakes: ReadonlySet<string> = new Set<string>();

export const mistakeNames = Object.keys(mistakes).filter((m) => !openMistakes.has(m));

/** `objects` (a valid set, changed in place) with one or two mistakes, as the files of a directory. */
export function withMistakes(rng: Rng, objects: JsonObject[]): { files: Files; mistakes: string[] } {
  const chosen = rng.some(mistakeNames, 1, 2);
  let files: Files | undefined;
  for (const name of chosen) {
    const made = mistakes[name]!(rng, objects);
    if (made !== undefined) files = { ...(files ?? {}), ...made };
  }
  return { files: files ?? { 'policies.yaml': yaml(objects) }, mistakes: chosen };
}

export { yaml as yamlDocuments };
