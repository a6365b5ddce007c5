// The serving side of the registration: after the initial load, after every good swap and whenever the registration
// file changes (watched as the manifests are), say whether the registration in use (--registration-file) still sends
// what the loaded manifests can match, and nothing more (log lines and gauges, naming the objects and the requests,
// and the commands that fix it), and keep a static registration in the apiserver's staticManifestsDir in step
// (--write-registration DIR, for 1.36+ apiservers): written atomically, only ever from a snapshot that loaded.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger } from '../log/logger.js';
import type { PluginName } from '../manifest/plugins.js';
import type { RegistrationMetrics } from '../metrics/registration.js';
import { watchFile } from '../reload/file-watch.js';
import type { LoadedPlugin, RegistrationSide } from './coverage.js';
import { driftAgainst } from './drift.js';
import type { DriftResult } from './drift.js';
import { defaultBreakGlassGroup, defaultRegistrarGroup, registrarApplyCommand } from './guard.js';
import { defaultRegistrationTimeoutSeconds, defaultRegistrationURL, deriveRegistration } from './objects.js';
import type { PrintedWith } from './registered.js';
import type { RegistrationOptions } from './objects.js';
import { renderRegistration } from './render.js';

export const writtenRegistrationFile = 'static-admissiond.yaml';

export interface RegistrationKeeperOptions {
  /** the configured plugins' current snapshots */
  readonly loaded: () => readonly LoadedPlugin[];
  readonly plugins: readonly PluginName[];
  readonly registrationFile?: string;
  readonly writeDir?: string;
  /** url and caBundle (and the rest) of the written static registration */
  readonly registration: Omit<RegistrationOptions, 'format' | 'only'>;
  /** the --admission-config the daemon runs with, named in the command that prints the registration again */
  readonly admissionConfig?: string;
  readonly metrics?: RegistrationMetrics;
  readonly logger: Logger;
}

/**
 * What an operator runs to bring the registration in `file` in step with the loaded manifests: the `registration`
 * command with the flags the file was printed with (the CA file aside: the file holds only its contents), and the
 * apply.
 */
export function registrationUpdateCommands(file: string, admissionConfig: string, printed: PrintedWith): { print: string; apply: string } {
  const flags: string[] = [];
  // --dev runs name no file ('(--dev)')
  if (admissionConfig !== '' && !admissionConfig.startsWith('(')) flags.push(`--admission-config ${admissionConfig}`);
  if (printed.url !== undefined && printed.url !== defaultRegistrationURL) flags.push(`--url ${printed.url}`);
  flags.push('--ca-file <CA of the serving certificate>');
  if (printed.format === 'api') flags.push(`--format api --kube-version ${printed.kubeVersion ?? '<apiserver version>'}`);
  if (printed.includeSystemNamespaces) flags.push('--include-system-namespaces');
  if (printed.timeoutSeconds !== undefined && printed.timeoutSeconds !== defaultRegistrationTimeoutSeconds) flags.push(`--timeout-seconds ${printed.timeoutSeconds}`);
  if (printed.registrarGroup !== undefined && printed.registrarGroup !== defaultRegistrarGroup) flags.push(`--registrar-group ${printed.registrarGroup}`);
  if (printed.breakGlassGroup !== undefined && printed.breakGlassGroup !== defaultBreakGlassGroup) flags.push(`--break-glass-group ${printed.breakGlassGroup}`);
  return {
    print: `static-admissiond registration ${flags.join(' ')} > ${file}`,
    apply: printed.format === 'static'
      ? 'copy each document into the apiserver\'s webhook staticManifestsDir, or run serve with --write-registration'
      : registrarApplyCommand(file, printed.registrarGroup),
  };
}

export class RegistrationKeeper {
  readonly #options: RegistrationKeeperOptions;
  #lastDrift = '';
  /** configuration kinds whose excess was last reported, for the all-clear */
  readonly #excessReported = new Set<string>();

  constructor(options: RegistrationKeeperOptions) {
    this.#options = options;
  }

  /** At startup: an unreadable registration file or directory is an error the caller reports. */
  start(): void {
    this.#checkDrift(true, true);
    this.#write(true);
  }

  /** After a reload event: `swapped` when a new snapshot was swapped in. */
  onReload(swapped: boolean): void {
    this.#checkDrift(swapped, false);
    if (swapped) this.#write(false);
  }

