// What serve logs once per load of a plugin's directory, besides the load itself: the entries the load skipped and
// the warnings of the loaded configuration (manifest warnings, authorizer use, type checking), and the type-check
// gauge. A pure read of the snapshot and the directory: it changes nothing that loads.
import type { SchemaSource } from '../cel/index.js';
import type { Logger } from '../log/logger.js';
import { describeIgnored, ignoredEntries } from '../manifest/ignored.js';
import { pluginKinds } from '../manifest/plugins.js';
import { formatTypeCheckWarning, formatUnknownResources, typeCheckManifests, typeCheckManifestsSliced } from '../manifest/type-check.js';
import type { TypeCheckReport } from '../manifest/type-check.js';
import { authorizerWarnings, manifestWarnings } from '../manifest/warnings.js';
import type { TypeCheckMetrics } from '../metrics/type-check.js';
import type { Snapshot } from '../reload/snapshot.js';

export interface LoadReportOptions {
  readonly excludeWebhookVirtualResources: boolean;
  readonly authorizationConfigured: boolean;
  readonly schemas: SchemaSource | undefined;
  readonly metrics: TypeCheckMetrics;
  readonly log: Logger;
}

/** The report of the initial load, before anything is served. */
export function reportLoad(snapshot: Snapshot, options: LoadReportOptions): void {
  report(snapshot, options, typeCheckManifests(pluginKinds[snapshot.plugin].primary, snapshot.manifests, options.schemas));
}

const latest = new WeakMap<LoadReportOptions, Map<string, Snapshot>>();

/**
 * The report of a reload while serving: the type check runs in slices (a large set takes tens of milliseconds), and
 * only the latest snapshot of a plugin is reported when reloads overtake each other.
 */
export async function reportReload(snapshot: Snapshot, options: LoadReportOptions): Promise<void> {
  let byPlugin = latest.get(options);
  if (byPlugin === undefined) latest.set(options, (byPlugin = new Map()));
  byPlugin.set(snapshot.plugin, snapshot);
  const typeCheck = await typeCheckManifestsSliced(pluginKinds[snapshot.plugin].primary, snapshot.manifests, options.schemas);
  if (byPlugin.get(snapshot.plugin) === snapshot) report(snapshot, options, typeCheck);
}

function report(snapshot: Snapshot, options: LoadReportOptions, typeCheck: TypeCheckReport): void {
  const { plugin, dir } = snapshot;
  const { log } = options;
  for (const line of describeIgnored(ignoredEntries(dir))) log.info('Manifest directory entry skipped', { plugin, dir, entry: line });
  const kinds = pluginKinds[plugin];
  const warnings = [
    ...manifestWarnings(kinds.primary, kinds.binding, snapshot.manifests, { excludeWebhookVirtualResources: options.excludeWebhookVirtualResources }),
    ...authorizerWarnings(snapshot.compiled, options.authorizationConfigured),
    ...typeCheck.warnings.map(formatTypeCheckWarning),
  ];
  for (const warning of warnings) log.info('Manifest warning', { plugin, warning });
  for (const note of formatUnknownResources(typeCheck)) log.info('Manifest note', { plugin, note });
  options.metrics.record(plugin, typeCheck.warnings.length);
}
