// The registration as YAML, one document per object, with comments saying where each goes, what it sends, what a
// stopped daemon blocks and which loaded objects lose coverage.
import { Document, isMap, isScalar, isSeq } from 'yaml';
import type { YAMLMap } from 'yaml';
import { systemNamespaces } from './coverage.js';
import { staticConfigSuffix as staticSuffix } from '../manifest/load.js';
import { guardPolicyName, registrarApplyCommand } from './guard.js';
import { unreachableAdvice } from './unreachable.js';
import type { Registration, SideRegistration } from './objects.js';
import { atLeast, formatKubeVersion } from './version.js';

const listLimit = 20;

/** `a, b, c and 4 more` */
export function nameList(names: readonly string[]): string {
  if (names.length <= listLimit) return names.join(', ');
  return `${names.slice(0, listLimit).join(', ')} and ${names.length - listLimit} more`;
}

function wrap(text: string, width = 112): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines.map((l) => ` ${l}`);
}

function headerComment(registration: Registration, side: SideRegistration, url: string): string {
  const kind = side.side === 'validating' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration';
  const plugin = side.side === 'validating' ? 'ValidatingAdmissionWebhook' : 'MutatingAdmissionWebhook';
  const plugins = side.side === 'validating' ? 'ValidatingAdmissionPolicy and ValidatingAdmissionWebhook' : 'MutatingAdmissionPolicy and MutatingAdmissionWebhook';
  const lines = [url === '' ? ` ${kind} of static-admissiond, sending nothing.` : ` ${kind} sending admission requests to static-admissiond at ${url}.`];
  if (registration.format === 'static') {
    lines.push(...wrap(`For kube-apiserver 1.36+ with --feature-gates=ManifestBasedAdmissionControlConfig=true: save this document in the staticManifestsDir of the apiserver's ${plugin} plugin (its own --admission-control-config-file), not in a directory static-admissiond itself loads.`));
  } else {
    lines.push(...wrap(`For kube-apiserver ${formatKubeVersion(registration.kubeVersion)}: applied with the guard above (see there how).`));
  }
  if (side.coverage.objects.length === 0 || side.sent.rules.length === 0) {
    lines.push(...wrap(`No webhooks: no loaded ${plugins} object can match a request, so nothing is sent. Printed so that applying it empties a configuration that sent something before.`));
    return lines.join('\n');
  }
  const owners = side.coverage.objects.map((o) => o.owner);
  lines.push(...wrap(`The rules are derived from the ${plugins} manifests loaded now: ${nameList(owners)}. Print the registration again (or run validate --registration) whenever they change.`));
  lines.push(...wrap('With static-admissiond stopped, the apiserver rejects (failurePolicy: Fail) only the requests these rules send: what the policies cover. TokenReviews, SubjectAccessReviews and requests no loaded object can match are never sent.'));
  if (side.coverage.unbound.length > 0) lines.push(...wrap(`Not sent for (no binding names them, so they match nothing in-tree either): ${nameList(side.coverage.unbound)}.`));
  if (side.coverage.unreachable.length > 0) {
    const named = side.coverage.unreachable.map((u) => `${u.owner} (${u.resources.join(', ')})`);
    lines.push(...wrap(`NOT ENFORCED on admission-configuration objects: kube-apiserver never sends them to webhooks registered through the API, and these loaded objects can match them: ${nameList(named)}. ${unreachableAdvice}`));
  }
  if (side.sent.createLimitedToGroups) {
    lines.push(...wrap(`kube-apiserver before 1.28 has no webhook matchConditions, so to keep TokenReviews and SubjectAccessReviews away, CREATE is sent only for these API groups: ${side.sent.createLimitedToGroups.map((g) => (g === '' ? '""' : g)).join(', ')}. CREATE of custom resources in other groups is NOT sent: name their groups in the policies' rules.`));
  }
  return lines.join('\n');
}

function namespaceComment(side: SideRegistration): string {
  const losing = side.coverage.objects.filter((o) => o.systemNamespaces).map((o) => o.owner);
  return [
    ...wrap(`Requests in ${systemNamespaces.join(' and ')} (and those Namespace objects themselves) are not sent: with failurePolicy Fail, a daemon that is down or slow would otherwise block the control plane's own objects (leader-election and node leases, kube-system pods and config) and can keep kube-apiserver from starting. kubernetes.io/metadata.name is set by the apiserver on every namespace and cannot be changed.`),
    ...wrap(losing.length > 0
      ? `Loaded objects that in-tree would also apply there, and lose that coverage here: ${nameList(losing)}. Print with --include-system-namespaces to send those namespaces too.`
      : 'No loaded object can match requests there.'),
  ].join('\n');
}

