import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { CEL_EVALUATION_ERROR, CelEvaluationError, compileExpression, prepareActivation } from '../../lib/cel/index.js';
import type { CelEnvironment, CompiledExpression, CompileRequest, ExpectedResult } from '../../lib/cel/index.js';

const pod = JSON.parse(`{
  "apiVersion": "v1",
  "kind": "Pod",
  "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web", "team": "payments"}},
  "spec": {
    "replicas": 3,
    "cpuRatio": 0.5,
    "containers": [
      {"name": "app", "image": "registry.example.com/web:1.2", "ports": [{"containerPort": 8080}],
       "securityContext": {"privileged": false}},
      {"name": "sidecar", "image": "registry.example.com/proxy:2.0"}
    ]
  }
}`) as Record<string, unknown>;

const request = {
  uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
  kind: { group: '', version: 'v1', kind: 'Pod' },
  resource: { group: '', version: 'v1', resource: 'pods' },
  name: 'web',
  namespace: 'shop',
  operation: 'CREATE',
  userInfo: { username: 'alice', groups: ['system:authenticated', 'dev'] },
  dryRun: false,
};

const namespaceObject = { metadata: { name: 'shop', labels: { 'kubernetes.io/metadata.name': 'shop' } } };
const activation = { object: pod, oldObject: null, request, params: null, namespaceObject };

function compile(
  expression: string,
  environment: CelEnvironment = 'validatingPolicy',
  expect: ExpectedResult = 'any',
  variableNames?: readonly string[],
): ReturnType<typeof compileExpression> {
  const req: CompileRequest = { expression, environment, expect };
  if (variableNames !== undefined) req.variableNames = variableNames;
  return compileExpression(req);
}

function compiled(expression: string, environment: CelEnvironment = 'validatingPolicy', expect: ExpectedResult = 'any', variableNames?: readonly string[]): CompiledExpression {
  const result = compile(expression, environment, expect, variableNames);
  if (!result.ok) assert.fail(`expected ${JSON.stringify(expression)} to compile, got: ${result.message}`);
  return result.compiled;
}

function failure(expression: string, environment: CelEnvironment = 'validatingPolicy', expect: ExpectedResult = 'any', variableNames?: readonly string[]): string {
  const result = compile(expression, environment, expect, variableNames);
  if (result.ok) assert.fail(`expected ${JSON.stringify(expression)} not to compile in ${environment}`);
  return result.message;
}

describe('compileExpression: valid expressions evaluate against plain JSON', () => {
  const cases: [string, unknown][] = [
    ["object.metadata.name == 'web'", true],
    ["has(object.metadata.labels) && 'team' in object.metadata.labels", true],
    ["object.metadata.labels['app'] == 'web'", true],
    ["object.spec.containers.all(c, c.image.startsWith('registry.example.com/'))", true],
    ['!object.spec.containers.exists(c, has(c.securityContext) && has(c.securityContext.privileged) && c.securityContext.privileged)', true],
    ["object.spec.containers.filter(c, c.name == 'sidecar').size() == 1", true],
    ['object.spec.containers.map(c, c.name)', ['app', 'sidecar']],
    // JSON integers are CEL ints: int arithmetic and int formatting work.
    ['object.spec.replicas + 1', 4n],
    ['object.spec.replicas <= 5', true],
    ['string(object.spec.replicas)', '3'],
    ['object.spec.containers[0].ports[0].containerPort == 8080', true],
    // Non-integral numbers stay doubles.
    ['object.spec.cpuRatio * 2.0', 1],
    ["request.operation == 'CREATE' && request.userInfo.groups.exists(g, g == 'dev')", true],
    ["request.kind.kind == 'Pod' && request.resource.resource == 'pods' && !request.dryRun", true],
    ['oldObject == null', true],
    ["namespaceObject.metadata.name == 'shop'", true],
    ['object.?spec.?replicas.orValue(1) == 3', true],
    ["object.?metadata.?annotations.orValue({}).size() == 0", true],
    ['cel.bind(n, object.spec.containers.size(), n * n) == 4', true],
    ["'Pod ' + object.metadata.name + ' has ' + string(object.spec.containers.size()) + ' containers'", 'Pod web has 2 containers'],
  ];
  for (const [expression, expected] of cases) {
    it(expression, () => {
      assert.deepEqual(compiled(expression).evaluate(activation), expected);
    });
  }

  it('evaluates the same program for the mutating environment', () => {
    assert.equal(compiled('object.spec.replicas * 2', 'mutatingPolicy').evaluate(activation), 6n);
  });

  it('binds declared variables the caller leaves out to null', () => {
    assert.equal(compiled('oldObject == null && params == null && namespaceObject == null').evaluate({ object: pod }), true);
  });

  it('does not modify the activation', () => {
    const before = JSON.stringify(pod);
    compiled('object.spec.replicas + 1').evaluate(activation);
    assert.equal(JSON.stringify(pod), before);
    assert.equal(typeof (pod.spec as { replicas: unknown }).replicas, 'number');
  });

  it('gives the same results with a prepared activation', () => {
    const prepared = prepareActivation(activation);
    assert.equal(compiled('object.spec.replicas + 1').evaluate(prepared), 4n);
    assert.equal(compiled("request.userInfo.username == 'alice'").evaluate(prepared), true);
  });

  it('reports the statically inferred output type in cel-go spelling', () => {
    assert.equal(compiled("object.metadata.name == 'web'").outputType, 'bool');
    assert.equal(compiled('object.spec.containers.map(c, c.name)').outputType, 'list(dyn)');
    assert.equal(compiled("{'a': 1}").outputType, 'map(string, int)');
    assert.equal(compiled('object.metadata').outputType, 'dyn');
    assert.equal(compiled('null').outputType, 'null_type');
  });

  it('throws CelEvaluationError with cel-go style wording on evaluation errors', () => {
    const program = compiled('object.spec.nodeName == "n1"');
    assert.throws(
      () => program.evaluate(activation),
      (err: unknown) => {
        assert.ok(err instanceof CelEvaluationError);
        assert.equal(err.code, CEL_EVALUATION_ERROR);
        assert.equal(err.message, 'no such key: nodeName');
        assert.equal(err.expression, 'object.spec.nodeName == "n1"');
        assert.ok(err.cause instanceof Error);
        return true;
      },
    );
    assert.throws(() => compiled('object.spec.replicas / 0').evaluate(activation), { message: 'division by zero' });
  });
});

