// CEL message construction (`JSONPatch{…}`, `Object{spec: Object.spec{…}}`) for MutatingAdmissionPolicy mutations:
// the lexer, the rewrite into map-building calls, compile + evaluate of the Kubernetes documentation examples,
// errors placed in the original text, and upstream's result types for mutations.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { celValueToJson, compileExpression, constructionTypeOf } from '../../lib/cel/index.js';
import type { CelEnvironment, CompiledExpression, ExpectedResult } from '../../lib/cel/index.js';
import { lex } from '../../lib/cel/lexer.js';
import { CONSTRUCT_FUNCTION } from '../../lib/cel/objects.js';
import { rewriteConstructions } from '../../lib/cel/rewrite.js';

const F = CONSTRUCT_FUNCTION;

function compiled(expression: string, expect: ExpectedResult = 'any', environment: CelEnvironment = 'mutatingPolicy'): CompiledExpression {
  const result = compileExpression({ expression, environment, expect });
  if (!result.ok) assert.fail(`expected ${JSON.stringify(expression)} to compile, got: ${result.message}`);
  return result.compiled;
}

function failure(expression: string, expect: ExpectedResult = 'any', environment: CelEnvironment = 'mutatingPolicy'): string {
  const result = compileExpression({ expression, environment, expect });
  if (result.ok) assert.fail(`expected ${JSON.stringify(expression)} not to compile in ${environment}`);
  return result.message;
}

function evaluateJson(expression: string, activation: Record<string, unknown> = {}, expect: ExpectedResult = 'any'): unknown {
  return celValueToJson(compiled(expression, expect).evaluate(activation));
}

/** The rewrite must leave these alone: no construction in them. */
function assertUnchanged(source: string): void {
  const rewritten = rewriteConstructions(source);
  assert.equal(rewritten.source, source, source);
  assert.deepEqual(rewritten.constructions, [], source);
  assert.equal(rewritten.issue, undefined, source);
}

describe('lexer', () => {
  it('tokenizes every string form, numbers, punctuation and skips comments', () => {
    const source = String.raw`r'a\' b"x\"y" br"\" """t"q""" '''u'v''' 1.5e3 0x1Fu .5 7u a.b ` + '`x-y`' + ' // c {\n!= <= in true';
    const tokens = lex(source).map((t) => [t.kind, t.text]);
    assert.deepEqual(tokens, [
      ['string', String.raw`r'a\'`],
      ['string', String.raw`b"x\"y"`],
      ['string', String.raw`br"\"`],
      ['string', '"""t"q"""'],
      ['string', "'''u'v'''"],
      ['number', '1.5e3'],
      ['number', '0x1Fu'],
      ['number', '.5'],
      ['number', '7u'],
      ['ident', 'a'],
      ['punct', '.'],
      ['ident', 'b'],
      ['escIdent', '`x-y`'],
      ['punct', '!='],
      ['punct', '<='],
      ['keyword', 'in'],
      ['keyword', 'true'],
    ]);
  });

  it('keeps offsets of the source', () => {
    const [first, second] = lex('  ab\n  "c"');
    assert.deepEqual([first?.start, first?.end, second?.start, second?.end], [2, 4, 7, 10]);
  });

  it('ends with one invalid token at an unterminated string, a newline in a string or a stray character', () => {
    assert.deepEqual(lex('a + "b').map((t) => t.kind), ['ident', 'punct', 'invalid']);
    assert.deepEqual(lex("'a\nb'").map((t) => t.kind), ['invalid']);
    assert.deepEqual(lex('"""never closed').map((t) => t.kind), ['invalid']);
    assert.deepEqual(lex('a @ b').map((t) => [t.kind, t.text]), [['ident', 'a'], ['invalid', '@ b']]);
  });

  it('reads `1.` followed by a name as an int and a member selection, as ANTLR does', () => {
    assert.deepEqual(lex('1.e5').map((t) => t.text), ['1', '.', 'e5']);
  });
});

