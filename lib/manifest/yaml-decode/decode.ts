// go-yaml v2's decoder (go.yaml.in/yaml/v2 v2.4.3 decode.go decoder.unmarshal into an interface{}) over the nodes of
// one document, then what sigs.k8s.io/yaml v1.6.0 YAMLToJSON makes of the result (yaml.go convertToJSONableObject, then
// json.Marshal): merge keys (`<<`, decode.go merge), aliases decoded again where they stand (excessive aliasing,
// `anchor 'a' value contains itself`), keys that are maps or sequences (`invalid map key: %#v`), duplicate keys (the
// strict decoder's `key "k" already set in map`), non-string keys turned into strings, nil and uint64 keys refused,
// and infinite or NaN floats, which JSON cannot hold.
import type { JsonObject, JsonValue } from '../document.js';
import { DocumentSyntaxError } from '../document-error.js';
import { setOwn } from '../../json/own.js';
import { NodeKind } from '../yaml-syntax/nodes.js';
import type { YamlNode } from '../yaml-syntax/nodes.js';
import { formatFloat, goSyntax, goTypeName, NaNKey } from './go-syntax.js';
import type { GoKey, GoMap, GoValue } from './go-syntax.js';
import { MERGE_TAG, scalarValue } from './resolve.js';
import type { GoScalar } from './resolve.js';

/** Nesting deeper than this is refused instead of risking the stack; real manifests nest a few dozen levels. */
export const maxDocumentDepth = 1000;

const INT64_MAX = 0x7fffffffffffffffn;

function failf(message: string): never {
  throw new DocumentSyntaxError(`yaml: ${message}`);
}

// decode.go allowedAliasRatio
const aliasRatioRangeLow = 400_000;
const aliasRatioRangeHigh = 4_000_000;
function allowedAliasRatio(decodeCount: number): number {
  if (decodeCount <= aliasRatioRangeLow) return 0.99;
  if (decodeCount >= aliasRatioRangeHigh) return 0.1;
  return 0.99 - 0.89 * ((decodeCount - aliasRatioRangeLow) / (aliasRatioRangeHigh - aliasRatioRangeLow));
}

function isMerge(n: YamlNode): boolean {
  return n.kind === NodeKind.Scalar && n.value === '<<' && (n.implicit || n.tag === MERGE_TAG);
}

/**
 * decode.go's walk, shared by the two forms a document is decoded into: `M` is a map being filled, `V` a decoded
 * value. Keys are always Go scalars (a map or sequence key fails).
 */
abstract class Unmarshaler<M, V> {
  #decodeCount = 0;
  #aliasCount = 0;
  #aliasDepth = 0;
  #depth = 0;
  readonly #aliases = new Set<YamlNode>();

  protected abstract newMap(): M;
  protected abstract mapValue(m: M): V;
  protected abstract setMapIndex(m: M, key: GoKey, value: V, valueNode: YamlNode): void;
  protected abstract sequenceValue(items: V[]): V;
  protected abstract scalar(value: GoScalar): V;
  /** whether a decoded key is a map or a slice */
  protected abstract isCollection(value: V): boolean;

  /** decode.go unmarshal counts the document node before its content. */
  countDocumentNode(): void {
    this.#decodeCount++;
  }

