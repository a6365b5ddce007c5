// The node tree go-yaml v2 builds from the events of one document (go.yaml.in/yaml/v2 v2.4.3 decode.go parser: node,
// scalar, mapping, sequence, alias): what its decoder then walks. An alias points at the node its anchor named when the
// alias was read, so an alias inside its own anchor's node makes a cycle (decode.go reports it while decoding).

export const NodeKind = { Mapping: 1, Sequence: 2, Scalar: 3, Alias: 4 } as const;
export type NodeKind = (typeof NodeKind)[keyof typeof NodeKind];

/** A scalar's or an alias's children: none, one array for all of them. */
const NO_CHILDREN: YamlNode[] = [];

export class YamlNode {
  /** a mapping's keys and values in turn, a sequence's items */
  readonly children: YamlNode[];
  /** an alias's node */
  alias: YamlNode | undefined = undefined;

  constructor(
    readonly kind: NodeKind,
    /** 0-based, as go-yaml's marks (its messages add one) */
    readonly line: number,
    /** a scalar's resolved tag, '' for none */
    readonly tag: string,
    /** a scalar's text; an alias's anchor name */
    readonly value: string,
    /** a scalar to resolve by its content (plain, untagged or tagged `!`) */
    readonly implicit: boolean,
  ) {
    this.children = kind === NodeKind.Mapping || kind === NodeKind.Sequence ? [] : NO_CHILDREN;
  }
}
