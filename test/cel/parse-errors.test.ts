// Parse errors as cel-go v0.26.0 reports them: the syntax errors of ANTLR's error recovery over cel-go's own grammar
// (parser/gen/CEL.g4, parser/parser.go's listener, recoveryLimitErrorStrategy and reservedIdentifier rewording), and
// what its visitor and macros add (parser/parser.go Visit…, parser/unescape.go, parser/macro.go, cel/library.go
// optMap, ext/comprehensions.go, ext/lists.go sortBy). Every expected text below is what kube-apiserver 1.36.3's API
// validation (k8s.io/kubernetes pkg/apis/admissionregistration/validation) answered for the expression in a
// ValidatingAdmissionPolicy's validation, through tools/upstream-oracle's `compile` op.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { compileExpression } from '../../lib/cel/index.js';

const UPSTREAM: ReadonlyArray<readonly [expression: string, errors: string]> = [
  ["[1,", "ERROR: <input>:1:4: Syntax error: missing ']' at '<EOF>'\n | [1,\n | ...^"],
  ["!", "ERROR: <input>:1:2: Syntax error: extraneous input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | !\n | .^"],
  ["\"abc", "ERROR: <input>:1:1: Syntax error: token recognition error at: '\"abc'\n | \"abc\n | ^\nERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | \"abc\n | ....^"],
  ["-", "ERROR: <input>:1:2: Syntax error: no viable alternative at input '-'\n | -\n | .^\nERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | -\n | .^"],
  ["has(ob", "ERROR: <input>:1:5: invalid argument to has() macro\n | has(ob\n | ....^\nERROR: <input>:1:7: Syntax error: missing ')' at '<EOF>'\n | has(ob\n | ......^"],
  ["!object.status.?", "ERROR: <input>:1:17: Syntax error: mismatched input '<EOF>' expecting {IDENTIFIER, ESC_IDENTIFIER}\n | !object.status.?\n | ................^\nERROR: <input>:1:17: unsupported ident kind\n | !object.status.?\n | ................^"],
  ["object.spec.containers.all(1, true)", "ERROR: <input>:1:28: argument must be a simple name\n | object.spec.containers.all(1, true)\n | ...........................^"],
  ["object.spec.containers.map(1, 2)", "ERROR: <input>:1:28: argument is not an identifier\n | object.spec.containers.map(1, 2)\n | ...........................^"],
  ["object.spec.containers.all(x, x, true)", "ERROR: <input>:1:31: duplicate variable name: x\n | object.spec.containers.all(x, x, true)\n | ..............................^"],
  ["'\\q' == 'a'", "ERROR: <input>:1:1: Syntax error: token recognition error at: ''\\q'\n | '\\q' == 'a'\n | ^\nERROR: <input>:1:10: Syntax error: extraneous input 'a' expecting <EOF>\n | '\\q' == 'a'\n | .........^\nERROR: <input>:1:11: Syntax error: token recognition error at: '''\n | '\\q' == 'a'\n | ..........^"],
  ["9223372036854775808 > 1", "ERROR: <input>:1:1: invalid int literal\n | 9223372036854775808 > 1\n | ^"],
  ["18446744073709551616u > 1u", "ERROR: <input>:1:1: invalid uint literal\n | 18446744073709551616u > 1u\n | ^"],
  ["as == 1", "ERROR: <input>:1:1: reserved identifier: as\n | as == 1\n | ^"],
  ["object.as(1)", "ERROR: <input>:1:10: undeclared reference to 'as' (in container '')\n | object.as(1)\n | .........^"],
  ["'\\uD800' == ''", "ERROR: <input>:1:1: invalid unicode code point\n | '\\uD800' == ''\n | ^"],
  ["object.metadata.name == 'a' &&", "ERROR: <input>:1:31: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | object.metadata.name == 'a' &&\n | ..............................^"],
  ["Object{spec: Object.spec{replicas: 1}}", "ERROR: <input>:1:7: undeclared reference to 'Object' (in container '')\n | Object{spec: Object.spec{replicas: 1}}\n | ......^"],
  ["has(object.spec.host-Network)", "ERROR: <input>:1:21: invalid argument to has() macro\n | has(object.spec.host-Network)\n | ....................^"],
  ["[1, 2].sortBy(1, 2) == [1]", "ERROR: <input>:1:15: argument is not an identifier\n | [1, 2].sortBy(1, 2) == [1]\n | ..............^"],
  ["object.optMap(1, 2) == 1", "ERROR: <input>:1:15: optMap() variable name must be a simple identifier\n | object.optMap(1, 2) == 1\n | ..............^"],
  ["x.`a b`", "ERROR: <input>:1:3: unsupported syntax: '`'\n | x.`a b`\n | ..^"],
  ["a.true", "ERROR: <input>:1:3: Syntax error: mismatched input 'true' expecting IDENTIFIER\n | a.true\n | ..^"],
  ["[1 2 3 4", "ERROR: <input>:1:4: Syntax error: mismatched input '2' expecting {']', ','}\n | [1 2 3 4\n | ...^"],
  ["{1: 2, 3}", "ERROR: <input>:1:9: Syntax error: mismatched input '}' expecting ':'\n | {1: 2, 3}\n | ........^"],
  ["'\\xZZ' == b'\\u0041'", "ERROR: <input>:1:1: Syntax error: token recognition error at: ''\\xZ'\n | '\\xZZ' == b'\\u0041'\n | ^\nERROR: <input>:1:6: Syntax error: mismatched input '' == b'' expecting <EOF>\n | '\\xZZ' == b'\\u0041'\n | .....^\nERROR: <input>:1:13: Syntax error: token recognition error at: '\\'\n | '\\xZZ' == b'\\u0041'\n | ............^\nERROR: <input>:1:19: Syntax error: token recognition error at: '''\n | '\\xZZ' == b'\\u0041'\n | ..................^"],
];