  /** decode.go unmarshal; `into`: the map a merge fills (`n` is then a mapping or an alias to one). */
  unmarshal(n: YamlNode, into?: M): V {
    this.#decodeCount++;
    if (this.#aliasDepth > 0) this.#aliasCount++;
    if (this.#aliasCount > 100 && this.#decodeCount > 1000 && this.#aliasCount / this.#decodeCount > allowedAliasRatio(this.#decodeCount)) {
      failf('document contains excessive aliasing');
    }
    if (n.kind === NodeKind.Scalar) return this.scalar(scalarValue(n.tag, n.value, n.implicit));
    if (++this.#depth > maxDocumentDepth) throw new DocumentSyntaxError(`yaml: exceeded max depth of ${maxDocumentDepth}`);
    let value: V;
    if (n.kind === NodeKind.Alias) value = this.#alias(n, into);
    else if (n.kind === NodeKind.Mapping) value = this.#mapping(n, into);
    else value = this.sequenceValue(n.children.map((item) => this.unmarshal(item)));
    this.#depth--;
    return value;
  }

  #alias(n: YamlNode, into: M | undefined): V {
    if (this.#aliases.has(n)) failf(`anchor '${n.value}' value contains itself`);
    this.#aliases.add(n);
    this.#aliasDepth++;
    const value = this.unmarshal(n.alias!, into);
    this.#aliasDepth--;
    this.#aliases.delete(n);
    return value;
  }

  #mapping(n: YamlNode, into: M | undefined): V {
    const m = into ?? this.newMap();
    const children = n.children;
    for (let i = 0; i < children.length; i += 2) {
      const keyNode = children[i]!;
      const valueNode = children[i + 1]!;
      if (isMerge(keyNode)) {
        this.#merge(valueNode, m);
        continue;
      }
      const key = this.unmarshal(keyNode);
      if (this.isCollection(key)) failf(`invalid map key: ${goSyntax(new GoDecoder().unmarshal(keyNode))}`);
      const value = this.unmarshal(valueNode);
      this.setMapIndex(m, goKey(key as GoScalar), value, valueNode);
    }
    return this.mapValue(m);
  }

  /** decode.go merge: a map, an alias to one, or a sequence of those, the last merged first. */
  #merge(n: YamlNode, into: M): void {
    const wantMap = (): never => failf('map merge requires map or sequence of maps as the value');
    switch (n.kind) {
      case NodeKind.Mapping:
        this.unmarshal(n, into);
        return;
      case NodeKind.Alias:
        if (n.alias!.kind !== NodeKind.Mapping) wantMap();
        this.unmarshal(n, into);
        return;
      case NodeKind.Sequence:
        for (let i = n.children.length - 1; i >= 0; i--) {
          const item = n.children[i]!;
          if (item.kind === NodeKind.Alias ? item.alias!.kind !== NodeKind.Mapping : item.kind !== NodeKind.Mapping) wantMap();
          this.unmarshal(item, into);
        }
        return;
      default:
        wantMap();
    }
  }
}

/** A NaN is a key no other equals. */
function goKey(key: GoScalar): GoKey {
  return typeof key === 'number' && Number.isNaN(key) ? new NaNKey() : key;
}

/** Decodes into Go's own values, for the messages that print them (`%#v`). */
class GoDecoder extends Unmarshaler<GoMap, GoValue> {
  protected newMap(): GoMap {
    return new Map();
  }
  protected mapValue(m: GoMap): GoValue {
    return m;
  }
  protected setMapIndex(m: GoMap, key: GoKey, value: GoValue): void {
    m.set(key, value);
  }
  protected sequenceValue(items: GoValue[]): GoValue {
    return items;
  }
  protected scalar(value: GoScalar): GoValue {
    return value;
  }
  protected isCollection(value: GoValue): boolean {
    return Array.isArray(value) || value instanceof Map;
  }
}

/** A map being decoded into its JSON form. */
interface JsonMap {
  readonly object: JsonObject;
  /** the Go keys set so far, kept from the first key that is not a string on (Go tells `1` from `"1"`, JSON does not) */
  goKeys: Set<GoKey> | undefined;
  /** for a nil or uint64 key, the node of the value it holds (the last set) */
  refused: Map<GoKey, YamlNode> | undefined;
}

type Decoded = GoScalar | JsonObject | JsonValue[];

/**
 * Decodes into the JSON form sigs.k8s.io/yaml produces, in the same walk: keys become strings as convertToJSONableObject
 * makes them, ints numbers; what fails only after go-yaml has decoded the whole document (a refused key, a float JSON
 * cannot hold) is noted and raised at the end, and duplicate keys are collected as the strict decoder words them.
 */
class JsonDecoder extends Unmarshaler<JsonMap, Decoded> {
  readonly duplicates: string[] = [];
  /** the first refused key (Go ranges over a map in random order; the first in the document stands for it) */
  refusedKey: { map: JsonMap; key: GoKey } | undefined;
  nonFinite = false;

