// `static-admissiond test`: runs AdmissionTest suites (docs/testing-policies.md) through the admission chain the
// daemon serves, loaded once per suite. Exit 0 when every case passes, 1 when any fails, 2 when a suite cannot run
// (a bad suite, configuration or manifest directory) or the command line is wrong.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RE2JS } from 're2js';
import { createLogger } from '../log/logger.js';
import { SuiteError } from '../testsuite/fields.js';
import { jsonReport, junitReport, textReport, totals } from '../testsuite/report.js';
import type { SuiteReport } from '../testsuite/report.js';
import { admissionSetupOf, prepareSuite, runCases } from '../testsuite/run.js';
import { readSuite } from '../testsuite/suite.js';
import { loadOfflineChain } from '../review/chain.js';
import type { Endpoint } from '../review/chain.js';
import { authorizationClientFrom, authorizationFlag, crdFlag } from './common.js';
import type { SchemaSource } from '../cel/index.js';
import { schemaSourceFor } from '../manifest/crds.js';
import { pluginKinds } from '../manifest/plugins.js';
import { formatTypeCheckWarning, typeCheckManifests } from '../manifest/type-check.js';
import type { CommandIO } from './common.js';
import { flagBool, flagString, helpFlag, parseFlags, UsageError, usageText } from './flags.js';
import type { FlagSpec, ParsedFlags } from './flags.js';

export const testFlags: readonly FlagSpec[] = [
  { name: 'output', short: 'o', type: 'string', default: 'text', usage: 'text, junit (JUnit XML) or json' },
  { name: 'skip-webhooks', type: 'boolean', default: false, usage: 'do not call the static webhooks (policies only)' },
  { name: 'run', type: 'string', default: '', usage: 'run only the cases whose name matches this regular expression (RE2)' },
  authorizationFlag,
  crdFlag,
  helpFlag,
];

/** Suite files found in a directory, recursively: `admission-test.yaml` or `*.admission-test.yaml` (or `.yml`). */
export function isSuiteFileName(name: string): boolean {
  return /(^|\.)admission-test\.ya?ml$/.test(name);
}

function suiteFiles(path: string): string[] {
  let info;
  try {
    info = statSync(path);
  } catch (err) {
    throw new UsageError(`${path}: ${(err as Error).message}`);
  }
  if (!info.isDirectory()) return [path];
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.')) walk(join(dir, entry.name));
      else if (entry.isFile() && isSuiteFileName(entry.name)) found.push(join(dir, entry.name));
    }
  };
  walk(path);
  if (found.length === 0) throw new UsageError(`no suite file (admission-test.yaml or *.admission-test.yaml) under ${path}`);
  return found;
}

interface RunOptions {
  readonly skipWebhooks: boolean;
  readonly run: RE2JS | undefined;
  /** the command's flags: --authorization-kubeconfig is read per suite, as each suite's chain closes its client */
  readonly flags: ParsedFlags;
  readonly io: CommandIO;
  readonly schemas: SchemaSource;
  /** type-check warnings of the configurations the suites loaded, each once */
  readonly warnings: Set<string>;
}

async function runSuite(file: string, options: RunOptions): Promise<SuiteReport> {
  const start = performance.now();
  let name = file;
  try {
    const suite = readSuite(file);
    name = suite.name;
    const selected = options.run === undefined ? suite.cases : suite.cases.filter((c) => options.run!.matcher(c.name).find());
    const prepared = prepareSuite({ ...suite, cases: selected });
    const setup = admissionSetupOf(suite);
    const endpoints = new Set<Endpoint>(selected.flatMap((c) => (c.endpoint === 'admission' ? ['mutate', 'validate'] as const : [c.endpoint])));
    let chain;
    let authorization;
    try {
      authorization = authorizationClientFrom(options.flags);
      chain = loadOfflineChain(setup, {
        endpoints: [...endpoints],
        skipWebhooks: options.skipWebhooks,
        gates: suite.gates,
        logger: createLogger({ write: (line) => options.io.stderr(line + '\n'), source: 'test' }),
        ...(authorization === undefined ? {} : { authorization }),
      });
    } catch (err) {
      await authorization?.close();
      throw new SuiteError(file, `admission: ${(err as Error).message}`);
    }
    for (const [plugin, snapshot] of chain.snapshots) {
      for (const w of typeCheckManifests(pluginKinds[plugin].primary, snapshot.manifests, options.schemas).warnings) options.warnings.add(`warning: ${plugin}: ${formatTypeCheckWarning(w)}\n`);
    }
    try {
      const cases = await runCases(prepared, chain);
      return { file, name, cases, durationMs: performance.now() - start };
    } finally {
      await chain.close();
    }
  } catch (err) {
    if (err instanceof SuiteError) return { file, name, error: err.message, cases: [], durationMs: performance.now() - start };
    throw err;
  }
}

export async function test(argv: readonly string[], io: CommandIO): Promise<number> {
  const flags = parseFlags(argv, testFlags);
  if (flagBool(flags, 'help')) {
    io.stdout(usageText('static-admissiond test [-o text|junit|json] [--skip-webhooks] [--run REGEXP] [--authorization-kubeconfig K] SUITE|DIR...',
      'Runs AdmissionTest suites through the admission chain the daemon serves. A directory is searched for admission-test.yaml and *.admission-test.yaml files. Exit 0 all cases passed, 1 a case failed, 2 a suite could not run or on a usage error.', testFlags));
    return 0;
  }
  const output = flagString(flags, 'output');
  if (output !== 'text' && output !== 'junit' && output !== 'json') throw new UsageError(`invalid --output ${JSON.stringify(output)}: must be text, junit or json`);
  if (flags.positional.length === 0) throw new UsageError('test takes one or more suite files or directories');
  let run: RE2JS | undefined;
  if (flagString(flags, 'run') !== '') {
    try {
      run = RE2JS.compile(flagString(flags, 'run'));
    } catch (err) {
      throw new UsageError(`invalid --run: ${(err as Error).message}`);
    }
  }
  const files = flags.positional.flatMap(suiteFiles);
  let schemas: SchemaSource;
  try {
    schemas = schemaSourceFor(flagString(flags, 'crd'));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const reports: SuiteReport[] = [];
  const warnings = new Set<string>();
  for (const file of files) reports.push(await runSuite(file, { skipWebhooks: flagBool(flags, 'skip-webhooks'), run, flags, io, schemas, warnings }));
  // above the results; on stderr where stdout is a JUnit or JSON document
  for (const w of warnings) (output === 'text' ? io.stdout : io.stderr)(w);
  io.stdout(output === 'junit' ? junitReport(reports) : output === 'json' ? jsonReport(reports) : textReport(reports));
  const t = totals(reports);
  return t.errors > 0 ? 2 : t.failed > 0 ? 1 : 0;
}
