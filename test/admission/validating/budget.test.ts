// The per-policy runtime CEL cost budget of ValidatingAdmissionPolicies, as kube-apiserver 1.36 charges it:
// - k8s.io/apiserver pkg/apis/cel/config.go: RuntimeCELCostBudget = 10,000,000, RuntimeCELCostBudgetMatchConditions
//   = 2,500,000 (besides PerCallLimit = 1,000,000 per expression);
// - pkg/admission/plugin/cel/condition.go ForInput: a group's expressions share one budget; activation.go Evaluate
//   charges each expression's actual cost, plus the composition variables it evaluated, and on an overrun returns
//   only the error "validation failed due to running out of cost budget, no further validation rules will be run";
// - pkg/admission/plugin/policy/validating/validator.go Validate: matchConditions (matcher.go, their own budget),
//   validations (RuntimeCELCostBudget), every messageExpression on what the validations left (remainingBudget), then
//   auditAnnotations (a fresh RuntimeCELCostBudget); an overrun in the messageExpressions makes every validation that
//   did not fail itself `failed messageExpression: <error>`;
// - validating/errors.go ErrorType: the budget error is counted as error_type="out_of_budget".
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AdmissionRequest } from '../../../lib/api/admission.js';
import { dispatchValidatingPolicies } from '../../../lib/admission/validating/dispatcher.js';
import { MATCH_CONDITIONS_COST_BUDGET, OUT_OF_BUDGET, RUNTIME_CEL_COST_BUDGET } from '../../../lib/admission/budget.js';
import { compileExpression } from '../../../lib/cel/index.js';
import { loadSnapshotSync } from '../../../lib/reload/pipeline.js';
import { tempDir, writeFiles } from '../../helpers/fs.js';

const root = new URL('../../../../', import.meta.url).pathname;

/** A ConfigMap UPDATE whose object carries a 450-element list (CEL reads the object without its schema). */
function request(): AdmissionRequest {
  const review = JSON.parse(readFileSync(`${root}testdata/admission/apiserver-captures/003-validate-UPDATE-ConfigMap-cm1.json`, 'utf8')) as { request: AdmissionRequest };
  (review.request.object as Record<string, unknown>)['xs'] = Array.from({ length: 450 }, (_, i) => i);
  return review.request;
}

/** 450 × 450 iterations: about 814,000 in this runtime's cost model, under the per-call limit. */
const HEAVY = 'object.xs.all(x, object.xs.all(y, y >= 0))';
const HEAVY_STRING = `${HEAVY} ? 'heavy' : 'light'`;

function costOf(expression: string): number {
  const compiled = compileExpression({ expression, environment: 'validatingPolicy' });
  assert.ok(compiled.ok);
  const meter = { cost: 0 };
  compiled.compiled.evaluate({ object: request().object }, { meter });
  return meter.cost;
}

function policyYAML(spec: string, failurePolicy: 'Fail' | 'Ignore' = 'Fail'): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p.static.k8s.io}
spec:
  failurePolicy: ${failurePolicy}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: ["CREATE", "UPDATE"], resources: [configmaps]}
