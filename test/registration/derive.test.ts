// From manifest sets to registrations: the rules send exactly what the loaded policies, bindings and static webhooks
// can match (resources, wildcards, subresources, scope, operations, excludeResourceRules, matchPolicy), never the
// review resources, one entry per side at most and none for a side with nothing to send.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PluginName } from '../../lib/manifest/plugins.js';
import { deriveRegistration, registrationObjects, rulesHash, rulesHashAnnotation } from '../../lib/registration/objects.js';
import type { RegistrationOptions } from '../../lib/registration/objects.js';
import { parseKubeVersion } from '../../lib/registration/version.js';
import { loadPlugins, policy, rule, webhookConfiguration } from './helpers.js';

type Sets = Partial<Record<PluginName, readonly string[]>>;
interface Expected {
  readonly rules: ReadonlyArray<Record<string, unknown>>;
  /** matchCondition names */
  readonly conditions?: readonly string[];
}
interface Case {
  readonly name: string;
  readonly sets: Sets;
  readonly options?: Partial<RegistrationOptions>;
  readonly validating?: Expected;
  readonly mutating?: Expected;
}

const r = (operations: string[], apiGroups: string[], apiVersions: string[], resources: string[], scope = '*'): Record<string, unknown> =>
  ({ operations, apiGroups, apiVersions, resources, scope });