describe('compileExpression: syntax errors', () => {
  it('renders the position and caret like cel-go', () => {
    assert.equal(
      failure("object.metadata.name == 'web' &&"),
      "compilation failed: ERROR: <input>:1:33: Syntax error: mismatched input '<EOF>' expecting " +
        "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n" +
        " | object.metadata.name == 'web' &&\n" +
        ' | ................................^',
    );
  });

  it('names characters CEL has no token for, and what the recovery finds after them', () => {
    // upstream (tools/upstream-oracle compile): ANTLR's lexer takes `| ` as one bad token, then `2` is left over
    assert.equal(
      failure('1 | 2'),
      "compilation failed: ERROR: <input>:1:3: Syntax error: token recognition error at: '| '\n | 1 | 2\n | ..^\n" +
        "ERROR: <input>:1:5: Syntax error: extraneous input '2' expecting <EOF>\n | 1 | 2\n | ....^",
    );
  });

  it('reports input left after a complete expression', () => {
    assert.equal(failure('object.a b'), "compilation failed: ERROR: <input>:1:10: Syntax error: extraneous input 'b' expecting <EOF>\n | object.a b\n | .........^");
  });

  it('reports a missing closing parenthesis', () => {
    // upstream (tools/upstream-oracle compile): ANTLR's single-token insertion, `missing ')'`
    assert.equal(failure('size(object.spec.containers'), "compilation failed: ERROR: <input>:1:28: Syntax error: missing ')' at '<EOF>'\n | size(object.spec.containers\n | ...........................^");
  });

  it('reports reserved identifiers with cel-go wording', () => {
    assert.equal(failure('as'), 'compilation failed: ERROR: <input>:1:1: reserved identifier: as\n | as\n | ^');
  });

  it('locates errors on later lines', () => {
    assert.equal(
      failure("object.metadata.name == 'web' &&\n  objekt.spec == null"),
      "compilation failed: ERROR: <input>:2:3: undeclared reference to 'objekt' (in container '')\n |   objekt.spec == null\n | ..^",
    );
  });

  it('reports an empty expression with upstream validation text', () => {
    for (const expression of ['', '   ', '\n\t']) {
      const result = compile(expression, 'validatingPolicy', 'bool');
      assert.deepEqual(result, { ok: false, message: 'expression is not specified', errorType: 'Required' });
    }
  });
});

