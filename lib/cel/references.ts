// The declaration half of cel-go's checker, run over the engine's AST: every identifier must be declared in
// the environment or bound by an enclosing comprehension (`exists(c, …)`, `cel.bind(x, …)`), and every function
// must exist, the engine's qualified-name forms (`optional.of`, `cel.bind`) understood. compile.ts reports these
// together with the checker's type errors, as cel-go reports all of them.

import { checkerFunctionNames } from './checker/admission.js';
import { AUTHORIZER_VARIABLES, DECLARATIONS } from './declarations.js';
import { engineFor, isEngineNode } from './engine.js';
import type { EngineNode } from './engine.js';
import type { Issue } from './issues.js';
import { isDeclaredType } from './construction.js';
import { rootName } from './names.js';
import { CONSTRUCT_FUNCTION } from './objects.js';
import { OPTIONAL_ENTRY_FUNCTION } from './runtime/planner.js';
import { FORMAT_FUNCTIONS, FORMAT_ONLY_FUNCTIONS } from './runtime/k8s/format-names.js';
import { anchorOf } from './tokens.js';
import type { CelEnvironment } from './types.js';

/** Variables bound by enclosing comprehensions, innermost first. */
interface Scope {
  readonly name: string;
  readonly parent: Scope | undefined;
}

const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'existsOne', 'map', 'filter', 'optMap', 'optFlatMap', 'sortBy']);
/** Two-variable comprehensions (cel-go ext.TwoVarComprehensions, in Kubernetes since 1.33): `name(k, v, …)`. */
const TWO_VARIABLE_COMPREHENSIONS: ReadonlyMap<string, readonly number[]> = new Map([
  ['all', [3]],
  ['exists', [3]],
  ['exists_one', [3]],
  ['existsOne', [3]],
  ['transformList', [3, 4]],
  ['transformMap', [3, 4]],
  ['transformMapEntry', [3, 4]],
]);

/** Functions that exist only under a namespace qualifier. */
const NAMESPACED: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['cel', new Set(['bind'])],
  ['optional', new Set(['of', 'none', 'ofNonZeroValue'])],
  ['jsonpatch', new Set(['escapeKey'])],
  ['strings', new Set(['quote'])],
  ['sets', new Set(['contains', 'equivalent', 'intersects'])],
  ['format', new Set(FORMAT_FUNCTIONS)],
  ['ip', new Set(['isCanonical'])],
  ['lists', new Set(['range'])],
]);
const NAMESPACED_ONLY = new Set(['bind', 'of', 'none', 'ofNonZeroValue', 'escapeKey', 'quote', 'equivalent', 'intersects', 'isCanonical', 'range', ...FORMAT_ONLY_FUNCTIONS]);

export const undeclaredReference = (name: string): string => `undeclared reference to '${name}' (in container '')`;

function isBound(scope: Scope | undefined, name: string): boolean {
  for (let s = scope; s !== undefined; s = s.parent) if (s.name === name) return true;
  return false;
}

const functionsByKind = new Map<CelEnvironment, ReadonlySet<string>>();

/** Function and macro names an environment has: the engine's, and the checker's (ext.Lists, sortBy). */
function functionsOf(kind: CelEnvironment): ReadonlySet<string> {
  let names = functionsByKind.get(kind);
  if (names === undefined) {
    names = new Set([...engineFor(kind).functions, ...checkerFunctionNames(kind), 'sortBy']);
    functionsByKind.set(kind, names);
  }
  return names;
}

const declaredByKind = new Map<CelEnvironment, ReadonlySet<string>>();

/** Identifiers an environment declares: its variables and the engine's built-in type names. */
function declaredIdentifiers(kind: CelEnvironment): ReadonlySet<string> {
  let declared = declaredByKind.get(kind);
  if (declared === undefined) {
    // `timestamp` and `duration` are type identifiers to cel-go's checker (checker/stdlib.ts TYPE_IDENTIFIERS)
    declared = new Set([...engineFor(kind).builtinIdentifiers, ...DECLARATIONS[kind].variables, 'timestamp', 'duration']);
    declaredByKind.set(kind, declared);
  }
  return declared;
}

class ReferenceChecker {
  readonly issues: Issue[] = [];
  /** whether `authorizer` or `authorizer.requestResource` is read */
  usesAuthorizer = false;
  /** the declared variables read (object, oldObject, request, namespaceObject, variables, …) */
  readonly variables = new Set<string>();
  private readonly declared: ReadonlySet<string>;
  private readonly functions: ReadonlySet<string>;

  constructor(
    private readonly source: string,
    private readonly kind: CelEnvironment,
    private readonly isInserted: (offset: number) => boolean,
    private readonly excluded: ReadonlySet<string>,
  ) {
    this.declared = declaredIdentifiers(kind);
    this.functions = functionsOf(kind);
  }

  private report(offset: number, message: string): void {
    this.issues.push({ offset, message });
  }

