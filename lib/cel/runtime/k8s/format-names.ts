// The named formats of Kubernetes library.Format (`format.dns1123Label()`, `format.named('uuid')`…): shared by the
// runtime (format.ts) and the compile-time reference check.

/** format.<name>() for each of these */
export const FORMAT_NAMES = [
  'dns1123Label',
  'dns1123Subdomain',
  'dns1035Label',
  'qualifiedName',
  'dns1123LabelPrefix',
  'dns1123SubdomainPrefix',
  'dns1035LabelPrefix',
  'labelValue',
  'uri',
  'uuid',
  'byte',
  'date',
  'datetime',
] as const;

/** Every function qualified by `format.` */
export const FORMAT_FUNCTIONS: readonly string[] = [...FORMAT_NAMES, 'named'];

/** Those that exist only as `format.<name>` (no other function of the environment has the name). */
export const FORMAT_ONLY_FUNCTIONS: readonly string[] = FORMAT_FUNCTIONS;
