// The scheme's defaulting of networking.k8s.io/v1 kinds (kube-apiserver 1.36): kubernetes
// pkg/apis/networking/v1/defaults.go (SetDefaults_NetworkPolicy, _NetworkPolicyPort, _IngressClass) as
// zz_generated.defaults.go calls them.
import type { Draft } from './object.js';
import { isEmpty } from './items.js';

/** SetDefaults_NetworkPolicy (policyTypes from the rules present), then every rule port's protocol */
export function networkPolicy(o: Draft): void {
  const spec = o.structField('spec');
  if (isEmpty(spec.get('policyTypes'))) spec.write('policyTypes', isEmpty(spec.get('egress')) ? ['Ingress'] : ['Ingress', 'Egress']);
  for (const rules of ['ingress', 'egress']) {
    for (const rule of spec.objects(rules)) for (const port of rule.objects('ports')) port.setIfMissing('protocol', 'TCP');
  }
}

/** SetDefaults_IngressClass: parameters are cluster-scoped unless they say otherwise */
export function ingressClass(o: Draft): void {
  o.object('spec')?.object('parameters')?.setIfMissing('scope', 'Cluster');
}
