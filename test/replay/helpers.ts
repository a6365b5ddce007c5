// Helpers of the replay tests: the apiserver captures, audit Events as kube-apiserver's log backend writes them, and
// policy sets on disk.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { admissionConfigYAML } from '../helpers/admission-config.js';
import { writeFiles } from '../helpers/fs.js';

const captures = fileURLToPath(new URL('../../../testdata/replay/apiserver-captures/', import.meta.url));

export type Json = Record<string, unknown>;

/** The AdmissionRequest of a capture, e.g. `001-mutate-CREATE-ConfigMap-cm1`. */
export function captured(name: string): Json {
  return (JSON.parse(readFileSync(join(captures, `${name}.json`), 'utf8')) as { request: Json }).request;
}

export const admin = { username: 'admin', uid: 'admin-uid', groups: ['system:masters', 'system:authenticated'] };

let nextID = 0;

/**
 * An audit.k8s.io/v1 Event of stage ResponseComplete, fields in the Go struct's order as the log backend marshals
 * them (S/apis/audit/v1/types.go Event).
 */
export function auditEvent(fields: {
  level?: string;
  verb: string;
  requestURI: string;
  objectRef: Json;
  user?: Json;
  impersonatedUser?: Json;
  code?: number;
  requestObject?: unknown;
  responseObject?: unknown;
  stage?: string;
  auditID?: string;
}): Json {
  const event: Json = {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: fields.level ?? 'RequestResponse',
    auditID: fields.auditID ?? `00000000-0000-0000-0000-${String(++nextID).padStart(12, '0')}`,
    stage: fields.stage ?? 'ResponseComplete',
    requestURI: fields.requestURI,
    verb: fields.verb,
    user: fields.user ?? admin,
  };
  if (fields.impersonatedUser !== undefined) event.impersonatedUser = fields.impersonatedUser;
  event.sourceIPs = ['127.0.0.1'];
  event.userAgent = 'kubectl/v1.36.0 (linux/amd64) kubernetes/abcdef';
  event.objectRef = fields.objectRef;
  const code = fields.code ?? 200;
  // a failure's Status: its bounded fields, as S/audit/context.go LogResponseObject copies them
  const failure = fields.responseObject as Json | undefined;
  event.responseStatus = code < 400
    ? { metadata: {}, code }
    : failure?.kind === 'Status'
      ? { metadata: {}, status: failure.status, message: failure.message, reason: failure.reason, details: failure.details, code }
      : { metadata: {}, status: 'Failure', code };
  if (fields.requestObject !== undefined) event.requestObject = fields.requestObject;
  if (fields.responseObject !== undefined) event.responseObject = fields.responseObject;
  event.requestReceivedTimestamp = '2026-11-21T18:20:17.000000Z';
  event.stageTimestamp = '2026-11-21T18:20:17.010000Z';
  return event;
}

export const jsonLines = (events: readonly Json[]): string => events.map((e) => JSON.stringify(e)).join('\n') + '\n';

/** A manifest set on disk: the validating policy YAML in `dir/policies`, and its AdmissionConfiguration's path. */
export function policySet(dir: string, name: string, policies: string): string {
  writeFiles(join(dir, name), { 'policies/p.yaml': policies });
  const config = join(dir, name, 'admission-config.yaml');
  writeFileSync(config, admissionConfigYAML(join(dir, name, 'policies')));
  return config;
}

/** A ValidatingAdmissionPolicy `<name>.static.k8s.io` with `resourceRules` and `validations` (YAML), and its binding. */
export function boundPolicy(name: string, resourceRules: string, validations: string): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: ${name}.static.k8s.io
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
${resourceRules}
  validations:
${validations}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: ${name}-binding.static.k8s.io
spec:
  policyName: ${name}.static.k8s.io
  validationActions: [Deny]
`;
}

/** A ValidatingAdmissionPolicy on configmaps (CREATE, UPDATE unless given) with its binding. */
export function configMapPolicy(name: string, validation: string, operations = '["CREATE", "UPDATE"]'): string {
  return boundPolicy(name, `    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ${operations}
      resources: ["configmaps"]`, validation);
}
