// Shape of the generated field schema that strict decoding walks.

/** One JSON field: `type` is the mapped Go type (`string`, `int32`, `*string`, `[]Rule`, `map[string]string`,
 * `metav1.ObjectMeta`, …) and `go` the Go type as encoding/json names it in type errors. */
export interface ApiField {
  type: string;
  go: string;
}

export interface ApiType {
  go: string;
  fields: Record<string, ApiField>;
}

export type ApiSchema = Record<string, ApiType>;
