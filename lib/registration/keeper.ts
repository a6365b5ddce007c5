// The serving side of the registration: after the initial load and after every good swap, say whether the
// registration in use (--registration-file) still sends what the loaded manifests can match (a log line and a
// gauge, with the objects named), and keep a static registration in the apiserver's staticManifestsDir in step
// (--write-registration DIR, for 1.36+ apiservers): written atomically, only ever from a snapshot that loaded.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../log/logger.js';
import type { PluginName } from '../manifest/plugins.js';
import type { RegistrationMetrics } from '../metrics/registration.js';
import { registrationSides, sideCoverage, sidePlugins } from './coverage.js';
import type { LoadedPlugin, RegistrationSide } from './coverage.js';
import { readRegistrationFile, uncoveredObjects } from './drift.js';
import type { UncoveredObject } from './drift.js';
import { deriveRegistration } from './objects.js';
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
  readonly breakGlassGroup?: string;
  readonly metrics?: RegistrationMetrics;
  readonly logger: Logger;
}

/** Per configured plugin: the loaded objects the registration does not send for. */
export type DriftResult = ReadonlyMap<PluginName, readonly UncoveredObject[]>;

export function driftAgainst(file: string, loaded: readonly LoadedPlugin[], plugins: readonly PluginName[],
  options: Pick<RegistrationOptions, 'excludeWebhookVirtualResources'> = {}): DriftResult {
  const registered = readRegistrationFile(file);
  const result = new Map<PluginName, UncoveredObject[]>();
  for (const side of registrationSides) {
    const uncovered = uncoveredObjects(sideCoverage(side, loaded, options), registered[side]);
    for (const plugin of sidePlugins[side]) {
      if (plugins.includes(plugin)) result.set(plugin, uncovered.filter((u) => u.plugin === plugin));
    }
  }
  return result;
}

export class RegistrationKeeper {
  readonly #options: RegistrationKeeperOptions;
  #lastDrift = '';

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
    const summary = JSON.stringify([...drift]);
    const changed = summary !== this.#lastDrift;
    this.#lastDrift = summary;
    for (const [plugin, uncovered] of drift) {
      this.#options.metrics?.setUncovered(plugin, uncovered.length);
      if (!always && !changed) continue;
      if (uncovered.length === 0) {
        log.info('Registration sends every request the loaded manifests can match', { plugin, registration: file });
      } else {
        log.error(new Error(`${uncovered.length} loaded object(s) can match requests the registration does not send; they are not enforced`),
          'Registration is out of date: print it again with `static-admissiond registration` and apply it', {
            plugin,
            registration: file,
            objects: uncovered.map((u) => u.owner),
            missing: uncovered.flatMap((u) => u.missing.map((m) => `${u.owner}: ${m}`)).slice(0, 20),
          });
      }
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
        : renderRegistration({ ...registration, sides: [side] }, this.#options.breakGlassGroup ?? ''));
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