  private checkFunction(written: string, parenOffset: number): void {
    // `.fn(…)` resolves as `fn`; `has` is a macro, never a function
    const name = rootName(written);
    if (!this.functions.has(name) || NAMESPACED_ONLY.has(name) || (name !== written && name === 'has')) this.report(parenOffset, undeclaredReference(written));
  }

  visit(node: EngineNode, scope: Scope | undefined): void {
    switch (node.op) {
      case 'value':
        return;
      case 'id':
        this.visitIdent(node, node.args as string, scope);
        return;
      case '.':
      case '.?':
        this.visit((node.args as [EngineNode, string])[0], scope);
        return;
      case 'call': {
        const [name, args] = node.args as [string, EngineNode[]];
        // A message construction rewritten by rewrite.ts; the same name written by the user stays undeclared.
        if ((name === CONSTRUCT_FUNCTION || name === OPTIONAL_ENTRY_FUNCTION) && this.isInserted(node.pos)) {
          for (const a of args) this.visit(a, scope);
          return;
        }
        this.checkFunction(name, anchorOf(this.source, node));
        for (const a of args) this.visit(a, scope);
        return;
      }
      case 'rcall':
        this.visitMemberCall(node, scope);
        return;
      case 'map':
        for (const [key, value] of node.args as [EngineNode, EngineNode][]) {
          this.visit(key, scope);
          this.visit(value, scope);
        }
        return;
      default:
        // Lists and operators: the operand is a node or a list of nodes.
        if (isEngineNode(node.args)) this.visit(node.args, scope);
        else if (Array.isArray(node.args)) for (const child of node.args as EngineNode[]) this.visit(child, scope);
    }
  }

  private visitIdent(node: EngineNode, written: string, scope: Scope | undefined): void {
    // `.name` resolves as `name` (cel-go's checker finds comprehension variables for it too), reported as written
    const name = rootName(written);
    if (isBound(scope, name)) return;
    // a mutation's `Object` and `JSONPatch` are type names the checker resolves (`Object.spec` with them)
    if (isDeclaredType(this.kind, name)) return;
    if (!this.declared.has(name) || this.excluded.has(name)) {
      this.report(node.pos, undeclaredReference(written));
      return;
    }
    if (Object.hasOwn(AUTHORIZER_VARIABLES, name)) this.usesAuthorizer = true;
    this.variables.add(name);
  }

  private visitMemberCall(node: EngineNode, scope: Scope | undefined): void {
    const [name, target, args] = node.args as [string, EngineNode, EngineNode[]];
    // `cel.bind(x, init, body)` and `optional.of(v)`: a qualified function name, not a member call.
    if (target.op === 'id' && !isBound(scope, target.args as string)) {
      const qualified = NAMESPACED.get(target.args as string);
      // Only where the environment has the function (`jsonpatch.escapeKey` is for mutations).
      if (qualified?.has(name) && this.functions.has(name)) {
        const [bound, init, body] = args;
        if (name === 'bind' && bound?.op === 'id' && init !== undefined && body !== undefined) {
          this.visit(init, scope);
          this.visit(body, { name: bound.args as string, parent: scope });
        } else {
          for (const a of args) this.visit(a, scope);
        }
        return;
      }
    }
    this.visit(target, scope);
    const [iterVar, ...rest] = args;
    const [, secondVar, ...afterVars] = args;
    if (TWO_VARIABLE_COMPREHENSIONS.get(name)?.includes(args.length) && iterVar?.op === 'id' && secondVar?.op === 'id') {
      const inner = { name: secondVar.args as string, parent: { name: iterVar.args as string, parent: scope } };
      for (const a of afterVars) this.visit(a, inner);
      return;
    }
    if (COMPREHENSIONS.has(name) && (args.length === 2 || args.length === 3) && iterVar?.op === 'id') {
      // Macros the engine lacks (`existsOne`) are reported by name; their variable is still bound.
      this.checkFunction(name, anchorOf(this.source, node));
      const inner = { name: iterVar.args as string, parent: scope };
      for (const a of rest) this.visit(a, inner);
      return;
    }
    this.checkFunction(name, anchorOf(this.source, node));
    for (const a of args) this.visit(a, scope);
  }
}

export interface ReferenceCheck {
  readonly issues: readonly Issue[];
  readonly usesAuthorizer: boolean;
  readonly variables: ReadonlySet<string>;
}

const NOTHING_INSERTED = (): boolean => false;
const NOTHING_EXCLUDED: ReadonlySet<string> = new Set();

/**
 * Every undeclared identifier and unknown function in the expression. `isInserted` tells
 * which offsets of `source` were inserted by rewrite.ts (where construction calls are allowed); `excluded` names
 * root variables this compile leaves undeclared (`params` without a paramKind, `variables` in matchConditions).
 */
export function checkReferences(
  root: EngineNode,
  source: string,
  kind: CelEnvironment,
  isInserted: (offset: number) => boolean = NOTHING_INSERTED,
  excluded: ReadonlySet<string> = NOTHING_EXCLUDED,
): ReferenceCheck {
  const checker = new ReferenceChecker(source, kind, isInserted, excluded);
  checker.visit(root, undefined);
  return checker;
}