describe('compileExpression: declarations', () => {
  it('rejects an undeclared identifier with the exact upstream message', () => {
    assert.equal(
      failure("objekt.metadata.name == 'web'", 'validatingPolicy', 'bool'),
      "compilation failed: ERROR: <input>:1:1: undeclared reference to 'objekt' (in container '')\n | objekt.metadata.name == 'web'\n | ^",
    );
  });

  it('reports every undeclared identifier, in source order', () => {
    assert.equal(
      failure('object.a && y || zz'),
      "compilation failed: ERROR: <input>:1:13: undeclared reference to 'y' (in container '')\n | object.a && y || zz\n | ............^\n" +
        "ERROR: <input>:1:18: undeclared reference to 'zz' (in container '')\n | object.a && y || zz\n | .................^",
    );
  });

  it('rejects unknown functions, global and member, at the call parenthesis', () => {
    assert.equal(failure('isOrdered(object.spec.containers)'), "compilation failed: ERROR: <input>:1:10: undeclared reference to 'isOrdered' (in container '')\n | isOrdered(object.spec.containers)\n | .........^");
    assert.match(failure("object.metadata.name.reversed() == 'bew'"), /^compilation failed: ERROR: <input>:1:30: undeclared reference to 'reversed' \(in container ''\)\n/);
    // Member functions of the engine that Kubernetes CEL does not have are rejected like upstream.
    assert.match(failure('b"abc".hex()'), /undeclared reference to 'hex'/);
  });

  it('accepts comprehension and cel.bind variables only in their scope', () => {
    compiled('object.spec.containers.exists(c, c.name == "app") && [1, 2].map(x, x * 2).size() == 2');
    assert.match(failure('object.spec.containers.exists(c, true) && c.name == "app"'), /<input>:1:43: undeclared reference to 'c'/);
    assert.match(failure('cel.bind(x, x, 1)'), /<input>:1:13: undeclared reference to 'x'/);
  });

  it('reports macro misuse with cel-go wording', () => {
    assert.equal(failure('has(object)'), 'compilation failed: ERROR: <input>:1:5: invalid argument to has() macro\n | has(object)\n | ....^');
    assert.match(failure('object.spec.containers.all(1, true)'), /<input>:1:28: argument must be a simple name/);
  });

  it('binds both variables of two-variable comprehensions, only in their scope', () => {
    assert.equal(compiled("object.metadata.labels.all(k, v, v != '' && k != '')").evaluate(activation), true);
    assert.deepEqual(compiled('object.spec.containers.transformList(i, c, i)').evaluate(activation), [0n, 1n]);
    assert.match(failure("object.metadata.labels.all(k, v, v != '') && v == ''"), /<input>:1:46: undeclared reference to 'v'/);
  });

  it('reports overload failures with cel-go operator names and argument types', () => {
    assert.equal(failure("1 + 'a' == 2"), "compilation failed: ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'\n | 1 + 'a' == 2\n | ..^");
    assert.match(failure('size(1)'), /<input>:1:5: found no matching overload for 'size' applied to '\(int\)'/);
    assert.match(failure("'abc'.startsWith(1)"), /found no matching overload for 'startsWith' applied to 'string\.\(int\)'/);
  });

  it('checks homogeneous aggregate literals like Kubernetes (cel-go v0.26 cel/validator.go: dyn is not equivalent to string)', () => {
    assert.match(failure("[1, 'a']"), /<input>:1:5: expected type 'int' but found 'string'/);
    assert.match(failure("[object.metadata.name, 'default']"), /<input>:1:24: expected type 'dyn' but found 'string'/);
    assert.equal(compiled('[object.metadata.name, object.metadata.namespace]').outputType, 'list(dyn)');
  });

  it('checks fields of request and namespaceObject against upstream types', () => {
    assert.equal(
      failure("request.operaton == 'CREATE'", 'webhookMatchCondition', 'bool'),
      "compilation failed: ERROR: <input>:1:8: undefined field 'operaton'\n | request.operaton == 'CREATE'\n | .......^",
    );
    // has() expands to a presence test at the macro call's position, its paren: upstream's TypeChecker
    // (tools/kind-schemas -check, k8s.io/apiserver validating/typechecking.go) reports `<input>:1:4` here
    assert.match(failure('has(request.userInfo.email)'), /<input>:1:4: undefined field 'email'/);
    assert.match(failure('request.name.first == "a"'), /type 'string' does not support field selection/);
    assert.match(failure("namespaceObject.metadata.uid == 'x'"), /undefined field 'uid'/);
    compiled("namespaceObject.metadata.labels.env == 'prod' && request.userInfo.extra['k'].size() > 0 && request.options.x == 1");
  });
});

