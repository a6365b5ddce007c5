// The scheme's defaulting of flowcontrol.apiserver.k8s.io/v1 kinds (kube-apiserver 1.36): kubernetes
// pkg/apis/flowcontrol/v1/defaults.go (SetDefaults_FlowSchemaSpec, _LimitedPriorityLevelConfiguration,
// _QueuingConfiguration, _ExemptPriorityLevelConfiguration) as zz_generated.defaults.go calls them.
import { isObject, setIfMissing, structField } from './object.js';
import type { JsonObject } from './object.js';

/** SetDefaults_FlowSchemaSpec: FlowSchemaDefaultMatchingPrecedence */
export function flowSchema(o: JsonObject): void {
  setIfMissing(structField(o, 'spec'), 'matchingPrecedence', 1000, 0);
}

/** The PriorityLevelConfigurationDefault… constants: 30 shares, hand 8, 64 queues of 50 */
export function priorityLevelConfiguration(o: JsonObject): void {
  const spec = o['spec'];
  if (!isObject(spec)) return;
  const limited = spec['limited'];
  if (isObject(limited)) {
    setIfMissing(limited, 'nominalConcurrencyShares', 30);
    setIfMissing(limited, 'lendablePercent', 0);
    const response = limited['limitResponse'];
    const queuing = isObject(response) ? response['queuing'] : undefined;
    if (isObject(queuing)) {
      setIfMissing(queuing, 'handSize', 8, 0);
      setIfMissing(queuing, 'queues', 64, 0);
      setIfMissing(queuing, 'queueLengthLimit', 50, 0);
    }
  }
  const exempt = spec['exempt'];
  if (isObject(exempt)) {
    setIfMissing(exempt, 'nominalConcurrencyShares', 0);
    setIfMissing(exempt, 'lendablePercent', 0);
  }
}
