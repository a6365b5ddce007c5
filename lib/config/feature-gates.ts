// --feature-gates parsing with the upstream gates this daemon honours.

export const knownFeatureGates = {
  /** KEP-5793: staticManifestsDir in the plugin configurations */
  ManifestBasedAdmissionControlConfig: true,
  /** webhooks never see the authentication/authorization review resources */
  ExcludeAdmissionWebhookVirtualResources: true,
} as const;

export type FeatureGateName = keyof typeof knownFeatureGates;
export type FeatureGates = Readonly<Record<FeatureGateName, boolean>>;

export const defaultFeatureGates: FeatureGates = { ...knownFeatureGates };

/** Parses `A=true,B=false` over the defaults, with component-base's error wording. */
export function parseFeatureGates(spec: string): FeatureGates {
  const gates: Record<FeatureGateName, boolean> = { ...defaultFeatureGates };
  for (const part of spec.split(',')) {
    const item = part.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    if (eq === -1) throw new Error(`missing bool value for ${item}`);
    const name = item.slice(0, eq).trim();
    const raw = item.slice(eq + 1).trim();
    if (!Object.hasOwn(knownFeatureGates, name)) throw new Error(`unrecognized feature gate: ${name}`);
    const value = parseGoBool(raw);
    if (value === undefined) throw new Error(`invalid value of ${name}=${raw}, err: strconv.ParseBool: parsing "${raw}": invalid syntax`);
    gates[name as FeatureGateName] = value;
  }
  return gates;
}

function parseGoBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  return undefined;
}
