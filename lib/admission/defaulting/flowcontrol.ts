// The scheme's defaulting of flowcontrol.apiserver.k8s.io/v1 kinds (kube-apiserver 1.36): kubernetes
// pkg/apis/flowcontrol/v1/defaults.go (SetDefaults_FlowSchemaSpec, _LimitedPriorityLevelConfiguration,
// _QueuingConfiguration, _ExemptPriorityLevelConfiguration) as zz_generated.defaults.go calls them.
import type { Draft } from './object.js';

/** SetDefaults_FlowSchemaSpec: FlowSchemaDefaultMatchingPrecedence */
export function flowSchema(o: Draft): void {
  o.structField('spec').setIfMissing('matchingPrecedence', 1000, 0);
}

/** The PriorityLevelConfigurationDefault… constants: 30 shares, hand 8, 64 queues of 50 */
export function priorityLevelConfiguration(o: Draft): void {
  const spec = o.object('spec');
  if (spec === undefined) return;
  const limited = spec.object('limited');
  if (limited !== undefined) {
    limited.setIfMissing('nominalConcurrencyShares', 30);
    limited.setIfMissing('lendablePercent', 0);
    const queuing = limited.object('limitResponse')?.object('queuing');
    if (queuing !== undefined) {
      queuing.setIfMissing('handSize', 8, 0);
      queuing.setIfMissing('queues', 64, 0);
      queuing.setIfMissing('queueLengthLimit', 50, 0);
    }
  }
  const exempt = spec.object('exempt');
  if (exempt !== undefined) {
    exempt.setIfMissing('nominalConcurrencyShares', 0);
    exempt.setIfMissing('lendablePercent', 0);
  }
}