const cases: Case[] = [
  {
    name: 'exact resources: one policy on pods',
    sets: { ValidatingAdmissionPolicy: [policy('pods', { rules: rule('[""]', '[v1]', '[pods]') })] },
    validating: { rules: [r(['CREATE', 'UPDATE'], [''], ['v1'], ['pods'])] },
  },
  {
    name: 'two policies with the same operations merge into one rule; the rest of the cluster is not sent',
    sets: { ValidatingAdmissionPolicy: [
      policy('pods', { rules: rule('[""]', '[v1]', '[pods]') }),
      policy('cms', { rules: rule('[""]', '[v1]', '[configmaps]') }),
      policy('deploys', { rules: rule('[apps]', '[v1]', '[deployments]') }),
    ] },
    validating: { rules: [r(['CREATE', 'UPDATE'], [''], ['v1'], ['configmaps', 'pods']), r(['CREATE', 'UPDATE'], ['apps'], ['v1'], ['deployments'])] },
  },
  {
    name: 'operations differ: separate rules; "*" collapses',
    sets: { ValidatingAdmissionPolicy: [
      policy('a', { rules: rule('[""]', '[v1]', '[pods]', '[DELETE]') }),
      policy('b', { rules: rule('[""]', '[v1]', '[pods]', '["*"]') }),
      policy('c', { rules: rule('[""]', '[v1]', '[secrets]', '[CONNECT]') }),
    ] },
    validating: { rules: [r(['*'], [''], ['v1'], ['pods']), r(['CONNECT'], [''], ['v1'], ['secrets'])] },
  },
  {
    name: 'subresources are kept as named, and a covering entry absorbs the others',
    sets: { ValidatingAdmissionPolicy: [
      policy('status', { rules: rule('[""]', '[v1]', '[pods/status, pods/ephemeralcontainers]', '[UPDATE]') }),
      policy('scale', { rules: rule('[apps]', '[v1]', '[deployments, deployments/scale]', '[UPDATE]') }),
      policy('all-pod-subs', { rules: rule('[""]', '[v1]', '["pods/*"]', '[UPDATE]') }),
    ] },
    validating: { rules: [r(['UPDATE'], [''], ['v1'], ['pods/*']), r(['UPDATE'], ['apps'], ['v1'], ['deployments', 'deployments/scale'])] },
  },
  {
    name: 'scope is carried',
    sets: { ValidatingAdmissionPolicy: [policy('ns', { rules: rule('["*"]', '["*"]', '["*"]', '[CREATE]', 'Namespaced') })] },
    validating: { rules: [r(['CREATE'], ['*'], ['*'], ['*'], 'Namespaced')], conditions: ['exclude-authentication-authorization-reviews'] },
  },
  {
    name: 'wildcards: */* for every group sends everything but the reviews (matchConditions from 1.28)',
    sets: { ValidatingAdmissionPolicy: [policy('all', { rules: rule('["*"]', '["*"]', '["*/*"]', '["*"]') })] },
    validating: { rules: [r(['*'], ['*'], ['*'], ['*/*'])], conditions: ['exclude-authentication-authorization-reviews'] },
  },
  {
    name: 'wildcards before 1.28: CREATE enumerated over the built-in and named groups, the review groups left out',
    sets: { ValidatingAdmissionPolicy: [
      policy('all', { rules: rule('["*"]', '["*"]', '["*"]', '["*"]') }),
      policy('crd', { rules: rule('[example.com]', '[v1]', '[widgets]', '[DELETE]') }),
    ] },
    options: { format: 'api', kubeVersion: parseKubeVersion('1.27') },
    validating: {
      rules: [
        r(['CONNECT', 'DELETE', 'UPDATE'], ['*'], ['*'], ['*']),
        r(['CREATE'], ['', 'admissionregistration.k8s.io', 'apiextensions.k8s.io', 'apiregistration.k8s.io', 'apps', 'autoscaling', 'batch',
          'certificates.k8s.io', 'coordination.k8s.io', 'discovery.k8s.io', 'events.k8s.io', 'example.com', 'flowcontrol.apiserver.k8s.io',
          'internal.apiserver.k8s.io', 'networking.k8s.io', 'node.k8s.io', 'policy', 'rbac.authorization.k8s.io', 'resource.k8s.io',
          'scheduling.k8s.io', 'storage.k8s.io'], ['*'], ['*']),
      ],
    },
  },
  {
    name: 'review resources named explicitly are dropped; a policy on nothing else sends nothing',
    sets: { ValidatingAdmissionPolicy: [
      policy('reviews', { rules: rule('[authentication.k8s.io]', '[v1]', '[tokenreviews]', '[CREATE]') + rule('[authorization.k8s.io]', '[v1]', '[subjectaccessreviews, selfsubjectaccessreviews]', '[CREATE]') }),
    ] },
  },
  {
    name: 'excludeResourceRules no other object needs become a matchCondition',
    sets: { ValidatingAdmissionPolicy: [
      policy('apps', { rules: rule('[apps]', '[v1]', '["*"]', '[CREATE]'), exclude: rule('[apps]', '["*"]', '[deployments]', '[CREATE]') }),
    ] },
    validating: { rules: [r(['CREATE'], ['apps'], ['v1'], ['*'])], conditions: ['exclude-resources-no-policy-needs'] },
  },
  {
    name: 'excludeResourceRules another policy still needs are sent',
    sets: { ValidatingAdmissionPolicy: [
      policy('apps', { rules: rule('[apps]', '[v1]', '["*"]', '[CREATE]'), exclude: rule('[apps]', '["*"]', '[deployments]', '[CREATE]') }),
      policy('deploys', { rules: rule('[apps]', '[v1]', '[deployments]', '[CREATE]') }),
    ] },
    validating: { rules: [r(['CREATE'], ['apps'], ['v1'], ['*'])] },
  },
  {
    name: 'unbound policies match nothing, so nothing is sent for them',
    sets: { ValidatingAdmissionPolicy: [policy('lonely', { rules: rule('[""]', '[v1]', '[pods]'), bound: false })] },
  },
  {
    name: 'static webhooks count on their side, with their own rules',
    sets: {
      ValidatingAdmissionPolicy: [policy('pods', { rules: rule('[""]', '[v1]', '[pods]') })],
      ValidatingAdmissionWebhook: [webhookConfiguration('svc', rule('[""]', '[v1]', '[services]', '[CREATE, UPDATE]'))],
    },
    validating: { rules: [r(['CREATE', 'UPDATE'], [''], ['v1'], ['pods', 'services'])] },
  },
  {
    name: 'a mutating policy alone: only the mutating side',
    sets: {
      ValidatingAdmissionPolicy: [],
      MutatingAdmissionPolicy: [policy('label', { kind: 'MutatingAdmissionPolicy', rules: rule('[""]', '[v1]', '[configmaps]', '[CREATE]') })],
    },
    mutating: { rules: [r(['CREATE'], [''], ['v1'], ['configmaps'])] },
  },
  {
    name: 'a mutating webhook on both versions of a resource',
    sets: { MutatingAdmissionWebhook: [webhookConfiguration('m', rule('[autoscaling]', '[v1, v2]', '[horizontalpodautoscalers]', '[CREATE]'), 'MutatingWebhookConfiguration')] },
    mutating: { rules: [r(['CREATE'], ['autoscaling'], ['v1', 'v2'], ['horizontalpodautoscalers'])] },
  },
  {
    // upstream: k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules/rules.go IsExemptAdmissionConfigurationResource
    name: 'api format: admission-configuration resources are never sent to API webhooks: dropped',
    sets: { ValidatingAdmissionPolicy: [policy('vwc', { rules: rule('[admissionregistration.k8s.io]', '[v1]', '[validatingwebhookconfigurations, validatingadmissionpolicies]', '[DELETE]') })] },
    options: { format: 'api', kubeVersion: parseKubeVersion('1.30') },
  },
  {
    // upstream: k8s.io/apiserver/pkg/admission/plugin/webhook/generic/webhook.go Dispatch: the static source's
    // webhooks (this registration, in the apiserver's staticManifestsDir) run on the exempt kinds
    name: 'static format: admission-configuration resources are sent, as in-tree static hooks are',
    sets: {
      ValidatingAdmissionPolicy: [policy('vwc', { rules: rule('[admissionregistration.k8s.io]', '[v1]', '[validatingwebhookconfigurations, validatingadmissionpolicies]', '[DELETE]') })],
      MutatingAdmissionWebhook: [webhookConfiguration('m', rule('[admissionregistration.k8s.io]', '[v1]', '[mutatingadmissionpolicybindings]', '[CREATE]'), 'MutatingWebhookConfiguration')],
    },
    validating: { rules: [r(['DELETE'], ['admissionregistration.k8s.io'], ['v1'], ['validatingadmissionpolicies', 'validatingwebhookconfigurations'])] },
    mutating: { rules: [r(['CREATE'], ['admissionregistration.k8s.io'], ['v1'], ['mutatingadmissionpolicybindings'])] },
  },
];

