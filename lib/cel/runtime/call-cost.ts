// What a function call costs, as the planner charges it (an approximation of cel-go's runtime cost tracking).
import { sizeOf } from './functions.js';

/** Functions whose cost grows with the size of their arguments (cel-go charges ~0.1 per character/element). */
export const LINEAR_COST = new Set([
  'contains',
  'startsWith',
  'endsWith',
  'matches',
  'find',
  'findAll',
  'split',
  'replace',
  'join',
  'format',
  'indexOf',
  'lastIndexOf',
  'lowerAscii',
  'upperAscii',
  'trim',
  'substring',
  'charAt',
  'reverse',
  'strings.quote',
  'string',
  'bytes',
  'isSorted',
  'slice',
  'flatten',
  'sort',
  '@sortByAssociatedKeys',
  'distinct',
  'sum',
  'min',
  'max',
  'sets.contains',
  'sets.equivalent',
  'sets.intersects',
  'url',
  'isURL',
  'quantity',
  'isQuantity',
  'ip',
  'isIP',
  'cidr',
  'isCIDR',
  'semver',
  'isSemver',
  'validate',
]);

export function argumentCost(args: readonly unknown[]): number {
  let n = 0;
  for (const a of args) n += sizeOf(a);
  return 1 + Math.ceil(n * 0.1);
}
