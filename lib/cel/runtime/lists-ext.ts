// cel-go ext.Lists at version 3 (ext/lists.go), which Kubernetes' base environment adds from 1.34: slice,
// flatten, sort, lists.range, reverse, distinct, and @sortByAssociatedKeys (what the sortBy macro expands to).

import { compareWith } from './compare.js';
import { arity, celEquals, defineGlobal, defineMember, intArg, listArg } from './functions.js';
import { celError, hasTrait, Trait, typeName } from './values.js';

const isList = (v: unknown): boolean => Array.isArray(v);

defineMember(
  'slice',
  (args) => {
    arity('slice', args, 3);
    const list = listArg('slice', args, 0);
    const start = intArg('slice', args, 1);
    const end = intArg('slice', args, 2);
    if (start < 0n || end < 0n) throw celError(`cannot slice(${start}, ${end}), negative indexes not supported`);
    if (start > end) throw celError(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
    if (BigInt(list.length) < end) throw celError(`cannot slice(${start}, ${end}), list is length ${list.length}`);
    return list.slice(Number(start), Number(end));
  },
  isList,
);

function flatten(list: readonly unknown[], depth: bigint): unknown[] {
  if (depth < 0n) throw celError('level must be non-negative');
  const out: unknown[] = [];
  for (const v of list) {
    if (!Array.isArray(v) || depth === 0n) out.push(v);
    else out.push(...flatten(v, depth - 1n));
  }
  return out;
}

defineMember(
  'flatten',
  (args) => {
    arity('flatten', args, 1, 2);
    return flatten(listArg('flatten', args, 0), args.length === 2 ? intArg('flatten', args, 1) : 1n);
  },
  isList,
);

/** ext/lists.go sortListByAssociatedKeys: the list ordered by its keys, which must be comparable and of one type. */
function sortByKeys(list: readonly unknown[], keys: readonly unknown[]): unknown[] {
  if (list.length !== keys.length) {
    throw celError(
      `@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got ${list.length} and ${keys.length} elements respectively`,
    );
  }
  if (list.length === 0) return [...list];
  const first = keys[0];
  if (!hasTrait(first, Trait.Comparer)) throw celError('list elements must be comparable');
  const type = typeName(first);
  if (keys.some((k) => typeName(k) !== type)) throw celError('list elements must have the same type');
  const order = list.map((_, i) => i);
  order.sort((a, b) => {
    const c = compareWith(keys[a], keys[b]);
    return typeof c === 'number' ? c : 0;
  });
  return order.map((i) => list[i]);
}

defineMember(
  'sort',
  (args) => {
    arity('sort', args, 1);
    const list = listArg('sort', args, 0);
    return sortByKeys(list, list);
  },
  isList,
);

defineMember(
  '@sortByAssociatedKeys',
  (args) => {
    arity('@sortByAssociatedKeys', args, 2);
    return sortByKeys(listArg('@sortByAssociatedKeys', args, 0), listArg('@sortByAssociatedKeys', args, 1));
  },
  isList,
);

defineGlobal('lists.range', (args) => {
  arity('lists.range', args, 1);
  const n = intArg('lists.range', args, 0);
  const out: bigint[] = [];
  for (let i = 0n; i < n; i++) out.push(i);
  return out;
});

defineMember(
  'reverse',
  (args) => {
    arity('reverse', args, 1);
    return [...listArg('reverse', args, 0)].reverse();
  },
  isList,
);

defineMember(
  'distinct',
  (args) => {
    arity('distinct', args, 1);
    const unique: unknown[] = [];
    for (const v of listArg('distinct', args, 0)) if (!unique.some((u) => celEquals(v, u))) unique.push(v);
    return unique;
  },
  isList,
);
