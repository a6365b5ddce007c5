// The manifest sets a replay decides with, described as plain data so that every worker thread loads the same ones,
// and loaded through the one builder of the admission chain (lib/review/chain.ts loadOfflineChain), which `serve`,
// `review` and `test` use too: replay cannot decide differently from the daemon.
import { loadOfflineChain } from '../review/chain.js';
import type { OfflineChain } from '../review/chain.js';
import { readAdmissionConfiguration } from '../config/admission-config.js';
import { defaultFeatureGates, parseFeatureGates } from '../config/feature-gates.js';
import type { Logger } from '../log/logger.js';
import { SubjectAccessReviewClient } from '../webhook/subject-access-review.js';

export interface ChainSpec {
  /** an AdmissionConfiguration file, as --admission-config */
  readonly configFile: string;
  /** --feature-gates ('' for the defaults) */
  readonly featureGates: string;
  readonly skipWebhooks: boolean;
  /** --authorization-kubeconfig ('' for none) */
  readonly authorizationKubeconfig: string;
}

/** Loads a set as the daemon's initial load would; throws with upstream's message on a bad configuration. */
export function loadReplayChain(spec: ChainSpec, logger: Logger): OfflineChain {
  const gates = spec.featureGates === '' ? defaultFeatureGates : parseFeatureGates(spec.featureGates);
  const authorization = spec.authorizationKubeconfig === '' ? undefined : SubjectAccessReviewClient.fromKubeconfig(spec.authorizationKubeconfig);
  try {
    return loadOfflineChain(readAdmissionConfiguration(spec.configFile, gates), {
      endpoints: ['mutate', 'validate'],
      skipWebhooks: spec.skipWebhooks,
      gates,
      logger,
      ...(authorization === undefined ? {} : { authorization }),
    });
  } catch (err) {
    void authorization?.close();
    throw err;
  }
}
