// `static-admissiond replay`: what a candidate manifest set would have answered to the writes in kube-apiserver's
// audit log (lib/replay), against the set enforced now when --baseline-admission-config names it.
// Exit 0: replayed (and, with a baseline, nothing the baseline allowed is denied); 1: with a baseline, the candidate
// denies writes the baseline allowed; 2: the command line, a configuration, a log or the --namespaces file is bad;
// 130: interrupted (SIGINT, SIGTERM), after reporting what was replayed.
import { readFileSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createLogger } from '../log/logger.js';
import { loadReplayChain } from '../replay/chains.js';
import { defaultFeatureGates, parseFeatureGates } from '../config/feature-gates.js';
import { RegistrationScope } from '../replay/scope.js';
import type { ScopeSpec } from '../replay/scope.js';
import type { ChainSpec } from '../replay/chains.js';
import { defaultMaxTrackedObjects, namespaceObjects, NamespacesFileError } from '../replay/objects.js';
import type { StoredObject } from '../replay/objects.js';
import { jsonEvent, jsonNotSent, jsonSkipped, jsonSummary, junitReport, nothingReplayed, ReplayReport, textReport } from '../replay/report.js';
import { runReplay } from '../replay/run.js';
import type { Progress } from '../replay/run.js';
import { ReplayShard } from '../replay/shard.js';
import type { EventResult } from '../replay/shard.js';
import type { OfflineChain } from '../review/chain.js';
import { authorizationFlag } from './common.js';
import type { CommandIO } from './common.js';
import { flagBool, flagNumber, flagString, parseFlags, UsageError, usageText } from './flags.js';
import type { FlagSpec } from './flags.js';

export const replayFlags: readonly FlagSpec[] = [
  { name: 'admission-config', type: 'string', usage: 'the candidate: an AdmissionConfiguration whose plugin configurations carry staticManifestsDir (required)' },
  { name: 'baseline-admission-config', type: 'string', default: '', usage: 'the set enforced now: every write is decided by both, and the report leads with the changes' },
  { name: 'registration-file', type: 'string', default: '', usage: 'the registration kube-apiserver used (as printed by `registration`, the same file as serve\'s --registration-file): only what it sends the daemon is decided; by default, the registration `registration` derives from the candidate set' },
  { name: 'include-system-namespaces', type: 'boolean', default: false, usage: 'as registration\'s: the derived registration sends kube-system and kube-node-lease too' },
  { name: 'namespaces', type: 'string', default: '', usage: 'the output of kubectl get namespaces -o json: the stored Namespaces, old objects of the log\'s first namespace updates and deletes' },
  { name: 'output', short: 'o', type: 'string', default: 'text', usage: 'text, json (one result per event) or junit' },
  { name: 'skip-webhooks', type: 'boolean', default: false, usage: 'do not call the static webhooks (policies only)' },
  { name: 'feature-gates', type: 'string', default: '', usage: 'as serve\'s --feature-gates' },
  { name: 'workers', type: 'int', default: availableParallelism(), usage: 'decision threads; 0 decides on the reading thread', defaultText: `one per CPU: ${availableParallelism()} here` },
  { name: 'max-tracked-objects', type: 'int', default: defaultMaxTrackedObjects, usage: 'stored objects kept as old objects for later updates and deletes (memory grows with it; the least recently written go first)' },
  authorizationFlag,
  { name: 'help', short: 'h', type: 'boolean', default: false, usage: 'show this help' },
];

const summary = 'Replays the writes of kube-apiserver audit logs (JSON lines as the log backend writes them, gzip\'d or not, '
  + 'or the webhook backend\'s EventLists; rotated files oldest first) through the candidate manifest set, as /mutate and '
  + '/validate would answer them. Exit 0 replayed, 1 the candidate denies writes the baseline allowed, 2 bad flags, '
  + 'configuration or input, 130 interrupted (after printing the report so far).';

function chainSpec(flags: ReturnType<typeof parseFlags>, configFile: string): ChainSpec {
  return {
    configFile,
    featureGates: flagString(flags, 'feature-gates'),
    skipWebhooks: flagBool(flags, 'skip-webhooks'),
    authorizationKubeconfig: flagString(flags, 'authorization-kubeconfig'),
  };
}

