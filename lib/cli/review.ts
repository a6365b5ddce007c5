// `static-admissiond review`: one AdmissionReview through the same admission chain as the daemon, offline; prints
// the AdmissionReview response on stdout. Exit 0 whether allowed or denied; 1 when the configuration or the
// input is invalid, so operators can test policies without a cluster.
import { readFileSync } from 'node:fs';
import { stringify as toYaml } from 'yaml';
import { mutateRequest } from '../admission/mutate.js';
import { createMutatingPolicyPlugin } from '../admission/mutating/plugin.js';
import type { MutatingPlugin } from '../admission/mutation.js';
import { validateRequest, withWebhookVerdict } from '../admission/validate.js';
import { createLogger } from '../log/logger.js';
import type { Snapshot } from '../reload/snapshot.js';
import { createWebhookPlugins } from '../admission/webhooks/plugins.js';
import type { WebhookPlugins } from '../admission/webhooks/plugins.js';
import { isVerdict } from '../admission/webhooks/validating.js';
import { isShortenedAnnotationKey, webhookAnnotationKey } from '../admission/audit-keys.js';
import type { PolicyHook } from '../manifest/compile.js';
import { ManifestError } from '../manifest/errors.js';
import { initialLoadMessage } from '../manifest/plugins.js';
import { loadSnapshotSync } from '../reload/pipeline.js';
import { encodeAdmissionReviewResponse, parseAdmissionReview, ReviewError } from '../server/review.js';
import { admissionSetupFrom, authorizationClientFrom, authorizationFlag, configFlags, featureGatesFrom } from './common.js';
import type { SubjectAccessReviewClient } from '../webhook/subject-access-review.js';
import type { CommandIO } from './common.js';
import { flagBool, flagString, parseFlags, UsageError, usageText } from './flags.js';
import type { FlagSpec } from './flags.js';

export const reviewFlags: readonly FlagSpec[] = [
  ...configFlags,
  { name: 'operation', type: 'string', default: 'validate', usage: 'the endpoint to run: validate or mutate' },
  { name: 'output', short: 'o', type: 'string', default: 'json', usage: 'json (the AdmissionReview response) or, with --operation mutate, yaml-object (the mutated object)' },
  { name: 'skip-webhooks', type: 'boolean', default: false, usage: 'do not call the static webhooks (policies only)' },
  authorizationFlag,
  { name: 'help', short: 'h', type: 'boolean', default: false, usage: 'show this help' },
];

