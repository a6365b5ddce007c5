// Drift both ways between the loaded manifests (the real loader) and a registration file: what the registration does
// not send (an error) and what it sends that no loaded object can match (a warning), decided with upstream's rule
// semantics (S/admission/plugin/webhook/predicates/rules/rules.go: "*" groups, versions and operations, "x/*" and
// "*\/y" resources, scope), and through `validate --registration`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { createCertificateAuthority } from '../../lib/server/dev-cert.js';
import { driftAgainst } from '../../lib/registration/drift.js';
import { registrationUpdateCommands } from '../../lib/registration/keeper.js';
import { readRegistrationFile } from '../../lib/registration/registered.js';
import type { DriftResult } from '../../lib/registration/drift.js';
import { run } from '../cli/helpers.js';
import { admissionConfigYAML } from '../helpers/admission-config.js';
import { tempDir } from '../server/helpers.js';
import { loadPlugins, policy, rule, webhookConfiguration } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
let caFile: string;
before(async () => {
  tmp = tempDir('sad-registration-drift-');
  caFile = join(tmp.dir, 'ca.crt');
  writeFileSync(caFile, (await createCertificateAuthority('drift')).certPEM);
});
after(() => tmp.cleanup());

let files = 0;
/** A registration file with one ValidatingWebhookConfiguration webhook of these rules (and more YAML). */
function registrationFile(rules: string, extra = '', kind = 'ValidatingWebhookConfiguration'): string {
  const file = join(tmp.dir, `registration-${++files}.yaml`);
  writeFileSync(file, `apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}
metadata: {name: static-admissiond}
webhooks:
- name: validate.static-admissiond.localhost
  clientConfig: {url: "https://127.0.0.1:9443/validate"}
  sideEffects: None
  admissionReviewVersions: [v1]
${extra}  rules:
${rules.replaceAll('    - ', '  - ')}`);
  return file;
}

const excessOf = (drift: DriftResult, kind = 'ValidatingWebhookConfiguration'): string[] => (drift.excess.get(kind) ?? []).flatMap((w) => w.excess);
const missingOf = (drift: DriftResult): string[] => [...drift.uncovered.values()].flat().flatMap((u) => u.missing.map((m) => `${u.owner}: ${m}`));
const outsideSystem = '{matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, kube-node-lease]}]}';
const systemSelector = `  namespaceSelector: ${outsideSystem}\n`;

function drift(sets: Parameters<typeof loadPlugins>[0], file: string, options: { excludeWebhookVirtualResources?: boolean } = {}): DriftResult {
  const { loaded, cleanup } = loadPlugins(sets);
  try {
    return driftAgainst(file, loaded, loaded.map((l) => l.plugin), options);
  } finally {
    cleanup();
  }
}

