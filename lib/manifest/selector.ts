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

/** A label's value, own properties only (a key such as `constructor` must not reach Object.prototype). */
function label(labels: Readonly<Record<string, string>> | undefined, key: string): string | undefined {
  return labels !== undefined && Object.hasOwn(labels, key) ? labels[key] : undefined;
}

export function compileLabelSelector(selector: LabelSelector | null | undefined): LabelMatcher {
  if (!selector) return matchEverything;
  const checks: LabelMatcher[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    checks.push((labels) => label(labels, key) === value);
  }
  for (const req of selector.matchExpressions ?? []) {
    const key = req.key ?? '';
    const values = new Set(req.values ?? []);
    switch (req.operator) {
      case 'In':
        if (values.size === 0) throw new SelectorError(`for 'in', 'notin' operators, values set can't be empty`);
        checks.push((labels) => {
          const v = label(labels, key);
          return v !== undefined && values.has(v);
        });
        break;
      case 'NotIn':
        if (values.size === 0) throw new SelectorError(`for 'in', 'notin' operators, values set can't be empty`);
        checks.push((labels) => {
          const v = label(labels, key);
          return v === undefined || !values.has(v);
        });
        break;
      case 'Exists':
        checks.push((labels) => label(labels, key) !== undefined);
        break;
      case 'DoesNotExist':
        checks.push((labels) => label(labels, key) === undefined);
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