describe('rewriteConstructions', () => {
  it('turns a construction into a call on the type name, a map with string keys and the optional fields', () => {
    const rewritten = rewriteConstructions('JSONPatch{op: "add", value: 1}');
    assert.equal(rewritten.source, `         ${F}("JSONPatch", {"op": "add", "value": 1}, [])`);
    assert.deepEqual(rewritten.constructions, [{ type: 'JSONPatch', offset: 0, brace: 9, end: 30 }]);
  });

  it('rewrites nested constructions and leaves the map literals inside them alone', () => {
    const source = 'Object{metadata: Object.metadata{labels: {"team": "a"}}, spec: Object.spec{x: [Object.spec.x{}]}}';
    assert.equal(
      rewriteConstructions(source).source,
      `      ${F}("Object", {"metadata":                ${F}("Object.metadata", {"labels": {"team": "a"}}, []), ` +
        `"spec":            ${F}("Object.spec", {"x": [             ${F}("Object.spec.x", {}, [])]}, [])}, [])`,
    );
    assert.deepEqual(
      rewriteConstructions(source).constructions.map((c) => c.type),
      ['Object', 'Object.metadata', 'Object.spec', 'Object.spec.x'],
    );
  });

  it('marks optional fields and blanks their `?`', () => {
    assert.equal(rewriteConstructions('Object{?spec: x, b: 1}').source, `      ${F}("Object", { "spec": x, "b": 1}, ["spec"])`);
  });

  it('accepts a leading dot, whitespace and comments inside the name', () => {
    assert.equal(rewriteConstructions('.Object{}').source, `       ${F}("Object", {}, [])`);
    assert.deepEqual(rewriteConstructions('.Object{}').constructions, [{ type: 'Object', offset: 0, brace: 7, end: 9 }]);
    assert.equal(rewriteConstructions('Object . spec // note\n{a: 1}').source, `                     \n${F}("Object.spec", {"a": 1}, [])`);
  });

  it('turns escaped field names into string keys, and the empty `Type{,}` into an empty map', () => {
    assert.equal(rewriteConstructions('Object{`a-b.c/d e`: 1}').source, `      ${F}("Object", {"a-b.c/d e": 1}, [])`);
    assert.equal(rewriteConstructions('Object{,}').source, `      ${F}("Object", { }, [])`);
    assert.equal(rewriteConstructions('Object{a: 1,}').source, `      ${F}("Object", {"a": 1,}, [])`);
  });

  it('does not look into strings of any form, bytes or comments', () => {
    for (const source of [
      '"Object{a: 1}"',
      "'JSONPatch{op: x}'",
      '"""Object{\n}"""',
      "'''x{'''",
      String.raw`r"C:\" + "x"`,
      "b'Object{'",
      String.raw`"esc \" Object{a: 1}"`,
      String.raw`'\\' + 'Object{'`,
      '// Object{a: 1}\nobject.x',
    ]) {
      assertUnchanged(source);
    }
  });

  it('blanks raw bytes to the same length (the engine cannot lex them; fixups.ts decodes the original)', () => {
    assert.equal(rewriteConstructions(String.raw`br'\' + 'y'`).source, String.raw` b' ' + 'y'`);
  });

  it('finds constructions after strings that a regex would misread', () => {
    // A raw string ends at the first quote: the backslash does not escape it.
    const rewritten = rewriteConstructions(String.raw`[r"C:\", JSONPatch{op: "Object{"}] // JSONPatch{}`);
    assert.equal(rewritten.source, String.raw`[r"C:\",          ${F}("JSONPatch", {"op": "Object{"}, [])] // JSONPatch{}`);
    assert.deepEqual(rewritten.constructions, [{ type: 'JSONPatch', offset: 9, brace: 18, end: 33 }]);
  });

  it('leaves member selections followed by `{` alone: the grammar only constructs from a primary', () => {
    for (const source of ['f().x{a: 1}', 'a[0].b{}', '(a).b{}', '"s".x{}', 'true{}', 'x.y().z.w{a: 1}']) assertUnchanged(source);
  });

  it('leaves map literals untouched', () => {
    for (const source of ['{"a": {"b": [1, {c: 2}]}}', 'x in {"a": 1}', '{a: 1}', 'object.spec.map(x, {x: 1})']) assertUnchanged(source);
  });

  it('maps rewritten offsets back to the original text', () => {
    const source = 'JSONPatch{op: x}';
    const rewritten = rewriteConstructions(source);
    const x = rewritten.source.indexOf('x}');
    assert.equal(rewritten.toOriginal(x), source.indexOf('x}'));
    // The inserted quote before the key stands for the field name; the inserted call for the type name.
    assert.equal(rewritten.toOriginal(rewritten.source.indexOf('"op"')), source.indexOf('op'));
    assert.equal(rewritten.toOriginal(rewritten.source.indexOf(F)), 0);
    assert.equal(rewritten.toOriginal(rewritten.source.indexOf('{')), source.indexOf('{'));
    assert.equal(rewritten.isInserted(rewritten.source.indexOf(F)), true);
    assert.equal(rewritten.isInserted(x), false);
    assert.equal(rewritten.toOriginal(rewritten.source.length), source.length);
  });

  it('reports a malformed field list at the original offset and stops there', () => {
    assert.deepEqual(rewriteConstructions('Object{1: 2}').issue, {
      offset: 7,
      message: "Syntax error: mismatched input '1' expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}",
    });
    assert.deepEqual(rewriteConstructions('Object{a 1}').issue, { offset: 9, message: "Syntax error: mismatched input '1' expecting ':'" });
  });
});

