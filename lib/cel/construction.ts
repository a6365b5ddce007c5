// Which message types constructions may name after rewrite.ts (Kubernetes' mutation.DynamicTypeResolver:
// `JSONPatch`, `Object` and `Object.<field>…`, declared for mutations only). Their fields are checked by the
// checker (checker/check.ts checkConstruction, checker/environment.ts for the field types).

import type { Issue } from './issues.js';
import { isMutationTypeName } from './names.js';
import { undeclaredReference } from './references.js';
import type { ConstructionSite } from './rewrite.js';
import type { CelEnvironment } from './types.js';


/** Whether the environment declares the type (upstream: only for mutation expressions). */
export function isDeclaredType(environment: CelEnvironment, type: string): boolean {
  return environment === 'mutatingPolicy' && isMutationTypeName(type);
}

/**
 * Constructions of types the environment does not declare, anchored at their `{` as cel-go does. cel-go's checker
 * checks none of an undeclared construction's fields (checker.go checkCreateStruct), so nothing inside one is
 * reported: `inside` tells whether an offset lies there.
 */
export function undeclaredConstructions(sites: readonly ConstructionSite[], environment: CelEnvironment): { issues: Issue[]; inside(offset: number): boolean } {
  const issues: Issue[] = [];
  const undeclared: ConstructionSite[] = [];
  const inside = (offset: number): boolean => undeclared.some((u) => offset > u.brace && offset < u.end);
  for (const site of sites) {
    if (isDeclaredType(environment, site.type) || inside(site.brace)) continue;
    undeclared.push(site);
    const message = site.type.startsWith('google.protobuf.')
      ? `construction of message type '${site.type}' is not supported by static-admissiond`
      : undeclaredReference(site.type);
    issues.push({ offset: site.brace, message });
  }
  return { issues, inside };
}