  /** Follows the registration file until `signal` aborts: each change of it is checked at once. */
  async watch(signal: AbortSignal, intervalMs: number): Promise<void> {
    const file = this.#options.registrationFile;
    if (file === undefined || file === '') return;
    await watchFile({ file, intervalMs, onChange: () => this.#checkDrift(true, false), logger: this.#options.logger }, signal);
  }

  #checkDrift(always: boolean, strict: boolean): void {
    const file = this.#options.registrationFile;
    if (file === undefined || file === '') return;
    const log = this.#options.logger;
    let drift: DriftResult;
    try {
      drift = driftAgainst(file, this.#options.loaded(), this.#options.plugins, this.#options.registration);
    } catch (err) {
      if (strict) throw err;
      log.error(err, 'Failed to check the registration against the loaded manifests', { registration: file });
      return;
    }
    const summary = JSON.stringify([[...drift.uncovered], [...drift.excess]]);
    const changed = summary !== this.#lastDrift;
    this.#lastDrift = summary;
    for (const [plugin, uncovered] of drift.uncovered) this.#options.metrics?.setUncovered(plugin, uncovered.length);
    for (const [kind, webhooks] of drift.excess) this.#options.metrics?.setExcess(kind, webhooks.reduce((n, w) => n + w.excess.length, 0));
    if (!always && !changed) return;
    // the daemon's working directory is no operator's: the commands name the file absolutely
    const { print, apply } = registrationUpdateCommands(resolve(file), this.#options.admissionConfig ?? '', drift.printedWith);
    for (const [plugin, uncovered] of drift.uncovered) {
      if (uncovered.length === 0) {
        log.info('Registration sends every request the loaded manifests can match', { plugin, registration: file });
        continue;
      }
      log.error(new Error(`${uncovered.length} loaded object(s) can match requests the registration does not send; they are not enforced`),
        'Registration is out of date: print it again and apply it', {
          plugin,
          registration: file,
          objects: uncovered.map((u) => u.owner),
          missing: uncovered.flatMap((u) => u.missing.map((m) => `${u.owner}: ${m}`)).slice(0, 20),
          print,
          apply,
        });
    }
    for (const [kind, webhooks] of drift.excess) {
      if (webhooks.length === 0) {
        if (this.#excessReported.delete(kind)) log.info('Registration no longer sends requests the loaded manifests cannot match', { kind, registration: file });
        continue;
      }
      this.#excessReported.add(kind);
      const excess = webhooks.flatMap((w) => w.excess.map((e) => `webhook ${JSON.stringify(w.webhook)}: ${e}`));
      log.error(new Error(`the registration's ${kind} sends ${excess.length} kind(s) of request no loaded object can match; with the daemon stopped they are blocked for nothing`),
        'Registration sends more than the loaded manifests need: print it again and apply it', {
          kind,
          registration: file,
          excess: excess.slice(0, 20),
          print,
          apply,
        });
    }
  }

  #write(strict: boolean): void {
    const dir = this.#options.writeDir;
    if (dir === undefined || dir === '') return;
    const log = this.#options.logger;
    try {
      const registration = deriveRegistration(this.#options.loaded(), { ...this.#options.registration, format: 'static' });
      for (const side of registration.sides) this.#writeSide(join(dir, side.side), side.side, side.configuration === undefined
        ? undefined
        : renderRegistration({ ...registration, sides: [side] }));
    } catch (err) {
      if (strict) throw err;
      log.error(err, 'Failed to write the static registration', { dir });
    }
  }

  #writeSide(dir: string, side: RegistrationSide, text: string | undefined): void {
    const file = join(dir, writtenRegistrationFile);
    let current: string | undefined;
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      current = undefined;
    }
    if (current === text) return;
    if (text === undefined) {
      rmSync(file, { force: true });
      this.#options.logger.info('Removed the static registration: nothing loaded can match a request', { side, file });
      return;
    }
    mkdirSync(dir, { recursive: true });
    // a name the apiserver's loader skips (no .yaml extension) until the rename makes the whole file appear at once
    const temp = join(dir, `.${writtenRegistrationFile}.${process.pid}.tmp`);
    writeFileSync(temp, text, { mode: 0o644 });
    renameSync(temp, file);
    this.#options.logger.info('Wrote the static registration', { side, file });
  }
}