describe('compileExpression: message construction, Kubernetes documentation examples', () => {
  it('JSONPatch: add a label (testdata/dev default-team-label)', () => {
    const expression =
      'has(object.metadata.labels)\n' +
      '? [JSONPatch{op: "add", path: "/metadata/labels/team", value: "unassigned"}]\n' +
      ': [JSONPatch{op: "add", path: "/metadata/labels", value: {"team": "unassigned"}}]';
    const program = compiled(expression, 'jsonPatch');
    assert.deepEqual(celValueToJson(program.evaluate({ object: { metadata: { labels: { app: 'x' } } } })), [
      { op: 'add', path: '/metadata/labels/team', value: 'unassigned' },
    ]);
    assert.deepEqual(celValueToJson(program.evaluate({ object: { metadata: {} } })), [
      { op: 'add', path: '/metadata/labels', value: { team: 'unassigned' } },
    ]);
  });

  it('ApplyConfiguration: a sidecar init container', () => {
    const expression = `Object{
  spec: Object.spec{
    initContainers: [
      Object.spec.initContainers{
        name: "mesh-proxy",
        image: "mesh/proxy:v1.0.0",
        args: ["proxy", "sidecar"],
        restartPolicy: "Always"
      }
    ]
  }
}`;
    const program = compiled(expression, 'applyConfiguration');
    assert.equal(program.outputType, 'Object');
    assert.deepEqual(
      program.constructions?.map((c) => c.type),
      ['Object', 'Object.spec', 'Object.spec.initContainers'],
    );
    const result = program.evaluate({ object: {} }) as { spec: { initContainers: unknown[] } };
    assert.deepEqual(celValueToJson(result), {
      spec: { initContainers: [{ name: 'mesh-proxy', image: 'mesh/proxy:v1.0.0', args: ['proxy', 'sidecar'], restartPolicy: 'Always' }] },
    });
    assert.equal(constructionTypeOf(result), 'Object');
    assert.equal(constructionTypeOf(result.spec), 'Object.spec');
    assert.equal(constructionTypeOf(result.spec.initContainers[0]), 'Object.spec.initContainers');
    assert.equal(Object.getPrototypeOf(result), Object.prototype, 'a plain object, as a map literal evaluates to');
  });

  it('JSONPatch: add an init container, the value built with an Object construction', () => {
    const expression = `[
  JSONPatch{
    op: "add", path: "/spec/initContainers/-",
    value: Object.spec.initContainers{
      name: "mesh-proxy",
      image: "mesh-proxy/v1.0.0",
      restartPolicy: "Always"
    }
  }
]`;
    const program = compiled(expression, 'jsonPatch');
    assert.equal(program.outputType, 'list(JSONPatch)');
    assert.deepEqual(celValueToJson(program.evaluate({ object: {} })), [
      { op: 'add', path: '/spec/initContainers/-', value: { name: 'mesh-proxy', image: 'mesh-proxy/v1.0.0', restartPolicy: 'Always' } },
    ]);
  });

  it('JSONPatch: jsonpatch.escapeKey in the path (and a trailing comma)', () => {
    const expression = `[
  JSONPatch{
    op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey("example.com/environment~x"),
    value: "test"
  },
]`;
    assert.deepEqual(evaluateJson(expression, {}, 'jsonPatch'), [
      { op: 'add', path: '/metadata/annotations/example.com~1environment~0x', value: 'test' },
    ]);
  });

  it('JSONPatch built per container with a comprehension', () => {
    const expression = 'object.spec.containers.map(c, JSONPatch{op: "add", path: "/metadata/labels/" + c.name, value: "true"})';
    const object = { spec: { containers: [{ name: 'a' }, { name: 'b' }] } };
    assert.deepEqual(evaluateJson(expression, { object }, 'jsonPatch'), [
      { op: 'add', path: '/metadata/labels/a', value: 'true' },
      { op: 'add', path: '/metadata/labels/b', value: 'true' },
    ]);
  });

  it('optional fields: optional.none() leaves the field out, optional.of(v) sets v', () => {
    const expression = 'Object{?spec: optional.none(), ?metadata: object.?metadata, ?kind: optional.of("Pod")}';
    assert.deepEqual(evaluateJson(expression, { object: {} }), { kind: 'Pod' });
    assert.deepEqual(evaluateJson(expression, { object: { metadata: { name: 'n' } } }), { metadata: { name: 'n' }, kind: 'Pod' });
  });

  it('an optional field given a plain value at run time is an evaluation error', () => {
    assert.throws(() => compiled('Object{?spec: object.spec}').evaluate({ object: { spec: 1 } }), {
      message: "cannot initialize optional entry 'spec' from non-optional value 1",
    });
  });

  it('fields of different types and selection on a construction', () => {
    assert.deepEqual(evaluateJson('Object{a: 1, b: "x", c: [true], d: null}'), { a: 1, b: 'x', c: [true], d: null });
    assert.equal(evaluateJson('JSONPatch{op: "add", path: "/x"}.path'), '/x');
  });

  it('refuses escaped field names, as Kubernetes leaves cel-go\'s identifier escapes off', () => {
    // upstream (tools/upstream-oracle compile): parser.go normalizeIdent without enableIdentEscapeSyntax
    assert.equal(
      failure('Object{`my-field`: 1}'),
      "compilation failed: ERROR: <input>:1:8: unsupported syntax: '`'\n | Object{`my-field`: 1}\n | .......^",
    );
  });

  it('records each construction and its offset in the expression', () => {
    assert.deepEqual(compiled(' [JSONPatch{op: "add", path: "/a", value: Object.metadata{}}]').constructions, [
      { type: 'JSONPatch', offset: 2 },
      { type: 'Object.metadata', offset: 42 },
    ]);
    assert.deepEqual(compiled('[1]').constructions, []);
  });
});

