// lib/cel's evaluator: the runtime value model, the function table with every library registered, and the
// planner that turns an engine AST into closures.

import './k8s/authz.js';
import './k8s/format.js';
import './k8s/ip.js';
import './k8s/jsonpatch.js';
import './k8s/lists.js';
import './k8s/quantity.js';
import './k8s/semver.js';
import './k8s/url.js';
import './lists-ext.js';

export { plan, OPTIONAL_ENTRY_FUNCTION, ProgramInstantiationError } from './planner.js';
export { setDefaultGeneration } from './tiering.js';
export type { Generation } from './tiering.js';
export type { Eval, Plan, PlanOptions } from './planner.js';
export { EvalState, PER_CALL_COST_LIMIT, COST_LIMIT_EXCEEDED, OPERATION_INTERRUPTED } from './state.js';
export type { EvalOptions } from './state.js';
export * from './values.js';
export { celEquals, compare } from './compare.js';
export { toStringValue } from './functions.js';
export { formatDuration, formatTimestamp, parseDuration, parseTimestamp, timestampFromSeconds } from './time.js';
export { compileRegex, clearRegexCache, regexCacheSize, REGEX_CACHE_LIMIT } from './regex.js';