${spec}---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b.static.k8s.io}
spec: {policyName: p.static.k8s.io, validationActions: [Deny]}
`;
}

function dispatch(spec: string, failurePolicy: 'Fail' | 'Ignore' = 'Fail') {
  const { dir, cleanup } = tempDir();
  try {
    writeFiles(dir, { 'p.yaml': policyYAML(spec, failurePolicy) });
    const snap = loadSnapshotSync('ValidatingAdmissionPolicy', dir);
    assert.equal(snap.compiled.family, 'policy');
    return dispatchValidatingPolicies(snap.compiled.family === 'policy' ? snap.compiled.hooks : [], request());
  } finally {
    cleanup();
  }
}

const list = (field: string, n: number, item: (i: number) => string): string =>
  `  ${field}:\n${Array.from({ length: n }, (_, i) => item(i)).join('')}`;
const validations = (n: number, expression = HEAVY, extra = ''): string => list('validations', n, () => `  - expression: "${expression}"\n${extra}`);

const denial = (message: string): string =>
  `configmaps "cm1" is forbidden: ValidatingAdmissionPolicy 'p.static.k8s.io' with binding 'b.static.k8s.io' denied request: ${message}`;

describe('the per-policy runtime cost budget', () => {
  test('upstream constants and wording', () => {
    assert.equal(RUNTIME_CEL_COST_BUDGET, 10_000_000);
    assert.equal(MATCH_CONDITIONS_COST_BUDGET, 2_500_000);
    assert.equal(OUT_OF_BUDGET, 'validation failed due to running out of cost budget, no further validation rules will be run');
    const cost = costOf(HEAVY);
    assert.ok(cost > 780_000 && cost < 830_000, `one heavy expression costs ${cost}`);
    // 12 fit in the budget, 13 do not: the boundary the tests below stand on
    assert.ok(12 * cost < RUNTIME_CEL_COST_BUDGET && 13 * cost > RUNTIME_CEL_COST_BUDGET);
  });

  test('16 validations of ~0.8M each: denied under Fail with the budget error, admitted under Ignore', () => {
    const failed = dispatch(validations(16));
    assert.equal(failed.allowed, false);
    assert.deepEqual(failed.status, {
      metadata: {},
      status: 'Failure',
      message: denial(OUT_OF_BUDGET),
      reason: 'Invalid',
      details: { name: 'cm1', group: '', kind: 'configmaps', causes: [{ message: `ValidatingAdmissionPolicy 'p.static.k8s.io' with binding 'b.static.k8s.io' denied request: ${OUT_OF_BUDGET}` }] },
      code: 422,
    });
    assert.deepEqual(failed.checks.map((c) => [c.errorType, c.enforcementAction]), [['out_of_budget', 'deny']]);
    const ignored = dispatch(validations(16), 'Ignore');
    assert.equal(ignored.allowed, true);
    assert.deepEqual(ignored.checks.map((c) => [c.errorType, c.enforcementAction]), [['out_of_budget', 'allow']]);
  });

  test('the budget is the policy\'s sum, not a per-expression limit: 12 pass, 13 run out', () => {
    assert.equal(dispatch(validations(12)).allowed, true);
    assert.equal(dispatch(validations(13)).status?.message, denial(OUT_OF_BUDGET));
    // an overrun wins over a validation that already failed before it
    assert.equal(dispatch(list('validations', 1, () => '  - expression: "false"\n') + validations(13).replace('  validations:\n', '')).status?.message, denial(OUT_OF_BUDGET));
  });

  test('messageExpressions go on with what the validations left, a passing validation\'s too', () => {
    // 12 validations (~9.77M) leave ~0.23M: a messageExpression of ~0.8M overdraws, though its validation passed
    const spec = validations(11) + `  - expression: "${HEAVY}"\n    messageExpression: "${HEAVY_STRING}"\n`;
    const verdict = dispatch(spec);
    assert.equal(verdict.status?.message, denial(`failed messageExpression: ${OUT_OF_BUDGET}`));
    assert.deepEqual(verdict.checks.map((c) => c.errorType), Array(12).fill('invalid_error'), 'every validation that did not fail itself');
    assert.equal(dispatch(spec, 'Ignore').allowed, true);
    // with budget left, the message is the messageExpression's
    const cheap = dispatch(validations(1, 'false', `    messageExpression: "${HEAVY_STRING}"\n`));
    assert.equal(cheap.status?.message, denial('heavy'));
  });

  test('auditAnnotations have a budget of their own', () => {
    const annotations = (n: number): string => list('auditAnnotations', n, (i) => `  - {key: k${i}, valueExpression: "${HEAVY_STRING}"}\n`);
    const within = dispatch(validations(12) + annotations(12));
    assert.equal(within.allowed, true);
    assert.equal(within.auditAnnotations['p.static.k8s.io/k11'], 'heavy');
    const over = dispatch(validations(1, 'true') + annotations(13));
    assert.equal(over.status?.message, denial(OUT_OF_BUDGET));
    assert.deepEqual(over.auditAnnotations, {}, 'nothing published from an overrun');
  });

  test('composition variables are charged in each group that reads them, once per group', () => {
    const variable = `  variables:\n  - {name: heavy, expression: "${HEAVY}"}\n`;
    // read by 12 validations: charged once (~0.8M) besides their own cost (12 × ~0.8M) → over
    assert.equal(dispatch(variable + validations(12, `variables.heavy && ${HEAVY}`)).status?.message, denial(OUT_OF_BUDGET));
    assert.equal(dispatch(variable + validations(11, `variables.heavy && ${HEAVY}`)).allowed, true);
    assert.equal(dispatch(variable + validations(16, 'variables.heavy')).allowed, true, 'computed once, charged once');
    // the messageExpressions' group reads it again: charged again, though its value is known
    const spec = (message: string): string => variable + validations(11, `variables.heavy && ${HEAVY}`) + `  - expression: "false"\n    messageExpression: "${message}"\n`;
    assert.equal(dispatch(spec("'cheap'")).status?.message, denial('cheap'));
    assert.equal(dispatch(spec("variables.heavy ? 'heavy' : 'light'")).status?.message, denial(`failed messageExpression: ${OUT_OF_BUDGET}`));
    // a variable read through another is charged with it
    const chained = `  variables:\n  - {name: a, expression: "${HEAVY}"}\n  - {name: b, expression: "variables.a"}\n`;
    assert.equal(dispatch(chained + validations(1, 'variables.b') + `  - expression: "false"\n    messageExpression: "variables.b ? 'b' : 'no b'"\n`).status?.message, denial('b'));
    assert.equal(dispatch(chained + validations(11, `variables.b && ${HEAVY}`)).allowed, true);
    assert.equal(dispatch(chained + validations(12, `variables.b && ${HEAVY}`)).status?.message, denial(OUT_OF_BUDGET));
  });

  test('matchConditions share 2,500,000: every condition is evaluated, an overrun beats a false condition', () => {
    const conditions = (n: number, first = ''): string =>
      `  matchConditions:\n${first}${Array.from({ length: n }, (_, i) => `  - {name: c${i}, expression: "${HEAVY}"}\n`).join('')}`;
    const spec = (c: string): string => c + validations(1, 'false');
    assert.equal(dispatch(spec(conditions(3))).status?.message, denial('failed expression: false'), '3 × ~0.8M fit');
    assert.equal(dispatch(spec(conditions(4))).status?.message, denial(OUT_OF_BUDGET));
    assert.equal(dispatch(spec(conditions(4, '  - {name: first, expression: "false"}\n'))).status?.message, denial(OUT_OF_BUDGET));
    assert.equal(dispatch(spec(conditions(2, '  - {name: first, expression: "false"}\n'))).allowed, true, 'within budget a false condition skips the policy');
    // under Ignore the matcher answers "no match": the policy is skipped as when a condition is false
    const ignored = dispatch(spec(conditions(4)), 'Ignore');
    assert.equal(ignored.allowed, true);
    const skipped = dispatch(spec(conditions(2, '  - {name: first, expression: "false"}\n')));
    assert.deepEqual(ignored.checks, skipped.checks.map((c) => ({ ...c, seconds: ignored.checks[0]?.seconds ?? 0 })));
  });
});