describe('registration drift, both ways', () => {
  test('a leftover CREATE */* after the wildcard policy was removed is excess, named per combination', () => {
    const file = registrationFile(rule('[""]', '[v1]', '[pods]', '[CREATE, UPDATE]') + rule('["*"]', '["*"]', '["*/*"]', '[CREATE]'), systemSelector);
    const result = drift({ ValidatingAdmissionPolicy: [policy('pods', { rules: rule('[""]', '[v1]', '[pods]'), namespaceSelector: outsideSystem })] }, file);
    assert.deepEqual(missingOf(result), []);
    assert.deepEqual(excessOf(result), ['CREATE */* */* (Cluster)', 'CREATE */* */* (Namespaced)', 'TokenReviews and the SubjectAccessReview family, which no loaded object sees (no matchCondition "exclude-authentication-authorization-reviews")']);
    assert.deepEqual(excessOf(result, 'MutatingWebhookConfiguration'), []);
    assert.deepEqual([...result.excess.keys()], ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']);
  });

  test('wider in any one dimension is excess; a wildcard is needed only by the same wildcard', () => {
    const sets = { ValidatingAdmissionPolicy: [policy('deployments', { rules: rule('[apps]', '[v1]', '[deployments]', '[CREATE]'), namespaceSelector: outsideSystem })] };
    const cases: Array<[string, string[]]> = [
      [rule('[apps]', '[v1]', '[deployments]', '[CREATE]'), []],
      [rule('[apps]', '[v1]', '[deployments]', '[CREATE, DELETE]'), ['DELETE apps/v1 deployments (Cluster)', 'DELETE apps/v1 deployments (Namespaced)']],
      [rule('[apps]', '[v1, v1beta1]', '[deployments]', '[CREATE]'), ['CREATE apps/v1beta1 deployments (Cluster)', 'CREATE apps/v1beta1 deployments (Namespaced)']],
      [rule('[apps]', '[v1]', '["deployments/*"]', '[CREATE]'), ['CREATE apps/v1 deployments/* (Cluster)', 'CREATE apps/v1 deployments/* (Namespaced)']],
      [rule('[apps]', '["*"]', '[deployments]', '[CREATE]'), ['CREATE apps/* deployments (Cluster)', 'CREATE apps/* deployments (Namespaced)']],
      [rule('[apps]', '[v1]', '[deployments]', '[CREATE]', 'Namespaced'), []],
    ];
    for (const [rules, excess] of cases) assert.deepEqual(excessOf(drift(sets, registrationFile(rules, systemSelector))), excess, rules);
    // the other way round: a wildcard policy needs the wildcard, and a concrete registration misses it
    const wide = { ValidatingAdmissionPolicy: [policy('apps', { rules: rule('[apps]', '["*"]', '["*"]', '[CREATE]'), namespaceSelector: outsideSystem })] };
    const narrow = drift(wide, registrationFile(rule('[apps]', '[v1]', '[deployments]', '[CREATE]'), systemSelector));
    assert.deepEqual(missingOf(narrow), ['ValidatingAdmissionPolicy "apps.static.k8s.io": CREATE apps/* * (Cluster)', 'ValidatingAdmissionPolicy "apps.static.k8s.io": CREATE apps/* * (Namespaced)']);
    assert.deepEqual(excessOf(narrow), [], 'a concrete rule under a needed wildcard is not excess');
  });

  test('a registration for a side with nothing loaded sends only excess', () => {
    const file = registrationFile(rule('[""]', '[v1]', '[configmaps]', '[CREATE]'), systemSelector, 'MutatingWebhookConfiguration');
    const result = drift({ ValidatingAdmissionPolicy: [] }, file);
    assert.deepEqual(excessOf(result, 'MutatingWebhookConfiguration'), ['CREATE core/v1 configmaps (Cluster)', 'CREATE core/v1 configmaps (Namespaced)']);
  });

  test('the system namespaces sent while no loaded object can match there are excess; not when one can', () => {
    const sets = { ValidatingAdmissionPolicy: [policy('pods', { rules: rule('[""]', '[v1]', '[pods]'), namespaceSelector: outsideSystem })] };
    assert.deepEqual(excessOf(drift(sets, registrationFile(rule('[""]', '[v1]', '[pods]')))), ['requests in kube-system and kube-node-lease, where no loaded object can match (namespaceSelector)']);
    assert.deepEqual(excessOf(drift(sets, registrationFile(rule('[""]', '[v1]', '[pods]'), systemSelector))), []);
    const everywhere = { ValidatingAdmissionPolicy: [policy('pods', { rules: rule('[""]', '[v1]', '[pods]') })] };
    assert.deepEqual(excessOf(drift(everywhere, registrationFile(rule('[""]', '[v1]', '[pods]')))), [], 'the policy can match in kube-system: sending it is needed');
  });

  test('what every loaded object excludes, sent by a 1.28+ registration without the derived matchCondition, is excess', async () => {
    const dir = join(tmp.dir, 'exclusions');
    mkdirSync(dir);
    writeFileSync(join(dir, 'apps.yaml'), policy('apps', { rules: rule('[apps]', '[v1]', '["*"]', '[CREATE]'), exclude: rule('[apps]', '["*"]', '[deployments]', '[CREATE]'), namespaceSelector: outsideSystem }));
    const config = join(tmp.dir, 'exclusions-config.yaml');
    writeFileSync(config, admissionConfigYAML(dir));
    const printed = await run(['registration', '--admission-config', config, '--ca-file', caFile, '--format', 'api', '--kube-version', '1.28']);
    assert.equal(printed.code, 0, printed.err);
    const exact = join(tmp.dir, `exclusions-${++files}.yaml`);
    writeFileSync(exact, printed.out);
    const { loaded, cleanup } = loadPlugins({ ValidatingAdmissionPolicy: [policy('apps', { rules: rule('[apps]', '[v1]', '["*"]', '[CREATE]'), exclude: rule('[apps]', '["*"]', '[deployments]', '[CREATE]'), namespaceSelector: outsideSystem })] });
    try {
      const check = (file: string): string[] => excessOf(driftAgainst(file, loaded, ['ValidatingAdmissionPolicy']));
      assert.deepEqual(check(exact), []);
      const stale = join(tmp.dir, `exclusions-${++files}.yaml`);
      writeFileSync(stale, printed.out.replace(/request\.resource\.resource == 'deployments'/, "request.resource.resource == 'statefulsets'"));
      assert.deepEqual(check(stale), ['requests every loaded object excludes (excludeResourceRules), which the matchCondition "exclude-resources-no-policy-needs" keeps out']);
      // a registration for an apiserver before 1.28 has no matchConditions and cannot keep them out: not excess
      const old = await run(['registration', '--admission-config', config, '--ca-file', caFile, '--format', 'api', '--kube-version', '1.27']);
      const before128 = join(tmp.dir, `exclusions-${++files}.yaml`);
      writeFileSync(before128, old.out);
      assert.deepEqual(check(before128), []);
    } finally {
      cleanup();
    }
  });

  test('review resources: excess without the matchCondition, unless a static webhook needs them with the gate off', () => {
    const wildcard = rule('["*"]', '["*"]', '["*/*"]', '["*"]');
    const hook = { ValidatingAdmissionWebhook: [webhookConfiguration('all', wildcard)] };
    const file = registrationFile(wildcard);
    assert.match(excessOf(drift(hook, file)).join('\n'), /TokenReviews and the SubjectAccessReview family/);
    assert.doesNotMatch(excessOf(drift(hook, file, { excludeWebhookVirtualResources: false })).join('\n'), /TokenReviews/);
  });
});

describe('validate --registration', () => {
  test('excess is a warning (exit 0, 1 with --warnings-as-errors); missing coverage stays an error', async () => {
    const dir = join(tmp.dir, 'validate-policies');
    mkdirSync(dir);
    writeFileSync(join(dir, 'pods.yaml'), policy('pods', { rules: rule('[""]', '[v1]', '[pods]'), namespaceSelector: outsideSystem }));
    const config = join(tmp.dir, 'validate-config.yaml');
    writeFileSync(config, admissionConfigYAML(dir));
    const printed = await run(['registration', '--admission-config', config, '--ca-file', caFile, '--format', 'api', '--kube-version', '1.30']);
    assert.equal(printed.code, 0, printed.err);
    const exact = join(tmp.dir, 'exact.yaml');
    writeFileSync(exact, printed.out);
    const clean = await run(['validate', '--admission-config', config, '--registration', exact, '--warnings-as-errors']);
    assert.equal(clean.code, 0, clean.err);

    // the wildcard left behind
    const leftover = join(tmp.dir, 'leftover.yaml');
    writeFileSync(leftover, printed.out.replace(/(\n( +)rules:\n)/, '$1$2  - {operations: [CREATE], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"], scope: "*"}\n'));
    const warned = await run(['validate', '--admission-config', config, '--registration', leftover]);
    assert.equal(warned.code, 0, warned.err);
    assert.equal(warned.err, `warning: ValidatingAdmissionPolicy: the registration ${JSON.stringify(leftover)} sends requests no loaded validating object can match (webhook "validate.static-admissiond.localhost"): CREATE */* */* (Cluster); CREATE */* */* (Namespaced); TokenReviews and the SubjectAccessReview family, which no loaded object sees (no matchCondition "exclude-authentication-authorization-reviews"). With static-admissiond stopped they are blocked for nothing. Print the registration again (static-admissiond registration --admission-config ${config} --ca-file <CA of the serving certificate> --format api --kube-version 1.30 > ${leftover}) and apply it (kubectl apply -f ${leftover} --as=static-admissiond-registrar --as-group=static-admissiond:registrar --as-group=system:masters).\n`);
    assert.equal((await run(['validate', '--admission-config', config, '--registration', leftover, '--warnings-as-errors'])).code, 1);

    // a policy on services added: the old registration misses it
    writeFileSync(join(dir, 'services.yaml'), policy('services', { rules: rule('[""]', '[v1]', '[services]', '[CREATE]') }));
    const missing = await run(['validate', '--admission-config', config, '--registration', exact]);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /^error: ValidatingAdmissionPolicy: ValidatingAdmissionPolicy "services\.static\.k8s\.io" can match requests the registration ".*exact\.yaml" does not send, so it is not enforced: CREATE core\/v1 services \(Cluster\); CREATE core\/v1 services \(Namespaced\)\. Print the registration again \(.*\) and apply it \(kubectl apply -f .*exact\.yaml --as=static-admissiond-registrar --as-group=static-admissiond:registrar --as-group=system:masters\)\.$/m);
  });
});

