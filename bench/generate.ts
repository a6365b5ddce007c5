// The policy directories the reload benchmarks load: n ValidatingAdmissionPolicies with one binding each, `perFile`
// policy+binding pairs per file, 2–3 typical validations per policy, rotating so files are not all identical. A
// `round` changes every expression (a new limit, a new label name), so a directory written for a new round is
// compiled cold, expression by expression, as a whole new policy set would be.
import { renameSync, writeFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const perFile = 10;

/**
 * The kinds policies rotate over, each with the path of its containers where it has any: a container check on a kind
 * without them would draw a type-check warning (upstream's TypeChecker too: "undefined field 'containers'").
 */
const resources = [
  { group: '', resource: 'pods', kind: 'pod', containers: 'object.spec.containers' },
  { group: 'apps', resource: 'deployments', kind: 'deployment', containers: 'object.spec.template.spec.containers' },
  { group: '', resource: 'configmaps', kind: 'configmap', containers: undefined },
  { group: '', resource: 'services', kind: 'service', containers: undefined },
] as const;

type Resource = (typeof resources)[number];

/** The third validation of every third policy: its kind's own check (no privileged container; a small ConfigMap; no external IPs). */
function kindCheck(r: Resource): string {
  if (r.containers !== undefined) {
    return `  - expression: "!has(${r.containers}) || ${r.containers}.all(c, !has(c.securityContext) || !has(c.securityContext.privileged) || c.securityContext.privileged == false)"\n`;
  }
  return r.kind === 'configmap'
    ? `  - expression: "!has(object.data) || size(object.data) <= 64"\n    message: "at most 64 data keys"\n`
    : `  - expression: "!has(object.spec.externalIPs) || size(object.spec.externalIPs) == 0"\n    message: "externalIPs are not allowed"\n`;
}

/** Typical validations, 2 or 3 per policy, rotating so files are not all identical. */
function validations(i: number, round: number, r: Resource): string {
  const common = [
    `  - expression: "object.metadata.name.size() <= ${63 + round}"\n    messageExpression: "'name ' + object.metadata.name + ' is longer than 63 characters'"\n`,
    `  - expression: "!has(object.metadata.labels) || !('bench.example.com/forbidden-${i}-${round}' in object.metadata.labels)"\n    message: "the label bench.example.com/forbidden-${i}-${round} is not allowed"\n    reason: Forbidden\n`,
  ];
  const third = [
    kindCheck(r),
    `  - expression: "has(object.metadata.annotations) && 'owner' in object.metadata.annotations"\n    message: "an owner annotation is required"\n`,
    '',
  ][i % 3]!;
  return common.join('') + third;
}

function policy(i: number, round: number): string {
  const r = resources[i % resources.length]!;
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: bench-${i}.static.k8s.io
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [${JSON.stringify(r.group)}]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: [${JSON.stringify(r.resource)}]
  validations:
${validations(i, round, r)}`;
}

function binding(i: number): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: bench-${i}-binding.static.k8s.io
spec:
  policyName: bench-${i}.static.k8s.io
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchExpressions:
      - key: kubernetes.io/metadata.name
        operator: NotIn
        values: [kube-system]
`;
}

/**
 * Writes `n` policies with their bindings, `perFile` pairs per file; returns the file paths. Each file is replaced
 * atomically (written aside, then renamed), as a reload expects.
 */
export function generate(dir: string, n: number, round = 0): string[] {
  const files: string[] = [];
  for (let f = 0; f * perFile < n; f++) {
    const path = fileOf(dir, f);
    writeFileSync(`${path}.tmp`, fileText(f, n, round));
    renameSync(`${path}.tmp`, path);
    files.push(path);
  }
  return files;
}

function fileOf(dir: string, f: number): string {
  return join(dir, `policies-${String(f).padStart(4, '0')}.yaml`);
}

function fileText(f: number, n: number, round: number): string {
  const docs: string[] = [];
  for (let i = f * perFile; i < Math.min(n, (f + 1) * perFile); i++) docs.push(policy(i, round), binding(i));
  return docs.join('---\n');
}

/** generate() with asynchronous writes, one file per turn: the caller's event loop (a load generator) keeps running. */
export async function generateAsync(dir: string, n: number, round: number): Promise<void> {
  for (let f = 0; f * perFile < n; f++) {
    const path = fileOf(dir, f);
    await writeFile(`${path}.tmp`, fileText(f, n, round));
    await rename(`${path}.tmp`, path);
  }
}
