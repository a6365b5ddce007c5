// Generated MutatingAdmissionPolicies and bindings: ApplyConfiguration (merged by the kind's schema, unstructured for
// the CRD-like Widget) and JSONPatch mutations, some failing on purpose (a path that is not there, an undeclared
// field, a failed test), with variables, matchConditions, reinvocation and both failure policies.
import type { Rng } from './rng.js';
import type { Family, JsonObject } from './requests.js';
import { labelSelector, matchConstraintsFor, namespaceSelector } from './validating.js';

const applyCommon = [
  "Object{metadata: Object.metadata{labels: {'team': 'platform'}}}",
  "Object{metadata: Object.metadata{annotations: {'mutated-by': 'policy', 'op': request.operation}}}",
  "Object{metadata: Object.metadata{labels: {'name-size': string(object.metadata.name.size())}}}",
  "Object{metadata: Object.metadata{finalizers: ['example.com/keep']}}",
  "has(object.metadata.labels) && 'team' in object.metadata.labels ? Object{} : Object{metadata: Object.metadata{labels: {'team': 'none'}}}",
];

const applyByFamily: Record<Family['name'], readonly string[]> = {
  pods: [
    "Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, imagePullPolicy: 'Always'})}}",
    "Object{spec: Object.spec{containers: [Object.spec.containers{name: 'injected', image: 'busybox:1.36'}]}}",
    "Object{spec: Object.spec{tolerations: [Object.spec.tolerations{key: 'example.com/gpu', operator: 'Exists', effect: 'NoSchedule'}]}}",
    "Object{spec: Object.spec{securityContext: Object.spec.securityContext{runAsNonRoot: true}}}",
    "Object{spec: Object.spec{notAField: 1}}",
  ],
  deployments: [
    'Object{spec: Object.spec{replicas: 2}}',
    "Object{spec: Object.spec{template: Object.spec.template{metadata: Object.spec.template.metadata{labels: {'injected': 'true'}}}}}",
    "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: 'web', image: 'nginx:1.28'}]}}}}",
  ],
  configmaps: [
    "Object{data: {'injected': 'yes'}}",
    "Object{data: {'a': 'overwritten'}}",
    'Object{immutable: true}',
    "Object{spec: Object.spec{x: 'y'}}",
  ],
  services: [
    "Object{spec: Object.spec{ports: [Object.spec.ports{port: 9090, protocol: 'TCP', name: 'metrics'}]}}",
    "Object{spec: Object.spec{type: 'ClusterIP'}}",
    "Object{spec: Object.spec{selector: {'app': 'other'}}}",
  ],
  'hpas-v2': ['Object{spec: Object.spec{maxReplicas: 7}}', "Object{spec: Object.spec{minReplicas: 2, scaleTargetRef: Object.spec.scaleTargetRef{name: 'other'}}}"],
  'hpas-v1': ['Object{spec: Object.spec{maxReplicas: 7}}', 'Object{spec: Object.spec{targetCPUUtilizationPercentage: 65}}'],
  events: ["Object{type: 'Warning'}", "Object{reason: 'Changed', message: 'changed by policy'}"],
  'events-k8s': ["Object{type: 'Warning'}", "Object{note: 'changed by policy'}"],
  widgets: [
    "Object{spec: Object.spec{color: 'red'}}",
    'Object{spec: Object.spec{size: object.spec.size + 1}}',
  ],
};

const jsonPatchCommon = [
  "[JSONPatch{op: 'add', path: '/metadata/labels/team', value: 'platform'}]",
  "[JSONPatch{op: 'add', path: '/metadata/annotations', value: {'patched': 'true'}}]",
  "[JSONPatch{op: 'remove', path: '/metadata/labels/team'}]",
  "[JSONPatch{op: 'replace', path: '/metadata/labels', value: {'only': 'this'}}]",
  "[JSONPatch{op: 'test', path: '/metadata/name', value: 'p1'}, JSONPatch{op: 'add', path: '/metadata/labels/tested', value: 'yes'}]",
  "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('example.com/owner'), value: request.userInfo.username}]",
  "[JSONPatch{op: 'copy', from: '/metadata/name', path: '/metadata/labels/copied'}]",
  "[JSONPatch{op: 'move', from: '/metadata/labels/app', path: '/metadata/labels/moved'}]",
];

