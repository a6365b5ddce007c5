// The scheme's defaulting of networking.k8s.io/v1 kinds (kube-apiserver 1.36): kubernetes
// pkg/apis/networking/v1/defaults.go (SetDefaults_NetworkPolicy, _NetworkPolicyPort, _IngressClass) as
// zz_generated.defaults.go calls them.
import { isObject, setIfMissing, structField, write } from './object.js';
import type { JsonObject } from './object.js';
import { isEmpty, objectItems } from './items.js';

/** SetDefaults_NetworkPolicy (policyTypes from the rules present), then every rule port's protocol */
export function networkPolicy(o: JsonObject): void {
  const spec = structField(o, 'spec');
  if (isEmpty(spec['policyTypes'])) write(spec, 'policyTypes', isEmpty(spec['egress']) ? ['Ingress'] : ['Ingress', 'Egress']);
  for (const rules of [spec['ingress'], spec['egress']]) {
    for (const rule of objectItems(rules)) for (const port of objectItems(rule['ports'])) setIfMissing(port, 'protocol', 'TCP');
  }
}

/** SetDefaults_IngressClass: parameters are cluster-scoped unless they say otherwise */
export function ingressClass(o: JsonObject): void {
  const spec = o['spec'];
  const parameters = isObject(spec) ? spec['parameters'] : undefined;
  if (isObject(parameters)) setIfMissing(parameters, 'scope', 'Cluster');
}
