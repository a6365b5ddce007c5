// Kubernetes library.Lists (isSorted, sum, min, max, indexOf, lastIndexOf on lists) and cel-go ext.Sets
// (sets.contains, sets.equivalent, sets.intersects), with CEL equality and ordering.

import { celEquals, compareWith } from '../compare.js';
import { arity, defineGlobal, defineMember, listArg } from '../functions.js';
import { add } from '../numbers.js';
import { Trait, celError, hasTrait, noSuchOverloadError } from '../values.js';

const isList = (v: unknown): boolean => Array.isArray(v);

/**
 * An element's ordering against the next as library/lists.go reads it: an element without a Compare method is the
 * bare `no such overload`, and an error from Compare (NaN, different kinds) is not a result, so it decides nothing.
 */
function order(a: unknown, b: unknown): number | undefined {
  if (!hasTrait(b, Trait.Comparer) || !hasTrait(a, Trait.Comparer)) throw noSuchOverloadError();
  const c = compareWith(a, b);
  return typeof c === 'number' ? c : undefined;
}

defineMember(
  'isSorted',
  (args) => {
    arity('isSorted', args, 1);
    const list = listArg('isSorted', args, 0);
    if (list.length === 1 && !hasTrait(list[0], Trait.Comparer)) throw noSuchOverloadError();
    for (let i = 1; i < list.length; i++) if (order(list[i - 1], list[i]) === 1) return false;
    return true;
  },
  isList,
);

defineMember(
  'sum',
  (args) => {
    arity('sum', args, 1);
    const list = listArg('sum', args, 0);
    if (list.length === 0) return 0n;
    let total = list[0];
    for (let i = 1; i < list.length; i++) total = add(total, list[i]);
    return total;
  },
  isList,
);

function extreme(name: 'min' | 'max'): void {
  defineMember(
    name,
    (args) => {
      arity(name, args, 1);
      const list = listArg(name, args, 0);
      if (list.length === 0) throw celError(`${name} called on empty list`);
      let best = list[0];
      if (!hasTrait(best, Trait.Comparer)) throw noSuchOverloadError();
      for (let i = 1; i < list.length; i++) {
        const c = order(best, list[i]);
        if (c === (name === 'min' ? 1 : -1)) best = list[i];
      }
      return best;
    },
    isList,
  );
}
extreme('min');
extreme('max');

defineMember(
  'indexOf',
  (args) => {
    arity('indexOf', args, 2);
    const list = listArg('indexOf', args, 0);
    for (let i = 0; i < list.length; i++) if (celEquals(list[i], args[1])) return BigInt(i);
    return -1n;
  },
  isList,
);

defineMember(
  'lastIndexOf',
  (args) => {
    arity('lastIndexOf', args, 2);
    const list = listArg('lastIndexOf', args, 0);
    for (let i = list.length - 1; i >= 0; i--) if (celEquals(list[i], args[1])) return BigInt(i);
    return -1n;
  },
  isList,
);

function containsAll(list: readonly unknown[], sub: readonly unknown[]): boolean {
  return sub.every((e) => list.some((x) => celEquals(x, e)));
}

defineGlobal('sets.contains', (args) => {
  arity('sets.contains', args, 2);
  return containsAll(listArg('sets.contains', args, 0), listArg('sets.contains', args, 1));
});

defineGlobal('sets.equivalent', (args) => {
  arity('sets.equivalent', args, 2);
  const a = listArg('sets.equivalent', args, 0);
  const b = listArg('sets.equivalent', args, 1);
  return containsAll(a, b) && containsAll(b, a);
});

defineGlobal('sets.intersects', (args) => {
  arity('sets.intersects', args, 2);
  const a = listArg('sets.intersects', args, 0);
  const b = listArg('sets.intersects', args, 1);
  return a.some((x) => b.some((y) => celEquals(x, y)));
});
