// `static-admissiond review`: one AdmissionReview through the same admission chain as the daemon, offline; prints
// the AdmissionReview response on stdout. Exit 0 whether allowed or denied; 1 when the configuration or the
// input is invalid, so operators can test policies without a cluster.
import { readFileSync } from 'node:fs';
import { stringify as toYaml } from 'yaml';
import { shortenedPolicyAuditKeys } from '../admission/audit-keys.js';
import { patchedObject } from '../admission/mutate.js';
import type { PolicyHook } from '../manifest/compile.js';
import { createLogger } from '../log/logger.js';
import { encodeAdmissionReviewResponse, ReviewError } from '../review/answer.js';
import { parseAdmissionReview } from '../review/decode.js';
import { loadOfflineChain } from '../review/chain.js';
import type { OfflineChain } from '../review/chain.js';
import { admissionSetupFrom, authorizationClientFrom, authorizationFlag, configFlags, featureGatesFrom } from './common.js';
import type { CommandIO } from './common.js';
import { flagBool, flagString, helpFlag, parseFlags, UsageError, usageText } from './flags.js';
import type { FlagSpec } from './flags.js';
import type { SubjectAccessReviewClient } from '../webhook/subject-access-review.js';

export const reviewFlags: readonly FlagSpec[] = [
  ...configFlags,
  { name: 'operation', type: 'string', default: 'validate', usage: 'the endpoint to run: validate or mutate' },
  { name: 'output', short: 'o', type: 'string', default: 'json', usage: 'json (the AdmissionReview response) or, with --operation mutate, yaml-object (the mutated object)' },
  { name: 'skip-webhooks', type: 'boolean', default: false, usage: 'do not call the static webhooks (policies only)' },
  authorizationFlag,
  helpFlag,
];

/** The longest time kube-apiserver gives a webhook call. */
const offlineDeadlineMs = 30_000;

export async function review(argv: readonly string[], io: CommandIO): Promise<number> {
  const flags = parseFlags(argv, reviewFlags);
  if (flagBool(flags, 'help')) {
    io.stdout(usageText('static-admissiond review [--admission-config F] [--operation validate|mutate] [-o json|yaml-object] FILE|-', 'Runs one AdmissionReview through the admission chain offline and prints the AdmissionReview response. Exit 0 allowed or denied, 1 on invalid configuration or input, 2 on a usage error.', reviewFlags));
    return 0;
  }
  const operation = flagString(flags, 'operation');
  if (operation !== 'validate' && operation !== 'mutate') throw new UsageError(`invalid --operation ${JSON.stringify(operation)}: must be validate or mutate`);
  const output = flagString(flags, 'output');
  if (output !== 'json' && !(output === 'yaml-object' && operation === 'mutate')) {
    throw new UsageError(output === 'yaml-object' ? '-o yaml-object needs --operation mutate' : `invalid --output ${JSON.stringify(output)}: must be json or yaml-object`);
  }
  if (flags.positional.length !== 1) throw new UsageError('review takes exactly one AdmissionReview file, or - for standard input');
  const source = flags.positional[0]!;

  let chain: OfflineChain;
  let authorization: SubjectAccessReviewClient | undefined;
  try {
    authorization = authorizationClientFrom(flags);
    const gates = featureGatesFrom(flags);
    chain = loadOfflineChain(admissionSetupFrom(flags, gates), {
      endpoints: [operation],
      // the static webhooks are called for real, as the daemon calls them, unless --skip-webhooks
      skipWebhooks: flagBool(flags, 'skip-webhooks'),
      gates,
      logger: createLogger({ write: (line) => io.stderr(line + '\n'), source: 'review' }),
      ...(authorization === undefined ? {} : { authorization }),
    });
  } catch (err) {
    await authorization?.close();
    io.stderr(`error: ${(err as Error).message}\n`);
    return 1;
  }
  try {
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
    const ctx = { deadline: Date.now() + offlineDeadlineMs, signal: new AbortController().signal };
    const response = operation === 'mutate' ? await chain.mutate.handle(parsed, ctx) : await chain.validate.handle(parsed, ctx);
    if (output === 'yaml-object') {
      if (!response.allowed) {
        io.stderr(`denied: ${response.status?.message ?? ''}\n`);
        return 0;
      }
      const object = patchedObject(parsed.request.object, response.patch);
      io.stdout(object === null || object === undefined ? '' : toYaml(object));
      return 0;
    }
    const encoded = JSON.parse(encodeAdmissionReviewResponse(parsed, response).toString('utf8')) as unknown;
    io.stdout(JSON.stringify(encoded, null, 2) + '\n');
    if (operation === 'validate') {
      const compiled = chain.snapshots.get('ValidatingAdmissionPolicy')?.compiled;
      for (const [original, answered] of shortenedKeysIn(compiled?.family === 'policy' ? compiled.hooks : [], response.auditAnnotations)) {
        io.stderr(`note: audit annotation ${answered} stands for ${original} (shortened: the apiserver records <webhook name>/<key>, whose key part may not exceed 63 characters)\n`);
      }
    }
    return 0;
  } finally {
    await chain.close();
  }
}

/** The policies' audit annotation keys that were answered under a shortened name. */
function shortenedKeysIn(hooks: readonly PolicyHook[], answered: Readonly<Record<string, string>> | undefined): Array<[string, string]> {
  if (answered === undefined) return [];
  return shortenedPolicyAuditKeys(hooks.map((h) => h.policy)).filter(([, key]) => Object.hasOwn(answered, key));
}