describe('registration derived from the manifests', () => {
  for (const c of cases) {
    test(c.name, () => {
      const { loaded, cleanup } = loadPlugins(c.sets);
      try {
        const registration = deriveRegistration(loaded, { url: 'https://127.0.0.1:9443', caBundle: 'Q0E=', ...c.options });
        for (const side of ['validating', 'mutating'] as const) {
          const expected = c[side];
          const got = registration.sides.find((s) => s.side === side)?.configuration as { webhooks: Array<Record<string, unknown>>; metadata: { annotations: Record<string, string> } } | undefined;
          if (expected === undefined) {
            const sendsAny = registration.sides.some((x) => ((x.configuration?.webhooks ?? []) as unknown[]).length > 0);
            if (registration.format === 'api' && sendsAny) {
              assert.ok(got, `${side}: the api format prints the side with nothing to send too, so that an apply empties it`);
              assert.equal(got.webhooks, undefined, `${side}: without webhooks`);
            } else {
              assert.equal(got, undefined, `${side}: no configuration for a side with nothing to send`);
            }
            continue;
          }
          assert.ok(got, `${side}: a configuration`);
          assert.equal(got.webhooks.length, 1, 'one webhook entry per side, never one per policy');
          const webhook = got.webhooks[0]!;
          assert.deepEqual(webhook.rules, expected.rules);
          assert.deepEqual(((webhook.matchConditions ?? []) as Array<{ name: string }>).map((m) => m.name), expected.conditions ?? []);
          assert.equal(webhook.matchPolicy, 'Equivalent');
          assert.equal(webhook.failurePolicy, 'Fail');
          assert.equal(got.metadata.annotations[rulesHashAnnotation], rulesHash(webhook as { rules: unknown }));
        }
      } finally {
        cleanup();
      }
    });
  }

  test('only policies that can match in kube-system lose coverage there: cluster-scoped resources cannot', () => {
    const { loaded, cleanup } = loadPlugins({ ValidatingAdmissionPolicy: [
      policy('pods', { rules: rule('[""]', '[v1]', '[pods]') }),
      policy('clusterroles', { rules: rule('[rbac.authorization.k8s.io]', '[v1]', '[clusterroles, clusterrolebindings]') }),
      policy('nodes-status', { rules: rule('[""]', '[v1]', '[nodes/status, persistentvolumes]') }),
      policy('namespaces', { rules: rule('[""]', '[v1]', '[namespaces]') }),
      policy('cluster-scope', { rules: rule('["*"]', '["*"]', '["*"]', '[CREATE]', 'Cluster') }),
      policy('mixed', { rules: rule('["", rbac.authorization.k8s.io]', '[v1]', '[nodes, roles]') }),
      policy('custom', { rules: rule('[example.com]', '[v1]', '[widgets]') }),
    ] });
    try {
      const registration = deriveRegistration(loaded, { url: 'https://127.0.0.1:9443', caBundle: 'Q0E=' });
      const side = registration.sides.find((s) => s.side === 'validating')!;
      const losing = side.coverage.objects.filter((o) => o.systemNamespaces).map((o) => o.owner);
      // roles (rbac) are namespaced; a custom resource may be; Namespace objects (a cluster-scoped "*" covers them)
      // carry their own name label
      assert.deepEqual(losing, ['cluster-scope', 'custom', 'mixed', 'namespaces', 'pods'].map((n) => `ValidatingAdmissionPolicy "${n}.static.k8s.io"`));
    } finally {
      cleanup();
    }
  });

  test('nothing loaded: no configuration at all, and no guard', () => {
    const { loaded, cleanup } = loadPlugins({ ValidatingAdmissionPolicy: [], MutatingAdmissionPolicy: [] });
    try {
      const registration = deriveRegistration(loaded, { url: 'https://127.0.0.1:9443', caBundle: 'Q0E=', format: 'api', kubeVersion: parseKubeVersion('1.30') });
      assert.deepEqual(registration.sides.map((s) => s.configuration), [undefined, undefined]);
      assert.deepEqual(registrationObjects(registration), []);
    } finally {
      cleanup();
    }
  });

  test('the api format needs the apiserver version: no default', () => {
    const { loaded, cleanup } = loadPlugins({ ValidatingAdmissionPolicy: [policy('p', { rules: rule('[""]', '[v1]', '[pods]') })] });
    try {
      assert.throws(() => deriveRegistration(loaded, { url: 'https://127.0.0.1:9443', caBundle: 'Q0E=', format: 'api' }), /needs the version of the kube-apiserver it is for \(--kube-version\)/);
    } finally {
      cleanup();
    }
  });

  test('the rules hash changes with the rules and only with them', () => {
    const a = { rules: [r(['CREATE'], [''], ['v1'], ['pods'])] };
    assert.equal(rulesHash(a), rulesHash({ rules: [r(['CREATE'], [''], ['v1'], ['pods'])] }));
    assert.notEqual(rulesHash(a), rulesHash({ rules: [r(['CREATE'], [''], ['v1'], ['services'])] }));
    assert.match(rulesHash(a), /^sha256:[0-9a-f]{64}$/);
  });
});
