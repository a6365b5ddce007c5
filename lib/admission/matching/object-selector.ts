// objectSelector: the labels of the object being admitted.
//
// Upstream: S/admission/plugin/webhook/predicates/object/matcher.go. An empty selector matches everything; otherwise
// the request matches when the selector matches `object` OR `oldObject` (so DELETE, whose object is null, is judged
// by oldObject, and an UPDATE that adds or removes a label matches on either side). A missing object, or one without
// metadata (upstream: meta.Accessor fails, e.g. the PodExecOptions of a CONNECT), never matches a non-empty selector.
import type { AdmissionRequest } from '../../api/admission.js';
import type { LabelSelector } from '../../api/types.js';
import { compileLabelSelector } from '../../manifest/selector.js';
import type { LabelMatcher } from '../../manifest/selector.js';

export interface CompiledObjectSelector {
  /** no matchLabels and no matchExpressions (a defaulted `{}`) */
  readonly empty: boolean;
  readonly matcher: LabelMatcher;
}

export function isEmptySelector(selector: LabelSelector | null | undefined): boolean {
  if (selector == null) return true;
  const { matchLabels, matchExpressions } = selector;
  return (matchLabels == null || Object.keys(matchLabels).length === 0) && (matchExpressions == null || matchExpressions.length === 0);
}

/**
 * Compiles an objectSelector once per snapshot; `matcher` reuses one already parsed at load (StaticWebhook).
 * A null selector is taken as `{}`: loaded objects are defaulted, as lib/manifest/compile.ts assumes too.
 * Throws SelectorError for an invalid selector.
 */
export function compileObjectSelector(selector: LabelSelector | null | undefined, matcher?: LabelMatcher): CompiledObjectSelector {
  return Object.freeze({ empty: isEmptySelector(selector), matcher: matcher ?? compileLabelSelector(selector) });
}

/** The labels of an admitted object: undefined when it has no metadata (never matched), `null` when it has
 * metadata but no labels (the empty label set). */
export function labelsOf(obj: unknown): Readonly<Record<string, string>> | null | undefined {
  if (obj === null || typeof obj !== 'object') return undefined;
  const metadata = (obj as { metadata?: unknown }).metadata;
  if (metadata === null || typeof metadata !== 'object') return undefined;
  const labels = (metadata as { labels?: unknown }).labels;
  return labels !== null && typeof labels === 'object' && !Array.isArray(labels) ? (labels as Record<string, string>) : null;
}

function matchObject(obj: unknown, matcher: LabelMatcher): boolean {
  const labels = labelsOf(obj);
  return labels !== undefined && matcher(labels ?? undefined);
}

export function matchObjectSelector(compiled: CompiledObjectSelector, request: AdmissionRequest): boolean {
  if (compiled.empty) return true;
  return matchObject(request.object, compiled.matcher) || matchObject(request.oldObject, compiled.matcher);
}
