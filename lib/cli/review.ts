// `static-admissiond review`: one AdmissionReview through the same admission chain as the daemon, offline; prints
// the AdmissionReview response on stdout. Exit 0 whether allowed or denied; 1 when the configuration or the
// input is invalid, so operators can test policies without a cluster.
import { readFileSync } from 'node:fs';
import { validateRequest } from '../admission/validate.js';
import type { PolicyHook } from '../manifest/compile.js';
import { ManifestError } from '../manifest/errors.js';
import { initialLoadMessage } from '../manifest/plugins.js';
import { loadSnapshotSync } from '../reload/pipeline.js';
import { encodeAdmissionReviewResponse, parseAdmissionReview, ReviewError } from '../server/review.js';
import { admissionSetupFrom, configFlags, featureGatesFrom } from './common.js';
import type { CommandIO } from './common.js';
import { flagBool, flagString, parseFlags, UsageError, usageText } from './flags.js';
import type { FlagSpec } from './flags.js';

export const reviewFlags: readonly FlagSpec[] = [
  ...configFlags,
  { name: 'operation', type: 'string', default: 'validate', usage: 'the endpoint to run: validate (mutate arrives with the mutating chain)' },
  { name: 'skip-webhooks', type: 'boolean', default: false, usage: 'do not call the static webhooks (policies only)' },
  { name: 'help', short: 'h', type: 'boolean', default: false, usage: 'show this help' },
];

export async function review(argv: readonly string[], io: CommandIO): Promise<number> {
  const flags = parseFlags(argv, reviewFlags);
  if (flagBool(flags, 'help')) {
    io.stdout(usageText('static-admissiond review [--admission-config F] [--operation validate] FILE|-', 'Runs one AdmissionReview through the admission chain offline and prints the AdmissionReview response. Exit 0 allowed or denied, 1 on invalid configuration or input.', reviewFlags));
    return 0;
  }
  const operation = flagString(flags, 'operation');
  if (operation !== 'validate') {
    throw new UsageError(operation === 'mutate' ? '--operation mutate is not available yet: the mutating chain is not implemented' : `invalid --operation ${JSON.stringify(operation)}: must be validate`);
  }
  if (flags.positional.length !== 1) throw new UsageError('review takes exactly one AdmissionReview file, or - for standard input');
  const source = flags.positional[0]!;

  let hooks: readonly PolicyHook[] = [];
  let gateEnabled: boolean;
  try {
    const gates = featureGatesFrom(flags);
    gateEnabled = gates.ManifestBasedAdmissionControlConfig;
    for (const p of admissionSetupFrom(flags, gates).plugins) {
      if (p.plugin !== 'ValidatingAdmissionPolicy') continue;
      try {
        const snapshot = loadSnapshotSync(p.plugin, p.staticManifestsDir);
        if (snapshot.compiled.family === 'policy') hooks = snapshot.compiled.hooks;
      } catch (err) {
        if (err instanceof ManifestError) throw new Error(initialLoadMessage(p.plugin, p.staticManifestsDir, err.message));
        throw err;
      }
    }
  } catch (err) {
    io.stderr(`error: ${(err as Error).message}\n`);
    return 1;
  }

  let body: Buffer;
  try {
    body = source === '-' ? await (io.readStdin ?? (() => Promise.reject(new Error('no standard input'))))() : readFileSync(source);
  } catch (err) {
    io.stderr(`error: reading ${source === '-' ? 'standard input' : source}: ${(err as Error).message}\n`);
    return 1;
  }
  let parsed;
  try {
    parsed = parseAdmissionReview(body);
  } catch (err) {
    if (err instanceof ReviewError) {
      io.stderr(`error: ${source}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  const { response } = validateRequest({ request: parsed.request, policies: hooks, manifestGateEnabled: gateEnabled });
  const encoded = JSON.parse(encodeAdmissionReviewResponse(parsed, response).toString('utf8')) as unknown;
  io.stdout(JSON.stringify(encoded, null, 2) + '\n');
  return 0;
}