  protected newMap(): JsonMap {
    return { object: {}, goKeys: undefined, refused: undefined };
  }
  protected mapValue(m: JsonMap): Decoded {
    return m.object;
  }
  protected sequenceValue(items: Decoded[]): Decoded {
    for (let i = 0; i < items.length; i++) items[i] = this.json(items[i]!);
    return items as JsonValue[];
  }
  protected scalar(value: GoScalar): Decoded {
    return value;
  }
  protected isCollection(value: Decoded): boolean {
    return typeof value === 'object' && value !== null;
  }

  /** decode.go setMapIndex, with the key as sigs.k8s.io/yaml turns it into a string. */
  protected setMapIndex(m: JsonMap, key: GoKey, value: Decoded, valueNode: YamlNode): void {
    let present: boolean;
    if (typeof key === 'string' && m.goKeys === undefined) {
      present = Object.hasOwn(m.object, key);
    } else {
      m.goKeys ??= new Set(Object.keys(m.object));
      present = m.goKeys.has(key);
      m.goKeys.add(key);
    }
    // decode.go reports the line of the value, not of the key
    if (present) this.duplicates.push(`  line ${valueNode.line + 1}: key ${goSyntax(key)} already set in map`);
    const name = jsonKey(key);
    if (name === undefined) {
      (m.refused ??= new Map()).set(key, valueNode);
      this.refusedKey ??= { map: m, key };
      return;
    }
    setOwn(m.object, name, this.json(value));
  }

  /** A decoded value in its JSON form: an int a number (JSON numbers carry what JavaScript's do). */
  json(value: Decoded): JsonValue {
    if (typeof value === 'bigint') return Number(value);
    if (typeof value === 'number' && !Number.isFinite(value)) this.nonFinite = true;
    return value;
  }
}

/** convertToJSONableObject's string for a key; undefined for the types it refuses (nil, uint64). */
function jsonKey(key: GoKey): string | undefined {
  if (typeof key === 'string') return key;
  if (typeof key === 'boolean') return String(key);
  if (key instanceof NaNKey) return '.nan';
  if (typeof key === 'bigint') return key > INT64_MAX ? undefined : key.toString();
  if (typeof key === 'number') {
    const s = formatFloat(key, 32);
    return s === '+Inf' ? '.inf' : s === '-Inf' ? '-.inf' : s;
  }
  return undefined;
}

export interface DecodedDocument {
  readonly value: JsonValue;
  /** the strict decoder's findings, one `line N: key "k" already set in map` each */
  readonly duplicates: readonly string[];
}

/**
 * What sigs.k8s.io/yaml YAMLToJSON (and, for the duplicates, YAMLToJSONStrict) makes of a document's root node, as
 * JSON-like data; throws DocumentSyntaxError with upstream's text where it fails.
 */
export function decodeDocument(root: YamlNode | undefined): DecodedDocument {
  if (root === undefined) return { value: null, duplicates: [] };
  const decoder = new JsonDecoder();
  decoder.countDocumentNode();
  const value = decoder.json(decoder.unmarshal(root));
  const refused = decoder.refusedKey;
  if (refused !== undefined) {
    const valueNode = refused.map.refused!.get(refused.key)!;
    const v = new GoDecoder().unmarshal(valueNode);
    throw new DocumentSyntaxError(`unsupported map key of type: ${goTypeName(refused.key) ?? '%!s(<nil>)'}, key: ${goSyntax(refused.key)}, value: ${goSyntax(v)}`);
  }
  if (decoder.nonFinite) {
    const f = firstNonFinite(value)!;
    throw new DocumentSyntaxError(`json: unsupported value: ${formatFloat(f, 64)}`);
  }
  return { value, duplicates: decoder.duplicates };
}

/** The first infinite or NaN float json.Marshal meets: map keys in sorted order, depth first. */
function firstNonFinite(value: JsonValue): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : value;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (const item of value) {
      const f = firstNonFinite(item);
      if (f !== undefined) return f;
    }
    return undefined;
  }
  for (const key of Object.keys(value).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))) {
    const f = firstNonFinite(value[key]!);
    if (f !== undefined) return f;
  }
  return undefined;
}