describe('the commands in the drift messages', () => {
  const objects = (text: string): unknown[] => {
    const docs = parseAllDocuments(text);
    assert.ok(Array.isArray(docs));
    return docs.map((d) => d.toJS() as unknown);
  };

  test('the print command prints the same registration again, whatever flags printed it', async () => {
    const printings = [
      ['--format', 'api', '--kube-version', '1.28'],
      ['--format', 'api', '--kube-version', 'v1.31.2', '--url', 'https://10.0.0.5:8443/hooks', '--timeout-seconds', '10', '--include-system-namespaces', '--registrar-group', 'ops:registrar', '--break-glass-group', 'ops:break-glass'],
      ['--format', 'api', '--kube-version', '1.26'],
      [],
    ];
    for (const flags of printings) {
      const first = await run(['registration', '--dev', '--ca-file', caFile, ...flags]);
      assert.equal(first.code, 0, first.err);
      const file = join(tmp.dir, `printed-${++files}.yaml`);
      writeFileSync(file, first.out);
      const { print, apply } = registrationUpdateCommands(file, '(--dev)', readRegistrationFile(file).printedWith);
      const argv = print.replace('<CA of the serving certificate>', caFile).replace(/^static-admissiond /, '').replace(` > ${file}`, '').split(' ');
      const again = await run([...argv, '--dev']);
      assert.equal(again.code, 0, again.err);
      assert.deepEqual(objects(again.out), objects(first.out), `${flags.join(' ')} → ${print}`);
      if (flags.length > 0) assert.equal(apply, `kubectl apply -f ${file} --as=static-admissiond-registrar --as-group=${flags.includes('ops:registrar') ? 'ops:registrar' : 'static-admissiond:registrar'} --as-group=system:masters`);
      else assert.match(apply, /staticManifestsDir/);
    }
  });
});
