// The authorizer library at the CEL level (k8s.io/apiserver pkg/cel/library/authz.go, cost.go), with the checker
// interface answered directly: costs, the attributes a check hands over, selector parsing (apimachinery
// fields.ParseSelector, labels.ParseToRequirements as plugin/pkg/authorizer/webhook/webhook.go maps them), and the
// unbound variable (cel-go interpreter/attributes.go: `no such attribute(s): <names>`).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AuthorizationPending, authorizerValue, CelActivation, CelEvaluationError, compileExpression, COST_LIMIT_EXCEEDED, requestResourceValue } from '../../lib/cel/index.js';
import type { AuthorizationAttributes, AuthorizationChecker, CompiledExpression } from '../../lib/cel/index.js';
import { parseFieldSelector, parseLabelSelector } from '../../lib/cel/runtime/k8s/selectors.js';

function compiled(expression: string): CompiledExpression {
  const result = compileExpression({ expression, environment: 'validatingPolicy', expect: 'any' });
  if (!result.ok) assert.fail(result.message);
  return result.compiled;
}

/** Answers every check `allow`, recording the attributes. */
function recordingChecker(): AuthorizationChecker & { seen: AuthorizationAttributes[] } {
  const seen: AuthorizationAttributes[] = [];
  return { seen, authorize: (a) => (seen.push(a), { decision: 'allow', reason: 'ok' }) };
}

function activation(checker: AuthorizationChecker): CelActivation {
  const authorizer = authorizerValue({ name: 'alice', uid: '', groups: ['g'], extra: {} }, checker);
  return CelActivation.of({ request: {} }).withAuthorizer({
    authorizer,
    requestResource: requestResourceValue(authorizer, { group: 'apps', resource: 'deployments', subresource: '', namespace: 'ns', name: 'd' }),
  });
}

/** The runtime cost of an evaluation: the smallest cost limit it stays within. */
function costOf(expression: string): number {
  const program = compiled(expression);
  const a = activation(recordingChecker());
  let low = 0;
  let high = 2_000_000;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    try {
      program.evaluate(a, { costLimit: mid });
      high = mid;
    } catch (err) {
      if (!(err instanceof CelEvaluationError) || err.message !== COST_LIMIT_EXCEEDED) throw err;
      low = mid + 1;
    }
  }
  return low;
}

describe('authorizer costs (library/cost.go)', () => {
  it('a check costs 350,000; the builders and accessors 1 each', () => {
    const one = costOf("authorizer.path('/x').check('get').allowed()");
    assert.ok(one >= 350_000 && one <= 350_005, String(one));
    assert.equal(costOf("authorizer.path('/x').check('get').allowed() && authorizer.path('/y').check('get').allowed()") - one, one);
  });

  it('a selector costs its parse estimate: 10 + ⌈0.1·n⌉ + 50·⌈0.5·n⌉ for n characters', () => {
    const base = costOf("authorizer.group('').resource('pods').check('list').allowed()");
    assert.equal(costOf("authorizer.group('').resource('pods').labelSelector('app=web').check('list').allowed()") - base, 10 + 1 + 50 * 4);
    assert.equal(costOf("authorizer.group('').resource('pods').fieldSelector('spec.nodeName=node-1').check('list').allowed()") - base, 10 + 2 + 50 * 10);
  });
});

describe('what a check hands over', () => {
  it('the request resource, version *, the verb; a pending check is not a CEL error and is not absorbed', () => {
    const checker = recordingChecker();
    assert.equal(compiled("authorizer.requestResource.check('get').allowed()").evaluate(activation(checker)), true);
    assert.deepEqual(checker.seen, [{
      resourceRequest: true, user: { name: 'alice', uid: '', groups: ['g'], extra: {} }, verb: 'get',
      apiGroup: 'apps', apiVersion: '*', resource: 'deployments', subresource: '', namespace: 'ns', name: 'd',
    }]);
    const pending: AuthorizationChecker = { authorize: (a) => { throw new AuthorizationPending(a, 'k'); } };
    assert.throws(() => compiled("authorizer.requestResource.check('get').allowed() || true").evaluate(activation(pending)), AuthorizationPending);
  });

  it('unbound, `authorizer` is `no such attribute(s)`', () => {
    const plain = CelActivation.of({ request: {} });
    assert.throws(() => compiled("authorizer.path('/x').check('get').allowed()").evaluate(plain), { message: 'no such attribute(s): authorizer' });
    assert.throws(() => compiled("authorizer.requestResource.check('get').allowed()").evaluate(plain), { message: 'no such attribute(s): authorizer.requestResource' });
  });
});

describe('selectors as a SubjectAccessReview carries them', () => {
  it('field selectors: terms sorted, = and == are In, != is NotIn, escapes undone', () => {
    assert.deepEqual(parseFieldSelector('spec.nodeName==n1,metadata.name!=a\\,b'), {
      requirements: [{ key: 'metadata.name', operator: 'NotIn', values: ['a,b'] }, { key: 'spec.nodeName', operator: 'In', values: ['n1'] }],
      text: 'metadata.name!=a,b,spec.nodeName=n1',
    });
    assert.equal(parseFieldSelector('no-operator').requirements.length, 0);
    assert.equal(parseFieldSelector('a=b=c').requirements.length, 0, 'an unescaped = in a value fails the parse');
  });

  it('label selectors: keys sorted, values sorted and de-duplicated, Gt/Lt dropped, a bad one has none', () => {
    assert.deepEqual(parseLabelSelector('tier notin (b, a, a), app=web, !canary, env, n>3').requirements, [
      { key: 'app', operator: 'In', values: ['web'] },
      { key: 'canary', operator: 'DoesNotExist' },
      { key: 'env', operator: 'Exists' },
      { key: 'tier', operator: 'NotIn', values: ['a', 'b'] },
    ]);
    assert.equal(parseLabelSelector('tier notin (b, a, a), app=web, !canary, env, n>3').text, 'app=web,!canary,env,n>3,tier notin (a,b)');
    for (const bad of ['app in ()x', 'a b', 'Bad Key=x', 'app=in valid', 'n>x', '=x']) assert.deepEqual(parseLabelSelector(bad).requirements, [], bad);
  });
});