function readNamespaces(path: string): Array<[string, StoredObject]> {
  if (path === '') return [];
  return namespaceObjects(JSON.parse(readFileSync(path, 'utf8')) as unknown);
}

/** Writes text to stdout in large pieces, waiting for the pipe when it is full. */
function bufferedStdout(io: CommandIO): { write(text: string): Promise<void>; flush(): Promise<void> } {
  let buffer: string[] = [];
  let size = 0;
  const flush = async (): Promise<void> => {
    if (size === 0) return;
    io.stdout(buffer.join(''));
    buffer = [];
    size = 0;
    await io.drain?.();
  };
  return {
    async write(text) {
      buffer.push(text);
      size += text.length;
      if (size >= 1 << 16) await flush();
    },
    flush,
  };
}

function progressLine(io: CommandIO): ((p: Progress) => void) | undefined {
  if (io.stderrIsTTY !== true) return undefined;
  const start = performance.now();
  return (p) => {
    const seconds = (performance.now() - start) / 1000;
    io.stderr(`\rreplay: ${p.read.toLocaleString('en-US')} events read, ${p.decided.toLocaleString('en-US')} writes decided (${Math.round(p.read / Math.max(seconds, 0.001)).toLocaleString('en-US')} events/s)\u001b[K`);
  };
}

interface Inputs {
  /** the candidate's chain, then the baseline's */
  readonly loaded: readonly OfflineChain[];
  readonly seed: Array<[string, StoredObject]>;
  readonly scope: RegistrationScope;
  readonly scopeSpec: ScopeSpec;
}

/** Reads what the replay needs besides the logs; undefined (exit 2) after saying on stderr what does not read. */
async function loadInputs(flags: ReturnType<typeof parseFlags>, candidateSpec: ChainSpec, baselineSpec: ChainSpec | undefined, io: CommandIO): Promise<Inputs | undefined> {
  const registrationFile = flagString(flags, 'registration-file');
  const includeSystemNamespaces = flagBool(flags, 'include-system-namespaces');
  if (registrationFile !== '' && includeSystemNamespaces) throw new UsageError('--include-system-namespaces shapes the derived registration: it cannot be given with --registration-file');
  const logger = createLogger({ write: (line) => io.stderr(line + '\n'), source: 'replay' });
  const loaded: OfflineChain[] = [];
  try {
    for (const file of flags.positional) {
      if (!statSync(file).isFile()) throw new Error(`${file}: not a file`);
    }
    const seed = readNamespaces(flagString(flags, 'namespaces'));
    // loaded here first: a bad configuration is reported once, before any worker starts
    loaded.push(loadReplayChain(candidateSpec, logger));
    if (baselineSpec !== undefined) loaded.push(loadReplayChain(baselineSpec, logger));
    const gates = candidateSpec.featureGates === '' ? defaultFeatureGates : parseFeatureGates(candidateSpec.featureGates);
    const scopeSpec: ScopeSpec = { registrationFile, includeSystemNamespaces, excludeWebhookVirtualResources: gates.ExcludeAdmissionWebhookVirtualResources };
    return { loaded, seed, scope: RegistrationScope.from(scopeSpec, loaded[0]!.snapshots), scopeSpec };
  } catch (err) {
    await Promise.all(loaded.map((c) => c.close()));
    const where = err instanceof SyntaxError || err instanceof NamespacesFileError ? `--namespaces ${flagString(flags, 'namespaces')}: ` : '';
    io.stderr(`error: ${where}${(err as Error).message}\n`);
    return undefined;
  }
}

