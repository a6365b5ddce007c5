// The seeded generator: case groups, each a manifest directory and the requests sent against it. Group `i` of seed
// `s` depends on (s, i) alone, so any disagreement is regenerated from those two numbers.
import { stringify } from 'yaml';
import type { PluginName } from '../../../lib/manifest/plugins.js';
import { Rng } from './rng.js';
import { families, reviewOf } from './requests.js';
import type { Review } from './requests.js';
import { validatingPolicies } from './validating.js';
import { mutatingPolicies } from './mutating.js';
import { withMistakes } from './mistakes.js';
import type { Files } from './mistakes.js';

export type { Files, Review };

export type GroupOp = 'validate' | 'mutate' | 'load';

export interface CaseGroup {
  readonly seed: number;
  readonly index: number;
  readonly op: GroupOp;
  readonly plugin: PluginName;
  readonly files: Files;
  /** the requests (none for a load group) */
  readonly reviews: readonly Review[];
  /** what the group exercises, for messages (the resource family, or the mistakes made) */
  readonly about: string;
  /** objects whose create-time validation is compared too (a load group's, before its mistakes) */
  readonly objects: readonly object[];
}

/** Requests per validate/mutate group: enough to spread each directory's compile over many decisions. */
export const reviewsPerGroup = 12;

const groupSeed = (seed: number, index: number): number => (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(index + 1, 0xc2b2ae35)) >>> 0;

const yamlOf = (objects: readonly object[]): string => objects.map((o) => stringify(o)).join('---\n');

export function generateGroup(seed: number, index: number): CaseGroup {
  const rng = new Rng(groupSeed(seed, index));
  const roll = rng.next();
  const family = rng.pick(families);
  const tag = `g${index}`;
  if (roll < 0.45) {
    const files = { 'policies.yaml': yamlOf(validatingPolicies(rng, family, tag)) };
    const reviews = Array.from({ length: reviewsPerGroup }, () => reviewOf(rng, family));
    return { seed, index, op: 'validate', plugin: 'ValidatingAdmissionPolicy', files, reviews, about: family.name, objects: [] };
  }
  if (roll < 0.85) {
    const files = { 'policies.yaml': yamlOf(mutatingPolicies(rng, family, tag)) };
    const reviews = Array.from({ length: reviewsPerGroup }, () => reviewOf(rng, family, ['CREATE', 'UPDATE']));
    return { seed, index, op: 'mutate', plugin: 'MutatingAdmissionPolicy', files, reviews, about: family.name, objects: [] };
  }
  const validating = rng.chance(0.6);
  const objects = validating ? validatingPolicies(rng, family, tag) : mutatingPolicies(rng, family, tag);
  const valid = structuredClone(objects);
  const made = withMistakes(rng, objects);
  // the objects with the mistakes made in them (those a file-level mistake left whole are valid ones)
  const compiled = objects.filter((o) => !valid.some((v) => JSON.stringify(v) === JSON.stringify(o)));
  return { seed, index, op: 'load', plugin: validating ? 'ValidatingAdmissionPolicy' : 'MutatingAdmissionPolicy', files: made.files, reviews: [], about: made.mistakes.join('+'), objects: compiled };
}

/**
 * The comparisons a group makes for certain: its load, and one per request (its objects' validations come on top,
 * each one whose object decodes).
 */
export const casesIn = (group: CaseGroup): number => 1 + group.reviews.length;