describe('compileExpression: errors in and around constructions point into the original text', () => {
  it('a syntax error inside a construction value', () => {
    assert.equal(
      failure('Object{spec: Object.spec{replicas: 1 +}}'),
      "compilation failed: ERROR: <input>:1:39: Syntax error: mismatched input '}' expecting " +
        "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n" +
        ' | Object{spec: Object.spec{replicas: 1 +}}\n' +
        ' | ......................................^',
    );
  });

  // The texts below are kube-apiserver 1.36.3's (tools/upstream-oracle compile, in a MutatingAdmissionPolicy's
  // applyConfiguration): ANTLR's error recovery over cel-go's grammar, and the visitor's `unsupported ident kind`
  // for the field it could not read.
  it('a malformed field list', () => {
    assert.equal(
      failure('Object{spec: Object.spec{replicas 1}}'),
      "compilation failed: ERROR: <input>:1:35: Syntax error: missing ':' at '1'\n" +
        ' | Object{spec: Object.spec{replicas 1}}\n' +
        ' | ..................................^',
    );
    assert.equal(
      failure('Object{?1: 2}'),
      "compilation failed: ERROR: <input>:1:8: unsupported ident kind\n | Object{?1: 2}\n | .......^\n" +
        "ERROR: <input>:1:9: Syntax error: mismatched input '1' expecting {IDENTIFIER, ESC_IDENTIFIER}\n" +
        ' | Object{?1: 2}\n' +
        ' | ........^',
    );
    assert.equal(
      failure('Object{a: 1,, b: 2}'),
      "compilation failed: ERROR: <input>:1:13: Syntax error: mismatched input ',' expecting '}'\n" +
        ' | Object{a: 1,, b: 2}\n' +
        ' | ............^',
    );
    assert.equal(
      failure('Object{a: 1 b: 2}'),
      "compilation failed: ERROR: <input>:1:13: Syntax error: mismatched input 'b' expecting {'}', ','}\n" +
        ' | Object{a: 1 b: 2}\n' +
        ' | ............^',
    );
    assert.equal(
      failure('Object{a: 1'),
      "compilation failed: ERROR: <input>:1:12: Syntax error: mismatched input '<EOF>' expecting {'}', ','}\n | Object{a: 1\n | ...........^",
    );
  });

  it('a missing comma before a construction points at its type name', () => {
    assert.equal(
      failure('[JSONPatch{op: "a"} JSONPatch{op: "b"}]'),
      "compilation failed: ERROR: <input>:1:21: Syntax error: mismatched input 'JSONPatch' expecting {']', ','}\n" +
        ' | [JSONPatch{op: "a"} JSONPatch{op: "b"}]\n' +
        ' | ....................^',
    );
  });

  it('an undeclared reference inside a multi-line construction', () => {
    const expression = 'Object{\n  metadata: Object.metadata{labels: {"team": "a"}},\n  spec: Object.spec{replicas: objekt.spec.replicas}\n}';
    assert.equal(
      failure(expression, 'applyConfiguration'),
      "compilation failed: ERROR: <input>:3:31: undeclared reference to 'objekt' (in container '')\n" +
        ' |   spec: Object.spec{replicas: objekt.spec.replicas}\n' +
        ' | ..............................^',
    );
  });

  it('an undeclared reference after several constructions on one line, and after wide characters', () => {
    assert.equal(
      failure('[JSONPatch{op: "add", path: "/a", value: 1}, JSONPatch{op: "add", path: "/b", value: nope}]', 'jsonPatch'),
      "compilation failed: ERROR: <input>:1:86: undeclared reference to 'nope' (in container '')\n" +
        ' | [JSONPatch{op: "add", path: "/a", value: 1}, JSONPatch{op: "add", path: "/b", value: nope}]\n' +
        ' | .....................................................................................^',
    );
    assert.match(failure('"é😀" + JSONPatch{op: nope}.op'), /^compilation failed: ERROR: <input>:1:22: undeclared reference to 'nope'/);
  });

  it('a type error inside a construction value', () => {
    assert.equal(
      failure('Object{a: 1 + "x"}'),
      "compilation failed: ERROR: <input>:1:13: found no matching overload for '_+_' applied to '(int, string)'\n" +
        ' | Object{a: 1 + "x"}\n' +
        ' | ............^',
    );
  });

  it('JSONPatch op, path and from must be strings (at the field\'s colon, as cel-go)', () => {
    assert.equal(
      failure('[JSONPatch{op: 1}]', 'jsonPatch'),
      "compilation failed: ERROR: <input>:1:14: expected type of field 'op' is 'string' but provided type is 'int'\n" +
        ' | [JSONPatch{op: 1}]\n' +
        ' | .............^',
    );
    // dyn passes; value is dyn upstream.
    compiled('[JSONPatch{op: object.op, path: params.p, from: "/a", value: 1}]', 'jsonPatch');
  });

  it('an optional field needs an optional value', () => {
    assert.equal(
      failure('Object{?spec: 1}'),
      "compilation failed: ERROR: <input>:1:15: expected type 'optional_type(int)' but found 'int'\n" +
        ' | Object{?spec: 1}\n' +
        ' | ..............^',
    );
  });

  it('a list literal mixing construction types, or a construction and a map', () => {
    assert.equal(
      failure('[JSONPatch{}, Object{}]'),
      "compilation failed: ERROR: <input>:1:21: expected type 'JSONPatch' but found 'Object'\n" +
        ' | [JSONPatch{}, Object{}]\n' +
        ' | ....................^',
    );
    assert.match(failure('[JSONPatch{op: "add"}, {"op": "add"}]'), /expected type 'JSONPatch' but found 'map\(string, string\)'/);
    // The engine sees a ternary of constructions as a map(string, dyn): not reported.
    compiled('[JSONPatch{}, true ? JSONPatch{} : JSONPatch{}]');
  });

  it('types other than JSONPatch and Object(.…) are undeclared, and so are all outside the mutating environment', () => {
    assert.equal(
      failure('Foo.Bar{a: 1}'),
      "compilation failed: ERROR: <input>:1:8: undeclared reference to 'Foo.Bar' (in container '')\n" +
        ' | Foo.Bar{a: 1}\n' +
        ' | .......^',
    );
    assert.match(failure('Object{}', 'any', 'validatingPolicy'), /^compilation failed: ERROR: <input>:1:7: undeclared reference to 'Object' \(in container ''\)/);
    assert.match(failure('[JSONPatch{}]', 'any', 'webhookMatchCondition'), /undeclared reference to 'JSONPatch'/);
    assert.match(failure('google.protobuf.Duration{seconds: 1}'), /construction of message type 'google\.protobuf\.Duration' is not supported by static-admissiond/);
  });

  it('the internal construction function cannot be called by name', () => {
    assert.match(failure(`${F}("JSONPatch", {}, [])`), new RegExp(`undeclared reference to '${F}'`));
  });

  it('jsonpatch.escapeKey exists for mutations only', () => {
    assert.match(failure('jsonpatch.escapeKey("a/b")', 'any', 'validatingPolicy'), /undeclared reference to 'jsonpatch'/);
    assert.equal(
      failure('jsonpatch.escapeKey(1)'),
      "compilation failed: ERROR: <input>:1:20: found no matching overload for 'jsonpatch.escapeKey' applied to '(int)'\n" +
        ' | jsonpatch.escapeKey(1)\n' +
        ' | ...................^',
    );
  });

  it('a member selection followed by `{` stays a syntax error', () => {
    assert.match(failure('f().x{a: 1}'), /^compilation failed: ERROR: <input>:1:6: Syntax error: /);
  });
});