export async function replay(argv: readonly string[], io: CommandIO): Promise<number> {
  const flags = parseFlags(argv, replayFlags);
  if (flagBool(flags, 'help')) {
    io.stdout(usageText('static-admissiond replay --admission-config CANDIDATE [--baseline-admission-config CURRENT] [--namespaces FILE] [-o text|json|junit] AUDIT_LOG...', summary, replayFlags));
    return 0;
  }
  const output = flagString(flags, 'output');
  if (output !== 'text' && output !== 'json' && output !== 'junit') throw new UsageError(`invalid --output ${JSON.stringify(output)}: must be text, json or junit`);
  if (!flags.set.has('admission-config')) throw new UsageError('replay needs --admission-config: the candidate manifest set');
  if (flags.positional.length === 0) throw new UsageError('replay takes one or more audit log files');
  const workers = flagNumber(flags, 'workers');
  const maxObjects = flagNumber(flags, 'max-tracked-objects');
  if (workers < 0) throw new UsageError(`invalid --workers ${workers}: must be 0 or more`);
  if (maxObjects < 1) throw new UsageError(`invalid --max-tracked-objects ${maxObjects}: must be at least 1`);

  const candidateSpec = chainSpec(flags, flagString(flags, 'admission-config'));
  const baselineFile = flagString(flags, 'baseline-admission-config');
  const baselineSpec = baselineFile === '' ? undefined : chainSpec(flags, baselineFile);
  const inputs = await loadInputs(flags, candidateSpec, baselineSpec, io);
  if (inputs === undefined) return 2;
  const { loaded, seed, scope, scopeSpec } = inputs;

  const report = new ReplayReport(baselineSpec !== undefined, scope.source);
  const out = bufferedStdout(io);
  let first = true;
  if (output === 'json') await out.write('{"results":[');
  const onResult = async (r: EventResult): Promise<void> => {
    report.add(r);
    if (output !== 'json' || 'skip' in r) return;
    await out.write(`${first ? '\n' : ',\n'}${JSON.stringify(jsonEvent(r))}`);
    first = false;
  };
  let malformed = 0;
  let interrupted = false;
  const onProgress = progressLine(io);
  try {
    const perShard = Math.max(1, Math.ceil(maxObjects / Math.max(1, workers)));
    const totals = await runReplay({
      files: flags.positional,
      workers,
      ...(workers === 0
        ? { inline: new ReplayShard({ candidate: loaded[0]!, ...(loaded[1] === undefined ? {} : { baseline: loaded[1] }), scope, maxObjects, seed }) }
        : { workerData: { candidate: candidateSpec, ...(baselineSpec === undefined ? {} : { baseline: baselineSpec }), scope: scopeSpec, maxObjects: perShard, seed } }),
      onResult,
      onMalformed: (m) => {
        if (++malformed <= 5) io.stderr(`${onProgress ? '\n' : ''}warning: ${m.file}:${m.line}: skipped, not an audit event: ${m.malformed}\n`);
      },
      ...(onProgress === undefined ? {} : { onProgress }),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
    });
    if (totals.interrupted) io.stderr(`${onProgress ? '\n' : ''}replay: interrupted after ${totals.read.toLocaleString('en-US')} events; the report covers those\n`);
    interrupted = totals.interrupted;
    if (onProgress !== undefined) io.stderr('\n');
    report.read = totals.read;
    for (const [reason, n] of Object.entries(totals.skipped)) report.skipped[reason as keyof typeof report.skipped] = (report.skipped[reason as keyof typeof report.skipped] ?? 0) + n;
  } catch (err) {
    await out.flush();
    io.stderr(`error: ${(err as Error).message}\n`);
    return 2;
  } finally {
    await Promise.all(loaded.map((c) => c.close()));
  }
  if (malformed > 5) io.stderr(`warning: ${malformed} records in all were not audit events\n`);
  if (report.replayed === 0 && report.read > 0) io.stderr(`warning: nothing was replayed: ${nothingReplayed(report)}\n`);
  if (output === 'json') await out.write(`${first ? '' : '\n'}],\n"skipped":${JSON.stringify(jsonSkipped(report))},\n"notSent":${JSON.stringify(jsonNotSent(report))},\n"summary":${JSON.stringify(jsonSummary(report))}}\n`);
  else await out.write(output === 'junit' ? junitReport(report) : textReport(report));
  await out.flush();
  if (interrupted) return 130;
  return report.withBaseline && report.count('newly-denied') > 0 ? 1 : 0;
}
