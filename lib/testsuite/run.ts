// Running a suite's cases through the daemon's admission chain, as kube-apiserver calls it: /mutate first (unless
// the case asks for one endpoint), the object patched as the apiserver patches it, then /validate on the mutated
// object. A denial by /mutate ends the request as it ends it in the apiserver. Warnings and audit annotations of both
// calls are kept, in order.
import type { AdmissionResponse } from '../api/admission.js';
import { patchedObject } from '../admission/mutate.js';
import type { MutateHandler } from '../review/mutate-handler.js';
import type { ValidateHandler } from '../review/validate-handler.js';
import { AdmissionConfigError, readAdmissionConfiguration, validateStaticManifestsDir } from '../config/admission-config.js';
import type { AdmissionSetup } from '../config/admission-config.js';
import type { JsonValue } from '../manifest/document.js';
import { compareAnswer } from './expect.js';
import type { Answer, Row } from './expect.js';
import { SuiteError } from './fields.js';
import { mutateRequest, prepareCase, validateRequest } from './request.js';
import type { PreparedCase } from './request.js';
import type { Suite } from './suite.js';
import { setOwn } from '../json/own.js';

/** The two endpoints of the daemon, as `serve` builds them. */
export interface SuiteChain {
  readonly validate: Pick<ValidateHandler, 'handle'>;
  readonly mutate: Pick<MutateHandler, 'handle'>;
}

export interface CaseResult {
  readonly index: number;
  readonly name: string;
  readonly passed: boolean;
  readonly rows: readonly Row[];
  readonly answer: Answer | undefined;
  /** the chain failed to answer (a bug, or a webhook call that threw) */
  readonly error?: string;
  readonly notes: readonly string[];
  readonly durationMs: number;
}

/** The longest time kube-apiserver gives a webhook call. */
const callDeadlineMs = 30_000;
const noBody = new Uint8Array(0);

/** The admission configuration a suite names, as the daemon would read it. Throws SuiteError. */
export function admissionSetupOf(suite: Suite): AdmissionSetup {
  const source = suite.admission;
  try {
    if (source.kind === 'config') return readAdmissionConfiguration(source.configFile, suite.gates, source.root);
    for (const { dir } of source.dirs) validateStaticManifestsDir(dir, suite.gates);
    return {
      configFile: suite.file,
      plugins: source.dirs.map(({ plugin, dir }) => ({ plugin, staticManifestsDir: dir, kubeConfigFile: plugin.endsWith('Webhook') ? source.kubeConfigFile : '' })),
    };
  } catch (err) {
    if (err instanceof AdmissionConfigError) throw new SuiteError(suite.file, `admission: ${err.message}`);
    throw err;
  }
}

/** Every case checked and prepared before any runs: a bad case makes the whole suite bad. Throws SuiteError. */
export function prepareSuite(suite: Suite): PreparedCase[] {
  return suite.cases.map((c) => prepareCase(c, suite.file));
}

function context(): { deadline: number; signal: AbortSignal } {
  return { deadline: Date.now() + callDeadlineMs, signal: new AbortController().signal };
}

function denial(response: AdmissionResponse): Pick<Answer, 'code' | 'reason' | 'message'> {
  const s = response.status;
  if (s === undefined || s === null) return {};
  return {
    ...(s.code === undefined ? {} : { code: s.code }),
    ...(s.reason === undefined || s.reason === '' ? {} : { reason: s.reason }),
    ...(s.message === undefined || s.message === '' ? {} : { message: s.message }),
  };
}

/** The answer of one case. */
export async function answerCase(p: PreparedCase, chain: SuiteChain): Promise<Answer> {
  const warnings: string[] = [];
  const auditAnnotations: Record<string, string> = {};
  const collect = (r: AdmissionResponse): void => {
    warnings.push(...(r.warnings ?? []));
    for (const [key, value] of Object.entries(r.auditAnnotations ?? {})) setOwn(auditAnnotations, key, value);
  };
  let object: JsonValue | null = p.object;
  let patched = false;
  if (p.spec.endpoint !== 'validate') {
    const request = mutateRequest(p);
    const response = await chain.mutate.handle({ request }, context());
    collect(response);
    if (response.allowed !== true) return { allowed: false, ...denial(response), warnings, auditAnnotations, patched: false, object: null, deniedBy: 'mutate' };
    if (response.patch !== undefined && response.patch !== '') {
      patched = true;
      object = patchedObject(request.object, response.patch) as JsonValue;
    }
    if (p.spec.endpoint === 'mutate') return { allowed: true, ...denial(response), warnings, auditAnnotations, patched, object };
  }
  const request = validateRequest(p, object);
  const response = await chain.validate.handle({ request, body: noBody }, context());
  collect(response);
  const allowed = response.allowed === true;
  return {
    allowed,
    ...denial(response),
    warnings,
    auditAnnotations,
    patched,
    object: allowed ? (request.object as JsonValue | null) : null,
    ...(allowed ? {} : { deniedBy: 'validate' as const }),
  };
}

/** Runs the cases one after the other (the order a reader expects, and webhook calls in a predictable order). */
export async function runCases(cases: readonly PreparedCase[], chain: SuiteChain): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const p of cases) {
    const start = performance.now();
    let answer: Answer | undefined;
    let error: string | undefined;
    try {
      answer = await answerCase(p, chain);
    } catch (err) {
      error = (err as Error).message;
    }
    const rows = answer === undefined ? [] : compareAnswer(p.spec.expect, answer);
    results.push({
      index: p.spec.index,
      name: p.spec.name,
      passed: error === undefined && rows.every((r) => r.ok),
      rows,
      answer,
      ...(error === undefined ? {} : { error }),
      notes: p.notes,
      durationMs: performance.now() - start,
    });
  }
  return results;
}