export async function review(argv: readonly string[], io: CommandIO): Promise<number> {
  const flags = parseFlags(argv, reviewFlags);
  if (flagBool(flags, 'help')) {
    io.stdout(usageText('static-admissiond review [--admission-config F] [--operation validate|mutate] [-o json|yaml-object] FILE|-', 'Runs one AdmissionReview through the admission chain offline and prints the AdmissionReview response. Exit 0 allowed or denied, 1 on invalid configuration or input.', reviewFlags));
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

  let hooks: readonly PolicyHook[] = [];
  let webhooks: WebhookPlugins | undefined;
  let authorization: SubjectAccessReviewClient | undefined;
  try {
    authorization = authorizationClientFrom(flags);
    const gates = featureGatesFrom(flags);
    const plugins = admissionSetupFrom(flags, gates).plugins;
    // the static validating webhooks are called for real, as the daemon calls them, unless --skip-webhooks
    const webhookPlugin = operation === 'mutate' ? 'MutatingAdmissionWebhook' : 'ValidatingAdmissionWebhook';
    const webhookSetup = flagBool(flags, 'skip-webhooks') ? undefined : plugins.find((p) => p.plugin === webhookPlugin);
    if (webhookSetup !== undefined) {
      let snapshot: Snapshot;
      try {
        snapshot = loadSnapshotSync(webhookSetup.plugin, webhookSetup.staticManifestsDir);
      } catch (err) {
        if (err instanceof ManifestError) throw new Error(initialLoadMessage(webhookSetup.plugin, webhookSetup.staticManifestsDir, err.message));
        throw err;
      }
      webhooks = createWebhookPlugins({
        plugins: [webhookSetup],
        snapshot: () => snapshot,
        logger: createLogger({ write: (line) => io.stderr(line + '\n'), source: 'review' }),
        excludeWebhookVirtualResources: gates.ExcludeAdmissionWebhookVirtualResources,
        ...(authorization === undefined ? {} : { authorization }),
      });
    }
    for (const p of plugins) {
      if (p.plugin !== (operation === 'mutate' ? 'MutatingAdmissionPolicy' : 'ValidatingAdmissionPolicy')) continue;
      try {
        const snapshot = loadSnapshotSync(p.plugin, p.staticManifestsDir);
        if (snapshot.compiled.family === 'policy') hooks = snapshot.compiled.hooks;
      } catch (err) {
        if (err instanceof ManifestError) throw new Error(initialLoadMessage(p.plugin, p.staticManifestsDir, err.message));
        throw err;
      }
    }
  } catch (err) {
    await authorization?.close();
    io.stderr(`error: ${(err as Error).message}\n`);
    return 1;
  }
  try {
    return await reviewOne(source, { hooks, webhooks, authorization, operation, output }, io);
  } finally {
    await webhooks?.close();
    await authorization?.close();
  }
}

interface ReviewSetup {
  readonly hooks: readonly PolicyHook[];
  readonly webhooks: WebhookPlugins | undefined;
  readonly authorization: SubjectAccessReviewClient | undefined;
  readonly operation: 'validate' | 'mutate';
  readonly output: string;
}

async function reviewOne(source: string, setup: ReviewSetup, io: CommandIO): Promise<number> {
  const { hooks, webhooks, authorization, operation, output } = setup;
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
  if (operation === 'mutate') return reviewMutation(parsed, hooks, webhooks, authorization, output, io);
  // the longest time kube-apiserver gives a webhook call
  const ctx = { deadline: Date.now() + 30_000, signal: new AbortController().signal };
  let { response } = await validateRequest({ request: parsed.request, policies: hooks }, { client: authorization, deadline: ctx.deadline });
  const validating = webhooks?.validating;
  if (validating !== undefined && response.allowed === true) {
    const dispatch = validating.dispatcher.dispatch(validating.hooks(), parsed.request, ctx);
    response = withWebhookVerdict(response, isVerdict(dispatch) ? dispatch : await dispatch.done);
  }
  const encoded = JSON.parse(encodeAdmissionReviewResponse(parsed, response).toString('utf8')) as unknown;
  io.stdout(JSON.stringify(encoded, null, 2) + '\n');
  for (const [original, answered] of shortenedKeysIn(hooks, response.auditAnnotations)) {
    io.stderr(`note: audit annotation ${answered} stands for ${original} (shortened: the apiserver records <webhook name>/<key>, whose key part may not exceed 63 characters)\n`);
  }
  return 0;
}

/** The policies' audit annotation keys that were answered under a shortened name. */
function shortenedKeysIn(hooks: readonly PolicyHook[], answered: Readonly<Record<string, string>> | undefined): Array<[string, string]> {
  if (answered === undefined) return [];
  const out: Array<[string, string]> = [];
  for (const { policy } of hooks) {
    const spec = policy.spec as { auditAnnotations?: Array<{ key?: string }> } | undefined;
    for (const a of spec?.auditAnnotations ?? []) {
      const original = `${policy.metadata?.name ?? ''}/${a.key ?? ''}`;
      const key = webhookAnnotationKey(original);
      if (isShortenedAnnotationKey(original) && key in answered) out.push([original, key]);
    }
  }
  return out;
}

/** `--operation mutate`: the /mutate chain (MutatingAdmissionPolicy, then the static mutating webhooks unless skipped). */
async function reviewMutation(parsed: ReturnType<typeof parseAdmissionReview>, hooks: readonly PolicyHook[], webhooks: WebhookPlugins | undefined, authorization: SubjectAccessReviewClient | undefined, output: string, io: CommandIO): Promise<number> {
  const plugins: MutatingPlugin[] = [createMutatingPolicyPlugin({ hooks: () => hooks, ...(authorization === undefined ? {} : { authorization }) })];
  if (webhooks?.mutating) plugins.push(webhooks.mutating);
  // the longest time kube-apiserver gives a webhook call
  const { response, object } = await mutateRequest(parsed.request, plugins, { deadline: Date.now() + 30_000, signal: new AbortController().signal });
  if (output === 'yaml-object') {
    if (!response.allowed) {
      io.stderr(`denied: ${response.status?.message ?? ''}\n`);
      return 0;
    }
    io.stdout(object === null || object === undefined ? '' : toYaml(object));
    return 0;
  }
  const encoded = JSON.parse(encodeAdmissionReviewResponse(parsed, response).toString('utf8')) as unknown;
  io.stdout(JSON.stringify(encoded, null, 2) + '\n');
  return 0;
}