// k8s.io/apiserver pkg/admission/plugin/cel/compile.go createEnvForOpts: `authorizer` and
// `authorizer.requestResource` are declared with HasAuthorizer, which every expression has but a validation's
// messageExpression (policy/validating/plugin.go compilePolicy; apis validation.go validateMessageExpression).
describe('compileExpression: authorizer', () => {
  for (const environment of ['validatingPolicy', 'mutatingPolicy', 'webhookMatchCondition'] as const) {
    it(`is declared in ${environment}, typed as library/authz.go types it`, () => {
      const c = compiled("authorizer.group('apps').resource('deployments').namespace('ns').name('d').subresource('scale').check('create').allowed()", environment, 'bool');
      assert.equal(c.outputType, 'bool');
      assert.equal(c.usesAuthorizer, true);
      assert.equal(compiled("authorizer.requestResource.check('delete').reason()", environment, 'string').outputType, 'string');
      assert.equal(compiled("authorizer.path('/healthz').check('get').errored() || authorizer.serviceAccount('ns', 'sa').path('/x').check('get').error() == ''", environment, 'bool').outputType, 'bool');
      assert.equal(compiled("authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n').labelSelector('a=b').check('list').allowed()", environment, 'bool').outputType, 'bool');
      assert.equal(compiled('object.x == 1', environment, 'bool').usesAuthorizer, false);
    });
  }

  it('is undeclared in a messageExpression: upstream\'s checker error', () => {
    assert.equal(
      failure("authorizer.requestResource.check('get').reason()", 'validatingPolicyMessage', 'string'),
      "compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')\n" +
        " | authorizer.requestResource.check('get').reason()\n" +
        ' | ^',
    );
  });

  it('rejects calls its types lack (type-checked)', () => {
    assert.match(failure("authorizer.resource('pods')", 'validatingPolicy', 'any'), /found no matching overload for 'resource' applied to 'kubernetes\.authorization\.Authorizer/);
    assert.match(failure("authorizer.requestResource.check('get')", 'validatingPolicy', 'bool'), /must evaluate to bool but got kubernetes\.authorization\.Decision/);
  });
});

describe('compileExpression: params', () => {
  it('declares params in the policy environments, null at run time', () => {
    assert.equal(compiled('params == null', 'validatingPolicy', 'bool').evaluate(activation), true);
    assert.equal(compiled("params == null || params.max > 1", 'mutatingPolicy', 'bool').evaluate(activation), true);
  });
});

describe('compileExpression: result types', () => {
  it('requires bool where the field does', () => {
    const result = compile("'abc'", 'validatingPolicy', 'bool');
    assert.deepEqual(result, { ok: false, message: 'must evaluate to bool but got string', errorType: 'Invalid' });
    assert.equal(failure('object.spec.containers.map(c, c.name)', 'webhookMatchCondition', 'bool'), 'must evaluate to bool but got list(dyn)');
  });

  it('requires string for messageExpression-like fields', () => {
    assert.equal(failure('object.spec.containers.size()', 'validatingPolicy', 'string'), 'must evaluate to string but got int');
    compiled("'replicas: ' + string(object.spec.replicas)", 'validatingPolicy', 'string');
  });

  it('accepts string or null for audit annotation values', () => {
    assert.equal(failure('1', 'validatingPolicy', 'stringOrNull'), 'must evaluate to one of [string null_type] but got int');
    compiled('null', 'validatingPolicy', 'stringOrNull');
    compiled("'x'", 'validatingPolicy', 'stringOrNull');
  });

  it('refuses dyn results: compile.go compares with IsExactType', () => {
    assert.equal(failure('object.spec.paused', 'validatingPolicy', 'bool'), 'must evaluate to bool but got dyn');
    assert.equal(failure('object.metadata.name', 'validatingPolicyMessage', 'string'), 'must evaluate to string but got dyn');
    compiled('object.spec.paused == true', 'validatingPolicy', 'bool');
    compiled('string(object.metadata.name)', 'validatingPolicyMessage', 'string');
  });

  it('accepts anything for any', () => {
    compiled('[1, 2, 3]', 'mutatingPolicy', 'any');
  });
});

describe('compileExpression: variables composition', () => {
  it('compiles variables.<name> only for declared names', () => {
    compiled("variables.isWeb && variables.team == 'payments'", 'validatingPolicy', 'bool', ['isWeb', 'team']);
    assert.equal(
      failure('variables.other', 'validatingPolicy', 'bool', ['isWeb']),
      "compilation failed: ERROR: <input>:1:10: undefined field 'other'\n | variables.other\n | .........^",
    );
    assert.match(failure('variables.isWeb', 'validatingPolicy', 'bool'), /undefined field 'isWeb'/);
  });

  it('lets a variable reference earlier variables only', () => {
    const declared: string[] = [];
    const first = compile("object.metadata.labels['team']", 'validatingPolicy', 'any', declared);
    assert.ok(first.ok);
    declared.push('team');
    assert.ok(compile("variables.team == 'payments'", 'validatingPolicy', 'any', declared).ok);
    assert.match(failure('variables.later + 1', 'validatingPolicy', 'any', declared), /undefined field 'later'/);
  });

  it('evaluates variables lazily, through whatever object the caller binds', () => {
    const isWeb = compiled("object.metadata.name == 'web'");
    let evaluations = 0;
    const variables = {};
    Object.defineProperty(variables, 'isWeb', {
      enumerable: true,
      get: () => {
        evaluations++;
        return isWeb.evaluate(activation);
      },
    });
    Object.defineProperty(variables, 'unused', {
      enumerable: true,
      get: () => {
        evaluations++;
        return 'x';
      },
    });
    const program = compiled('variables.isWeb || variables.unused == "x"', 'validatingPolicy', 'bool', ['isWeb', 'unused']);
    assert.equal(program.evaluate({ ...activation, variables }), true);
    assert.equal(evaluations, 1);
  });
});

describe('compileExpression: webhook matchConditions environment', () => {
  it('declares object, oldObject and request', () => {
    const program = compiled("request.operation == 'CREATE' && object.metadata.name == 'web' && oldObject == null", 'webhookMatchCondition', 'bool');
    assert.equal(program.evaluate(activation), true);
  });

  it('declares namespaceObject as compile.go createEnvForOpts does (null at run time for webhooks)', () => {
    const program = compiled("namespaceObject == null || namespaceObject.metadata.name == 'a'", 'webhookMatchCondition', 'bool');
    assert.equal(program.evaluate({ ...activation, namespaceObject: null }), true);
  });

  for (const [name, expression] of [
    ['params', "params.x == 'a'"],
    ['variables', "variables.x == 'a'"],
  ]) {
    it(`rejects ${name}`, () => {
      assert.equal(
        failure(expression, 'webhookMatchCondition', 'bool', ['x']),
        `compilation failed: ERROR: <input>:1:1: undeclared reference to '${name}' (in container '')\n | ${expression}\n | ^`,
      );
      assert.ok(compile(expression, 'validatingPolicy', 'bool', ['x']).ok);
    });
  }
});

describe('compileExpression: caching', () => {
  it('returns the same compiled object for the same request', () => {
    const a = compile("object.metadata.name == 'cached'", 'validatingPolicy', 'bool', ['v']);
    const b = compile("object.metadata.name == 'cached'", 'validatingPolicy', 'bool', ['v']);
    assert.ok(a.ok && b.ok);
    assert.equal(a, b);
    assert.equal(a.compiled, b.compiled);
  });

  it('shares programs across variable sets when the expression does not use variables', () => {
    const a = compile("object.metadata.name == 'shared'", 'validatingPolicy', 'bool', ['x']);
    const b = compile("object.metadata.name == 'shared'", 'validatingPolicy', 'bool', ['y', 'z']);
    assert.ok(a.ok && b.ok);
    assert.equal(a.compiled, b.compiled);
  });

  it('keys by environment, expected type and the variable names an expression uses', () => {
    const policy = compile("object.metadata.name == 'keyed'", 'validatingPolicy', 'bool');
    const webhook = compile("object.metadata.name == 'keyed'", 'webhookMatchCondition', 'bool');
    assert.ok(policy.ok && webhook.ok);
    assert.notEqual(policy.compiled, webhook.compiled);
    assert.ok(compile('variables.v', 'validatingPolicy', 'any', ['v']).ok);
    assert.ok(!compile('variables.v', 'validatingPolicy', 'any', ['w']).ok);
    assert.ok(!compile("'s'", 'validatingPolicy', 'bool').ok);
    assert.ok(compile("'s'", 'validatingPolicy', 'string').ok);
  });

  it('caches failures too', () => {
    assert.equal(compile('nope', 'validatingPolicy', 'bool'), compile('nope', 'validatingPolicy', 'bool'));
  });
});
