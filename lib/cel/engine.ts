// The engine environments: builds (once, lazily) an @marcbachmann/cel-js Environment per compile environment,
// with every library's declarations (library.ts), and gives the rest of lib/cel a typed view of the engine's AST
// and errors, which its .d.ts leaves loose. Options mirror Kubernetes' base CEL environment where the engine has
// an equivalent. The engine only parses; lib/cel/checker type-checks and lib/cel/runtime evaluates
// (docs/adr/0001-cel-engine.md).

import { Environment, ParseError, TypeError as CelTypeError } from '@marcbachmann/cel-js';
import { AUTHORIZER_VARIABLES, DECLARATIONS } from './declarations.js';
import { declareLibraries, FULL_PROFILE, KUBERNETES_PROFILE } from './library.js';
import { CONSTRUCT_FUNCTION, CONSTRUCT_SIGNATURE } from './objects.js';
import { OPTIONAL_ENTRY_FUNCTION } from './runtime/planner.js';
import type { CelEnvironment } from './types.js';

/** The engine's AST node, as far as lib/cel reads it. */
export interface EngineNode {
  readonly op: string;
  readonly args: unknown;
  /** UTF-16 offset the engine anchors the node at (the field name for `.`, the start otherwise) */
  readonly pos: number;
  readonly range: { readonly start: number; readonly end: number };
}

/** A parse, type-check or evaluation error thrown or returned by the engine. */
export interface EngineError {
  readonly name: string;
  readonly code?: string;
  /** the message without the engine's source highlight */
  readonly summary?: string;
  readonly message: string;
  readonly node?: EngineNode;
  readonly range?: { readonly start: number; readonly end: number };
}

export interface EngineProgram {
  readonly ast: EngineNode;
  (context: Record<string, unknown>): unknown;
}

export function isEngineNode(value: unknown): value is EngineNode {
  return typeof value === 'object' && value !== null && typeof (value as { op?: unknown }).op === 'string';
}

/** The engine's own parse or type-check error; undefined for anything else (an engine bug surfacing). */
export function asEngineError(error: unknown): EngineError | undefined {
  return error instanceof ParseError || error instanceof CelTypeError ? (error as ParseError & EngineError) : undefined;
}

interface Engine {
  readonly env: Environment;
  /** names of every function and macro, global or member, that Kubernetes CEL also has */
  readonly functions: ReadonlySet<string>;
  /** identifiers the engine always declares (type names such as `int`, and namespaces) */
  readonly builtinIdentifiers: ReadonlySet<string>;
}

// Member functions the engine adds that cel-go and Kubernetes do not have (`bytes.json()` and friends): an
// expression using them would not load on kube-apiserver, so they are reported as undeclared here too.
const NOT_UPSTREAM_FUNCTIONS = new Set(['json', 'hex', 'base64', 'at']);

// The engine declares these namespaces as variables; CEL only knows them as qualifiers of functions
// (`cel.bind`, `optional.of`, `jsonpatch.escapeKey`), which the reference check handles.
const NAMESPACES = new Set(['cel', 'optional', 'jsonpatch', 'strings', 'sets', 'format', 'ip']);

class JsonPatchNamespace {}


function notEvaluatedHere(): never {
  throw new Error('lib/cel evaluates with its own planner, not the engine');
}

/**
 * None of the engine's own parser limits: cel-go has no cap on list elements, map entries, call arguments or AST
 * nodes, and its size and depth limits (syntax.ts, checked around the parse) differ from the engine's. Within them
 * the engine's recursion stays shallow.
 */
const PARSER_LIMITS = {
  maxAstNodes: Infinity,
  maxDepth: Infinity,
  maxListElements: Infinity,
  maxMapEntries: Infinity,
  maxCallArguments: Infinity,
};

const engines = new Map<CelEnvironment, Engine>();

function createEngine(kind: CelEnvironment): Engine {
  const env = new Environment({
    // Kubernetes enables optionals (`?.`, `orValue`) for new expressions.
    enableOptionalTypes: true,
    // cel-go with HomogeneousAggregateLiterals still accepts `[object.x, 'a']` (dyn joins with anything); the
    // engine's homogeneous mode rejects it, so the literal check in literals.ts does this job instead.
    homogeneousAggregateLiterals: false,
    unlistedVariablesAreDyn: false,
    limits: PARSER_LIMITS,
  });
  declareLibraries(env, KUBERNETES_PROFILE);
  for (const name of DECLARATIONS[kind].variables) env.registerVariable(name, AUTHORIZER_VARIABLES[name] ?? 'dyn');
  if (kind === 'mutatingPolicy') {
    // Upstream declares the JSONPatch library for mutation expressions (plugin/cel/compile.go hasPatchTypes).
    env.registerType('JsonPatchNamespace', JsonPatchNamespace);
    env.registerConstant('jsonpatch', 'JsonPatchNamespace', new JsonPatchNamespace());
    env.registerFunction('JsonPatchNamespace.escapeKey(string): string', notEvaluatedHere);
  }
  // Message construction, as rewritten by rewrite.ts. Left out of `functions`, so that it stays undeclared for
  // expressions that call it by name. (Functions must be registered before getDefinitions(): registering after it
  // would add them to the engine's shared global registry, cel-js 8.0.0.)
  env.registerFunction(CONSTRUCT_SIGNATURE, notEvaluatedHere);
  const definitions = env.getDefinitions();
  const functions = new Set<string>();
  for (const f of definitions.functions) if (!NOT_UPSTREAM_FUNCTIONS.has(f.name) && f.name !== CONSTRUCT_FUNCTION && f.name !== OPTIONAL_ENTRY_FUNCTION) functions.add(f.name);
  const builtinIdentifiers = new Set<string>();
  for (const v of definitions.variables) if (!NAMESPACES.has(v.name)) builtinIdentifiers.add(v.name);
  return { env, functions, builtinIdentifiers };
}

export function engineFor(kind: CelEnvironment): Engine {
  let engine = engines.get(kind);
  if (engine === undefined) {
    engine = createEngine(kind);
    engines.set(kind, engine);
  }
  return engine;
}

/** Parses with the engine; throws the engine's ParseError on a syntax error. */
export function parseProgram(kind: CelEnvironment, expression: string): EngineProgram {
  return engineFor(kind).env.parse(expression) as unknown as EngineProgram;
}

const standaloneEngines = new Map<string, Environment>();

/** An engine environment declaring the given variables (engine type syntax), for tools and tests. */
export function standaloneEnvironment(variables: Readonly<Record<string, string>>): Environment {
  const key = JSON.stringify(Object.entries(variables).sort());
  let env = standaloneEngines.get(key);
  if (env === undefined) {
    env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false, unlistedVariablesAreDyn: false, limits: PARSER_LIMITS });
    declareLibraries(env, FULL_PROFILE);
    for (const [name, type] of Object.entries(variables)) env.registerVariable(name, type);
    standaloneEngines.set(key, env);
  }
  return env;
}