describe('compileExpression: result types of mutations', () => {
  it('jsonPatch: exactly list(JSONPatch) (compile.go IsExactType)', () => {
    for (const expression of [
      '[JSONPatch{op: "remove", path: "/a"}]',
      'object.spec.containers.map(c, JSONPatch{op: "remove", path: "/a"})',
      'true ? [JSONPatch{op: "remove", path: "/a"}] : []',
    ]) {
      compiled(expression, 'jsonPatch');
    }
    assert.equal(failure('[]', 'jsonPatch'), 'must evaluate to list(JSONPatch) but got list(dyn)');
    assert.equal(failure('object.patches', 'jsonPatch'), 'must evaluate to list(JSONPatch) but got dyn');
    assert.equal(failure('[{"op": "remove", "path": "/a"}]', 'jsonPatch'), 'must evaluate to list(JSONPatch) but got list(map(string, string))');
  });

  it('jsonPatch: anything else is rejected with cel-go\'s message', () => {
    assert.equal(failure('"x"', 'jsonPatch'), 'must evaluate to list(JSONPatch) but got string');
    assert.equal(failure('1', 'jsonPatch'), 'must evaluate to list(JSONPatch) but got int');
    assert.equal(failure('[1]', 'jsonPatch'), 'must evaluate to list(JSONPatch) but got list(int)');
    assert.equal(failure('JSONPatch{op: "remove", path: "/a"}', 'jsonPatch'), 'must evaluate to list(JSONPatch) but got JSONPatch');
    assert.equal(failure('[Object{}]', 'jsonPatch'), 'must evaluate to list(JSONPatch) but got list(Object)');
    assert.equal(failure('{"op": "add"}', 'jsonPatch'), 'must evaluate to list(JSONPatch) but got map(string, string)');
  });

  it('applyConfiguration: exactly Object (compile.go IsExactType)', () => {
    for (const expression of ['Object{}', 'Object{spec: Object.spec{replicas: 1}}', 'true ? Object{} : Object{}']) {
      compiled(expression, 'applyConfiguration');
    }
    assert.equal(failure('{"spec": {"replicas": 1}}', 'applyConfiguration'), 'must evaluate to Object but got map(string, map(string, int))');
    assert.equal(failure('object.spec', 'applyConfiguration'), 'must evaluate to Object but got dyn');
  });

  it('applyConfiguration: anything else is rejected with cel-go\'s message', () => {
    assert.equal(failure('"x"', 'applyConfiguration'), 'must evaluate to Object but got string');
    assert.equal(failure('1', 'applyConfiguration'), 'must evaluate to Object but got int');
    assert.equal(failure('null', 'applyConfiguration'), 'must evaluate to Object but got null_type');
    assert.equal(failure('[Object{}]', 'applyConfiguration'), 'must evaluate to Object but got list(Object)');
    assert.equal(failure('Object.spec{replicas: 1}', 'applyConfiguration'), 'must evaluate to Object but got Object.spec');
    assert.equal(failure('JSONPatch{}', 'applyConfiguration'), 'must evaluate to Object but got JSONPatch');
  });
});