const conditionComment = wrap('TokenReviews, SelfSubjectReviews and the SubjectAccessReview family are never sent: kube-apiserver before 1.37 sends them to wildcard webhooks, and a stopped daemon would then break authentication and authorization (kubelet webhook authn/authz, aggregated APIs). Policies never see them in-tree either.').join('\n');

function guardComment(registration: Registration): string {
  const { breakGlass, registrar } = registration.groups;
  const lines = wrap(`static-admissiond registration for kube-apiserver ${formatKubeVersion(registration.kubeVersion)}. The first time, apply this file as an admin: kubectl apply -f <this file>. Every later time (the loaded manifests changed, so the rules did), apply it as the registrar: ${registrarApplyCommand('<this file>', registrar)}. Applied as anyone else, the guard below refuses every configuration the apply would change and none of them changes: the registration is never half-applied.`);
  lines.push(...wrap(`A REST ValidatingAdmissionPolicy guarding the registration, applied first so that it decides the rest of the same apply: UPDATE of the webhook configurations below is denied except to members of the registrar group ${JSON.stringify(registrar)} (--registrar-group), DELETE except to members of the break-glass group ${JSON.stringify(breakGlass)} (--break-glass-group), and webhook configuration names ending in "${staticSuffix}" are refused, as KEP-5793 advises for apiservers without manifest-based admission.`));
  if (!atLeast(registration.kubeVersion, 1, 30)) {
    lines.push(...wrap('ValidatingAdmissionPolicy v1beta1 on kube-apiserver 1.28-1.29 needs --feature-gates=ValidatingAdmissionPolicy=true and --runtime-config=admissionregistration.k8s.io/v1beta1=true.'));
  }
  lines.push(...wrap(`What no API-side admission can guard: kube-apiserver exempts ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding objects from every policy and webhook, so this policy cannot protect itself, its binding, or those objects' names. Keep delete rights on ${guardPolicyName} to the few who hold the break-glass group (RBAC).`));
  return lines.join('\n');
}

function flowLists(doc: Document, path: readonly (string | number)[]): void {
  const node = doc.getIn(path, true);
  if (isMap(node)) for (const pair of node.items) if (isSeq(pair.value)) pair.value.flow = true;
  if (isSeq(node)) node.flow = true;
}

function commentKey(doc: Document, path: readonly (string | number)[], key: string, comment: string): void {
  const node = doc.getIn(path, true);
  if (!isMap(node)) return;
  for (const pair of (node as YAMLMap).items) if (isScalar(pair.key) && pair.key.value === key) pair.key.commentBefore = comment;
}

/** The registration as YAML documents, in apply order (the guard first); a comment alone when there is nothing to register. */
export function renderRegistration(registration: Registration): string {
  const docs: string[] = [];
  for (const [i, object] of registration.guard.entries()) {
    const doc = new Document(object);
    if (i === 0) doc.commentBefore = guardComment(registration);
    flowLists(doc, ['spec', 'matchConstraints', 'resourceRules', 0]);
    flowLists(doc, ['spec', 'validationActions']);
    docs.push(doc.toString({ lineWidth: 0, flowCollectionPadding: false }));
  }
  let configurations = 0;
  for (const side of registration.sides) {
    if (!side.configuration) continue;
    configurations++;
    const doc = new Document(side.configuration);
    const webhook = (side.configuration.webhooks as Array<{ clientConfig: { url: string }; rules: unknown[] }> | undefined)?.[0];
    doc.commentBefore = headerComment(registration, side, webhook?.clientConfig.url ?? '');
    if (webhook) {
      if (!registration.includeSystemNamespaces) commentKey(doc, ['webhooks', 0], 'namespaceSelector', namespaceComment(side));
      commentKey(doc, ['webhooks', 0], 'matchConditions', conditionComment);
      webhook.rules.forEach((_, r) => flowLists(doc, ['webhooks', 0, 'rules', r]));
      flowLists(doc, ['webhooks', 0, 'admissionReviewVersions']);
    }
    docs.push(doc.toString({ lineWidth: 0, flowCollectionPadding: false }));
  }
  if (configurations === 0) {
    const empty = registration.sides.map((s) => `${s.side}: ${s.coverage.objects.length === 0 ? 'nothing loaded' : 'nothing to send'}`).join('; ');
    return `# Nothing to register: no loaded manifest can match a request (${empty}).\n`;
  }
  return docs.join('---\n');
}

