// Generated ValidatingAdmissionPolicies and their bindings: CEL over object, oldObject, request and namespaceObject
// (some of it failing at run time on purpose: missing keys, null objects on DELETE, division by zero), variables,
// messages and messageExpressions, audit annotations, matchConditions, and bindings with selectors and every valid
// combination of validationActions. Namespace selectors read kubernetes.io/metadata.name only: the daemon knows a
// namespace by that label alone (DESIGN.md "Namespace labels"), so any other label is a designed difference.
import type { Rng } from './rng.js';
import type { Family, JsonObject } from './requests.js';
import { labelKeys, labelValues, namespaces } from './requests.js';

/** Expressions valid on any object (results bool). */
const common = [
  "has(object.metadata.labels) && 'team' in object.metadata.labels",
  "object.metadata.name.startsWith('p')",
  'object.metadata.name.size() < 10',
  "!has(object.metadata.labels) || object.metadata.labels.all(k, k.size() < 5)",
  "object.metadata.labels['team'] == 'a'",
  "request.operation == 'CREATE'",
  "request.userInfo.username.startsWith('system:')",
  "'system:masters' in request.userInfo.groups",
  'oldObject == null || object.metadata.name == oldObject.metadata.name',
  "namespaceObject == null || namespaceObject.metadata.name != 'kube-system'",
  "namespaceObject.metadata.name == 'default'",
  "namespaceObject.metadata.labels['kubernetes.io/metadata.name'] != 'prod'",
  '!request.dryRun',
  "object.metadata.?labels.?team.orValue('') != 'x'",
  "object.metadata.name.matches('^[a-z]+[0-9]*$')",
  "object.metadata.name.split('-').size() < 3",
  "size(object.metadata.name) / (size(object.metadata.name) - size(object.metadata.name)) == 0",
  "oldObject.metadata.labels.team == object.metadata.labels.team",
  "request.kind.kind == 'Pod' || request.resource.resource != 'pods'",
  "has(request.namespace) && request.namespace.lowerAscii() == request.namespace",
  "request.userInfo.?groups.orValue([]).exists(g, g == 'developers')",
  "[1, 2, 3].map(x, x * 2).sum() == 12",
  "quantity('1Gi').isGreaterThan(quantity('512Mi'))",
  "object.metadata.name.indexOf('e') >= 0",
  "has(object.metadata.annotations) && object.metadata.annotations.note == ''",
  "'%s/%s'.format([request.namespace, object.metadata.name]).size() < 20",
  "object.metadata.?annotations.?note.hasValue()",
  "int(object.metadata.name.size()) + 9223372036854775807 > 0",
  "string(object.metadata.generation) == '1'",
  "object.metadata.creationTimestamp < timestamp('2030-01-01T00:00:00Z')",
  'variables.nameSize < 8',
  "variables.labels.exists(k, k == 'app')",
];

const byFamily: Record<Family['name'], readonly string[]> = {
  pods: [
    'object.spec.containers.all(c, !has(c.securityContext) || !has(c.securityContext.privileged) || !c.securityContext.privileged)',
    "object.spec.containers.exists(c, c.image.endsWith(':latest'))",
    'object.spec.containers.size() <= 1',
    '!has(object.spec.hostNetwork) || !object.spec.hostNetwork',
    "object.spec.containers.all(c, quantity(c.resources.limits.memory).isLessThan(quantity('2Gi')))",
    "object.spec.containers[1].name == 'sidecar'",
    'object.spec.containers.map(c, c.name).isSorted()',
  ],
  deployments: [
    'object.spec.replicas <= 5',
    'object.spec.replicas > 0 && object.spec.replicas % 2 == 1',
    "object.spec.template.spec.containers.all(c, c.image.contains(':'))",
    'oldObject == null || object.spec.replicas >= oldObject.spec.replicas',
  ],
  configmaps: [
    '!has(object.data) || object.data.size() < 3',
    'object.data.all(k, object.data[k].size() < 100)',
    "has(object.data) && 'a' in object.data",
    "object.data.a == '1'",
  ],
  services: [
    "object.spec.type != 'NodePort'",
    'object.spec.ports.all(p, p.port < 1024)',
    "object.spec.clusterIP == '' || isIP(object.spec.clusterIP)",
  ],
  'hpas-v2': hpaExpressions(),
  'hpas-v1': hpaExpressions(),
  events: eventExpressions(),
  'events-k8s': eventExpressions(),
  widgets: [
    'object.spec.size < 10',
    'has(object.spec.color)',
    "object.spec.parts.all(p, p.count < 2)",
    "object.spec.settings.mode == 'fast'",
  ],
};

const messageExpressions = [
  "'name ' + object.metadata.name + ' refused'",
  "'operation ' + request.operation",
  "string(object.metadata.labels['team'])",
  "''",
  "'  '",
  "string(variables.nameSize)",
];

const auditValues = [
  "'v-' + request.operation",
  "object.metadata.name == 'x' ? 'hit' : 'miss'",
  "string(object.metadata.labels['team'])",
  "''",
  "request.userInfo.username",
];

const matchConditionExpressions = [
  "request.operation != 'DELETE'",
  "object.metadata.name != 'skip'",
  "object.metadata.labels['env'] == 'prod'",
  "request.userInfo.username != 'bob'",
  "!has(object.metadata.annotations)",
];

const actions = [['Deny'], ['Warn'], ['Audit'], ['Deny', 'Audit'], ['Warn', 'Audit']];
const reasons = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];