describe('a mutation\'s type names as values, and JSONPatch fields it does not know', () => {
  // upstream (tools/upstream-oracle compile, found by the generator's damagedExpression mistake): apiserver
  // pkg/cel/mutation jsonpatch.go JSONPatchType.Field finds any field name, with a nil type ('') only dyn is
  // assignable to; typeresolver.go resolves every `Object…` name, so `Object.spec.te` is an identifier of type
  // type(Object.spec.te)
  it('an unknown JSONPatch field has the type \'\'', () => {
    assert.equal(
      failure("[JSONPatch{op: 'add', ptah: '/a', value: 1}]", 'jsonPatch'),
      "compilation failed: ERROR: <input>:1:27: expected type of field 'ptah' is '' but provided type is 'string'\n | [JSONPatch{op: 'add', ptah: '/a', value: 1}]\n | ..........................^",
    );
    assert.equal(
      failure("[JSONPatch{op: 'add', path: '/a', x: null}]", 'jsonPatch'),
      "compilation failed: ERROR: <input>:1:36: expected type of field 'x' is '' but provided type is 'null'\n | [JSONPatch{op: 'add', path: '/a', x: null}]\n | ...................................^",
    );
  });

  it('a type name broken by an operator is a type value', () => {
    assert.equal(
      failure('Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.te+mplate.spec{containers: []}}}}', 'applyConfiguration'),
      "compilation failed: ERROR: <input>:1:77: found no matching overload for '_+_' applied to '(type(Object.spec.te), !error!)'\n" +
        ' | Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.te+mplate.spec{containers: []}}}}\n' +
        ' | ............................................................................^\n' +
        "ERROR: <input>:1:89: undeclared reference to 'mplate.spec' (in container '')\n" +
        ' | Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.te+mplate.spec{containers: []}}}}\n' +
        ' | ........................................................................................^',
    );
    assert.equal(evaluateJson('Object.spec.x == Object.spec.x && type(JSONPatch) == type'), true);
  });
});
