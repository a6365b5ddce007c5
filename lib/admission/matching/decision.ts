// What a matching predicate answers. Shared by the rule, selector, policy and webhook predicates.
import type { GroupVersionKind, GroupVersionResource } from '../../api/admission.js';

/**
 * The request matched. `kind`/`resource`/`subResource` are the version the hook or policy is to be called with
 * (upstream's invocation Kind/Resource). `convert` is true when that kind is not the request's `kind`, the version
 * the object is in: the object is then converted to it (lib/admission/conversion) before the hook sees it.
 */
export interface Matched {
  readonly matches: true;
  readonly kind: Readonly<GroupVersionKind>;
  readonly resource: Readonly<GroupVersionResource>;
  readonly subResource: string;
  readonly convert: boolean;
}

/** The match could not be decided (a namespace label this daemon cannot see, a broken selector): the caller applies
 * the failure policy, with `error` as the message. */
export interface Undecidable {
  readonly matches: 'undecidable';
  readonly error: string;
}

export type MatchDecision = { readonly matches: false } | Matched | Undecidable;

/** A yes/no predicate that may be undecidable (selectors, bindings). */
export type Decision = { readonly matches: boolean } | Undecidable;

export const noMatch: { readonly matches: false } = Object.freeze({ matches: false });
export const match: { readonly matches: true } = Object.freeze({ matches: true });

export function undecidable(error: string): Undecidable {
  return Object.freeze({ matches: 'undecidable', error });
}