/** The policy sees the object in the version its rule matched, so these hold whichever version that is. */
function hpaExpressions(): string[] {
  return [
    'object.spec.maxReplicas <= 10',
    'has(object.spec.minReplicas) && object.spec.minReplicas >= 1',
    "has(object.spec.metrics) ? object.spec.metrics.all(m, m.type == 'Resource') : object.spec.?targetCPUUtilizationPercentage.orValue(0) < 60",
    "object.apiVersion == 'autoscaling/' + request.requestKind.version",
    "!has(object.metadata.annotations) || object.metadata.annotations.all(k, !k.startsWith('autoscaling.alpha'))",
  ];
}

function eventExpressions(): string[] {
  return [
    "object.type == 'Normal'",
    "has(object.note) ? object.note.size() < 10 : object.message.size() < 10",
    "object.reason != 'Killing' || request.kind.group == request.requestKind.group",
    "has(object.regarding) ? object.regarding.kind != 'Pod' : object.involvedObject.kind != 'Pod'",
    "object.?deprecatedCount.orValue(0) < 10 && object.?count.orValue(0) < 10",
  ];
}

/**
 * Rules on the family's resource; with `rng`, a family served in other versions too is named in one of those at
 * times (or every version), and matchPolicy is sometimes Exact.
 */
export function rulesFor(family: Family, operations: readonly string[], rng?: Rng): JsonObject {
  let gv: { group: string; version: string } = family;
  if (rng !== undefined && family.equivalents !== undefined && rng.chance(0.5)) gv = rng.pick([...family.equivalents, { group: family.group, version: '*' }]);
  return { apiGroups: [gv.group], apiVersions: [gv.version], operations: [...operations], resources: [family.resource] };
}

export function matchConstraintsFor(rng: Rng, family: Family, operations: readonly string[]): JsonObject {
  const matchConstraints: JsonObject = { resourceRules: [rulesFor(family, operations, rng)] };
  if (family.equivalents !== undefined && rng.chance(0.25)) matchConstraints['matchPolicy'] = 'Exact';
  return matchConstraints;
}

export function labelSelector(rng: Rng): JsonObject {
  const key = rng.pick(labelKeys);
  return rng.pick([
    { matchLabels: { [key]: rng.pick(labelValues) } },
    { matchExpressions: [{ key, operator: 'Exists' }] },
    { matchExpressions: [{ key, operator: 'NotIn', values: [rng.pick(labelValues)] }] },
    { matchExpressions: [{ key, operator: 'DoesNotExist' }] },
  ]);
}

export function namespaceSelector(rng: Rng): JsonObject {
  const key = 'kubernetes.io/metadata.name';
  return rng.pick([
    { matchLabels: { [key]: rng.pick(namespaces) } },
    { matchExpressions: [{ key, operator: 'NotIn', values: ['kube-system'] }] },
    { matchExpressions: [{ key, operator: 'In', values: rng.some(namespaces, 1, 2) }] },
  ]);
}

/** One policy set: 1–3 policies over `family` with 1–2 bindings each, as manifest objects. */
export function validatingPolicies(rng: Rng, family: Family, tag: string): JsonObject[] {
  const out: JsonObject[] = [];
  const count = rng.int(1, 3);
  for (let p = 0; p < count; p++) {
    const name = `${tag}-p${p}.static.k8s.io`;
    const operations = rng.some(['CREATE', 'UPDATE', 'DELETE'], 1, 3);
    const matchConstraints = matchConstraintsFor(rng, family, operations);
    if (rng.chance(0.2)) matchConstraints['objectSelector'] = labelSelector(rng);
    if (rng.chance(0.2)) matchConstraints['namespaceSelector'] = namespaceSelector(rng);
    const spec: JsonObject = { failurePolicy: rng.pick(['Fail', 'Ignore']), matchConstraints };
    const usesVariables = rng.chance(0.4);
    if (usesVariables) {
      spec['variables'] = [
        { name: 'nameSize', expression: 'object.metadata.name.size()' },
        { name: 'labels', expression: "has(object.metadata.labels) ? object.metadata.labels : {'none': ''}" },
      ];
    }
    const pool = [...common, ...byFamily[family.name]].filter((e) => usesVariables || !e.includes('variables.'));
    spec['validations'] = rng.some(pool, 1, 3).map((expression) => {
      const v: JsonObject = { expression };
      if (rng.chance(0.4)) v['message'] = rng.pick(['not allowed', 'team label required', ' padded message ']);
      if (rng.chance(0.4)) v['messageExpression'] = rng.pick(messageExpressions.filter((e) => usesVariables || !e.includes('variables.')));
      if (rng.chance(0.3)) v['reason'] = rng.pick(reasons);
      return v;
    });
    if (rng.chance(0.3)) {
      spec['matchConditions'] = rng.some(matchConditionExpressions, 1, 2).map((expression, i) => ({ name: `mc${i}`, expression }));
    }
    if (rng.chance(0.3)) {
      spec['auditAnnotations'] = rng.some(auditValues, 1, 2).map((valueExpression, i) => ({ key: rng.pick(['check', 'team-value', `k${i}`]) + (i === 0 ? '' : `-${i}`), valueExpression }));
    }
    out.push({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec });
    const bindings = rng.int(1, 2);
    for (let b = 0; b < bindings; b++) {
      const bspec: JsonObject = { policyName: name, validationActions: rng.pick(actions) };
      if (rng.chance(0.3)) {
        const mr: JsonObject = {};
        if (rng.chance(0.5)) mr['namespaceSelector'] = namespaceSelector(rng);
        if (rng.chance(0.5)) mr['objectSelector'] = labelSelector(rng);
        if (rng.chance(0.3)) mr['excludeResourceRules'] = [{ ...rulesFor(family, ['DELETE']), resourceNames: ['skip'] }];
        bspec['matchResources'] = mr;
      }
      out.push({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: `${tag}-p${p}-b${b}.static.k8s.io` }, spec: bspec });
    }
  }
  return out;
}