/** One test per row: the expression, compiled as a validation, fails with upstream's errors. */
function itFails(rows: ReadonlyArray<readonly [expression: string, errors: string]>): void {
  for (const [expression, errors] of rows) {
    it(JSON.stringify(expression), () => {
      const result = compileExpression({ expression, environment: 'validatingPolicy', expect: 'bool' });
      assert.equal(result.ok, false);
      assert.equal(result.ok ? '' : result.message, `compilation failed: ${errors}`);
    });
  }
}

describe('CEL parse errors read as cel-go reports them', () => {
  itFails(UPSTREAM);

  it('the error recovery stops after 30 attempts, with the listener told at the current token', () => {
    // parser.go recoveryLimitErrorStrategy.checkAttempts: the 31st recovery is reported, then the parse ends
    // upstream: 31 `no viable alternative at input` errors, then the limit, for 40 of `a.)` joined by ` + `
    const expression = Array.from({ length: 40 }, () => 'a.)').join(' + ');
    const result = compileExpression({ expression, environment: 'validatingPolicy', expect: 'bool' });
    assert.equal(result.ok, false);
    const message = result.ok ? '' : result.message;
    assert.equal(message.match(/Syntax error: no viable alternative at input/g)?.length, 31);
    assert.equal(message.match(/Syntax error: error recovery attempt limit exceeded: 30\n/g)?.length, 1);
    assert.equal(message.match(/ERROR: <input>/g)?.length, 32);
  });
});

describe('names with a leading dot (cel-go root-scoped names)', () => {
  // upstream (tools/upstream-oracle compile): `.name` resolves as `name` in the empty container, comprehension
  // variables included; an unknown one is reported as written, at its name
  it('resolve as the name and evaluate', () => {
    const result = compileExpression({ expression: '.object.metadata.name == "a" && .size(object.spec.containers) > 0', environment: 'validatingPolicy', expect: 'bool' });
    assert.ok(result.ok, result.ok ? '' : result.message);
    assert.equal(result.compiled.evaluate({ object: { metadata: { name: 'a' }, spec: { containers: [{}] } } }), true);
    const local = compileExpression({ expression: 'object.spec.containers.all(c, .c.name == "a")', environment: 'validatingPolicy', expect: 'bool' });
    assert.ok(local.ok, local.ok ? '' : local.message);
    assert.equal(local.compiled.evaluate({ object: { spec: { containers: [{ name: 'a' }, { name: 'b' }] } } }), false);
  });

  itFails([
    ['.nope == 1', "ERROR: <input>:1:2: undeclared reference to '.nope' (in container '')\n | .nope == 1\n | .^"],
    ['[1].all(object, .object.metadata.name == "a")', "ERROR: <input>:1:24: type 'int' does not support field selection\n | [1].all(object, .object.metadata.name == \"a\")\n | .......................^"],
    ['object>.metadata.generation > 0', "ERROR: <input>:1:9: undeclared reference to '.metadata' (in container '')\n | object>.metadata.generation > 0\n | ........^\nERROR: <input>:1:29: found no matching overload for '_>_' applied to '(bool, int)'\n | object>.metadata.generation > 0\n | ............................^"],
  ]);
});

describe('type names, empty literals with a trailing comma and rooted calls, as upstream compiles them', () => {
  // upstream (tools/upstream-oracle compile): cel-go's checker declares `timestamp` and `duration` as type
  // identifiers the interpreter cannot plan; `dyn` is no identifier; `[,]` and `{,}` are the grammar's empty literals
  // with their optional trailing comma; `.fn(…)` names no macro
  itFails([
    ['object.metadata.creationTimestamp < timestamp', "ERROR: <input>:1:35: found no matching overload for '_<_' applied to '(dyn, type(timestamp))'\n | object.metadata.creationTimestamp < timestamp\n | ..................................^"],
    ['type(object) == dyn', "ERROR: <input>:1:17: undeclared reference to 'dyn' (in container '')\n | type(object) == dyn\n | ................^"],
    ['.has(object.metadata)', "ERROR: <input>:1:5: undeclared reference to '.has' (in container '')\n | .has(object.metadata)\n | ....^"],
  ]);

  it('a program naming timestamp fails to instantiate', () => {
    const result = compileExpression({ expression: 'type(object) == timestamp', environment: 'validatingPolicy', expect: 'bool' });
    assert.equal(result.ok, false);
    assert.equal(result.ok ? '' : result.message, 'program instantiation failed: reference to undefined type: timestamp');
  });

  it('[,] and {,} are empty literals', () => {
    const result = compileExpression({ expression: '[,] == [] && {,} == {} && [1,] == [1]', environment: 'validatingPolicy', expect: 'bool' });
    assert.ok(result.ok, result.ok ? '' : result.message);
    assert.equal(result.compiled.evaluate({}), true);
  });
});
