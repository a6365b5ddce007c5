// metav1.LabelSelector → a predicate over a label map (LabelSelectorAsSelector semantics: every matchLabels pair
// and every requirement must hold; an empty selector matches everything).
import type { LabelSelector } from '../api/types.js';

export type LabelMatcher = (labels: Readonly<Record<string, string>> | undefined) => boolean;

export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorError';
  }
}

export const matchEverything: LabelMatcher = () => true;

export function compileLabelSelector(selector: LabelSelector | null | undefined): LabelMatcher {
  if (!selector) return matchEverything;
  const checks: LabelMatcher[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    checks.push((labels) => labels?.[key] === value);
  }
  for (const req of selector.matchExpressions ?? []) {
    const key = req.key ?? '';
    const values = new Set(req.values ?? []);
    switch (req.operator) {
      case 'In':
        if (values.size === 0) throw new SelectorError(`for 'in', 'notin' operators, values set can't be empty`);
        checks.push((labels) => labels?.[key] !== undefined && values.has(labels[key]!));
        break;
      case 'NotIn':
        if (values.size === 0) throw new SelectorError(`for 'in', 'notin' operators, values set can't be empty`);
        checks.push((labels) => labels?.[key] === undefined || !values.has(labels[key]!));
        break;
      case 'Exists':
        checks.push((labels) => labels?.[key] !== undefined);
        break;
      case 'DoesNotExist':
        checks.push((labels) => labels?.[key] === undefined);
        break;
      default:
        throw new SelectorError(`"${req.operator ?? ''}" is not a valid label selector operator`);
    }
  }
  if (checks.length === 0) return matchEverything;
  return (labels) => checks.every((check) => check(labels));
}

/** Label keys a selector reads (matchLabels keys and requirement keys). */
export function selectorKeys(selector: LabelSelector | null | undefined): string[] {
  if (!selector) return [];
  return [...Object.keys(selector.matchLabels ?? {}), ...(selector.matchExpressions ?? []).map((r) => r.key ?? '')];
}
