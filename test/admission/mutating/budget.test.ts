// The runtime CEL cost budget of MutatingAdmissionPolicies, as kube-apiserver 1.36 charges it:
// - policy/mutating/dispatcher.go dispatchOne: each mutation's patcher gets celconfig.RuntimeCELCostBudget
//   (10,000,000) of its own (patch/json_patch.go, patch/smd.go pass it to mutatingEvaluator.ForInput, mutation.go);
// - plugin/cel/activation.go Evaluate: the composition variables the expression evaluates are charged with it (each
//   evaluation builds a fresh lazy variables map, composition.go Variables), and an overrun is the error
//   "validation failed due to running out of cost budget, no further validation rules will be run", which the
//   dispatcher reports under the failure policy like any patcher error (mutating/errors.go: out_of_budget);
// - matchConditions: webhook/matchconditions/matcher.go with celconfig.RuntimeCELCostBudgetMatchConditions (2,500,000).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { OUT_OF_BUDGET } from '../../../lib/admission/budget.js';
import { loadHooks, mutate, policy, requestFor } from './helpers.js';

/** 450 × 450 iterations: about 814,000 in this runtime's cost model (see test/admission/validating/budget.test.ts). */
const HEAVY = 'object.spec.xs.all(x, object.spec.xs.all(y, y >= 0))';

/** A custom resource (no built-in schema to decode the patched object against) with a 450-element list. */
const widget = (): Record<string, unknown> => ({
  apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' },
  spec: { xs: Array.from({ length: 450 }, (_, i) => i) },
});
const options = { group: 'example.com', resources: 'widgets' } as const;

const variables = (n: number): string =>
  `  variables:\n${Array.from({ length: n }, (_, i) => `  - {name: v${i}, expression: "${HEAVY}"}\n`).join('')}`;
const readsAll = (n: number): string => Array.from({ length: n }, (_, i) => `variables.v${i}`).join(' && ');
/** A mutation adding label `k` once every one of the n variables has been read. */
const labelAfter = (n: number, k: string): { jsonPatch: string } =>
  ({ jsonPatch: `${readsAll(n)} ? [JSONPatch{op: "add", path: "/metadata/labels", value: {"${k}": "yes"}}] : []` });
const denied = (message: string): string => `policy 'p.static.k8s.io' with binding 'p-binding.static.k8s.io' denied request: ${message}`;

describe('the runtime cost budget of a mutation', () => {
  it('a mutation whose variables cost more than 10,000,000: Fail denies with the budget error, Ignore admits unmutated', async () => {
    const fail = await mutate(loadHooks(policy('p', [labelAfter(13, 'a')], { ...options, extra: variables(13) })), requestFor(widget()));
    assert.equal(fail.response.allowed, false);
    assert.deepEqual(fail.response.status, {
      metadata: {}, status: 'Failure', message: denied(OUT_OF_BUDGET), reason: 'Invalid', code: 403,
      details: { name: 'w', group: 'example.com', kind: 'widgets', causes: [{ message: denied(OUT_OF_BUDGET) }] },
    });
    assert.deepEqual(fail.checks.map((c) => c.errorType), ['out_of_budget']);
    const ignore = await mutate(loadHooks(policy('p', [labelAfter(13, 'a')], { ...options, extra: variables(13), failurePolicy: 'Ignore' })), requestFor(widget()));
    assert.equal(ignore.response.allowed, true);
    assert.equal(ignore.response.patch, undefined);
    assert.deepEqual(ignore.checks.map((c) => c.errorType), ['out_of_budget']);
  });

  it('each mutation has a budget of its own, and evaluates (and pays for) the variables again', async () => {
    // 12 variables (~9.77M) fit in one mutation's budget; the second mutation pays for them again and fits too
    const both = await mutate(loadHooks(policy('p', [labelAfter(12, 'a'), labelAfter(12, 'b')], { ...options, extra: variables(12) })), requestFor(widget()));
    assert.equal(both.response.allowed, true);
    assert.deepEqual((both.patched as { metadata: { labels: unknown } }).metadata.labels, { b: 'yes' });
    assert.deepEqual(both.checks.map((c) => c.errorType), ['no_error', 'no_error']);
  });

  it('matchConditions share 2,500,000', async () => {
    const addA = { applyConfiguration: 'Object{metadata: Object.metadata{labels: {"a": "yes"}}}' };
    const conditions = (n: number): string =>
      `  matchConditions:\n${Array.from({ length: n }, (_, i) => `  - {name: c${i}, expression: "${HEAVY}"}\n`).join('')}`;
    const within = await mutate(loadHooks(policy('p', [addA], { ...options, extra: conditions(3) })), requestFor(widget()));
    assert.deepEqual((within.patched as { metadata: { labels: unknown } }).metadata.labels, { a: 'yes' });
    const over = await mutate(loadHooks(policy('p', [addA], { ...options, extra: conditions(4) })), requestFor(widget()));
    assert.equal(over.response.status?.message, denied(OUT_OF_BUDGET));
    assert.deepEqual(over.checks, [], 'no mutation was evaluated');
    const ignore = await mutate(loadHooks(policy('p', [addA], { ...options, extra: conditions(4), failurePolicy: 'Ignore' })), requestFor(widget()));
    assert.equal(ignore.response.allowed, true);
    assert.equal(ignore.response.patch, undefined);
  });
});