const jsonPatchByFamily: Record<Family['name'], readonly string[]> = {
  pods: [
    "[JSONPatch{op: 'add', path: '/spec/containers/-', value: Object.spec.containers{name: 'sidecar2', image: 'envoy:1.31'}}]",
    "[JSONPatch{op: 'replace', path: '/spec/containers/0/image', value: 'nginx:1.28'}]",
    "[JSONPatch{op: 'add', path: '/spec/nodeSelector', value: {'disk': 'ssd'}}]",
  ],
  deployments: [
    "[JSONPatch{op: 'replace', path: '/spec/replicas', value: 1}]",
    "[JSONPatch{op: 'add', path: '/spec/replicas', value: object.spec.replicas + 1}]",
  ],
  configmaps: [
    "[JSONPatch{op: 'add', path: '/data/patched', value: 'yes'}]",
    "[JSONPatch{op: 'add', path: '/data', value: {}}]",
  ],
  services: [
    "[JSONPatch{op: 'replace', path: '/spec/type', value: 'NodePort'}]",
    "[JSONPatch{op: 'add', path: '/spec/ports/-', value: Object.spec.ports{port: 9090, protocol: 'TCP', name: 'metrics'}}]",
  ],
  'hpas-v2': ["[JSONPatch{op: 'replace', path: '/spec/maxReplicas', value: 8}]", "[JSONPatch{op: 'add', path: '/spec/metrics/-', value: Object.spec.metrics{type: 'Resource', resource: Object.spec.metrics.resource{name: 'memory', target: Object.spec.metrics.resource.target{type: 'Utilization', averageUtilization: 70}}}}]"],
  'hpas-v1': ["[JSONPatch{op: 'replace', path: '/spec/maxReplicas', value: 8}]", "[JSONPatch{op: 'add', path: '/spec/targetCPUUtilizationPercentage', value: 55}]"],
  events: ["[JSONPatch{op: 'replace', path: '/reason', value: 'Patched'}]"],
  'events-k8s': ["[JSONPatch{op: 'replace', path: '/note', value: 'patched'}]"],
  widgets: [
    "[JSONPatch{op: 'replace', path: '/spec/size', value: 7}]",
    "[JSONPatch{op: 'add', path: '/spec/parts/0/count', value: 9}]",
  ],
};

const matchConditions = [
  "request.operation == 'CREATE'",
  "object.metadata.name != 'skip'",
  "!has(object.metadata.labels) || !('team' in object.metadata.labels)",
  "object.metadata.labels['env'] == 'prod'",
];

/** One set: 1–2 policies over `family` with a binding each. */
export function mutatingPolicies(rng: Rng, family: Family, tag: string): JsonObject[] {
  const out: JsonObject[] = [];
  const count = rng.int(1, 2);
  for (let p = 0; p < count; p++) {
    const name = `${tag}-m${p}.static.k8s.io`;
    const operations = rng.some(['CREATE', 'UPDATE'], 1, 2);
    const matchConstraints = matchConstraintsFor(rng, family, operations);
    if (rng.chance(0.15)) matchConstraints['objectSelector'] = labelSelector(rng);
    if (rng.chance(0.15)) matchConstraints['namespaceSelector'] = namespaceSelector(rng);
    const mutations = rng.some([0, 1], 1, 2).map(() => {
      if (rng.chance(0.55)) return { patchType: 'ApplyConfiguration', applyConfiguration: { expression: rng.pick([...applyCommon, ...applyByFamily[family.name]]) } };
      return { patchType: 'JSONPatch', jsonPatch: { expression: rng.pick([...jsonPatchCommon, ...jsonPatchByFamily[family.name]]) } };
    });
    const spec: JsonObject = {
      failurePolicy: rng.pick(['Fail', 'Ignore']),
      reinvocationPolicy: rng.pick(['Never', 'IfNeeded']),
      matchConstraints,
      mutations,
    };
    if (rng.chance(0.25)) spec['variables'] = [{ name: 'team', expression: "object.metadata.?labels.?team.orValue('none')" }];
    if (rng.chance(0.25)) spec['matchConditions'] = rng.some(matchConditions, 1, 2).map((expression, i) => ({ name: `mc${i}`, expression }));
    out.push({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicy', metadata: { name }, spec });
    const bspec: JsonObject = { policyName: name };
    if (rng.chance(0.25)) bspec['matchResources'] = { objectSelector: labelSelector(rng) };
    out.push({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name: `${tag}-m${p}-b.static.k8s.io` }, spec: bspec });
  }
  return out;
}
