// What serve logs once per load of a plugin's directory, besides the load itself: the entries the load skipped and
// the warnings of the loaded configuration (manifest warnings, authorizer use, type checking), and the type-check
// gauge. A pure read of the snapshot and the directory: it changes nothing that loads.
import type { SchemaSource } from '../cel/index.js';
import type { Logger } from '../log/logger.js';
import { describeIgnored, ignoredEntries } from '../manifest/ignored.js';
import { pluginKinds } from '../manifest/plugins.js';
import { formatTypeCheckWarning, formatUnknownResources, typeCheckManifests } from '../manifest/type-check.js';
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

export function reportLoad(snapshot: Snapshot, options: LoadReportOptions): void {
  const { plugin, dir } = snapshot;
  const { log } = options;
  for (const line of describeIgnored(ignoredEntries(dir))) log.info('Manifest directory entry skipped', { plugin, dir, entry: line });
  const kinds = pluginKinds[plugin];
  const typeCheck = typeCheckManifests(kinds.primary, snapshot.manifests, options.schemas);
  const warnings = [
    ...manifestWarnings(kinds.primary, kinds.binding, snapshot.manifests, { excludeWebhookVirtualResources: options.excludeWebhookVirtualResources }),
    ...authorizerWarnings(snapshot.compiled, options.authorizationConfigured),
    ...typeCheck.warnings.map(formatTypeCheckWarning),
  ];
  for (const warning of warnings) log.info('Manifest warning', { plugin, warning });
  for (const note of formatUnknownResources(typeCheck)) log.info('Manifest note', { plugin, note });
  options.metrics.record(plugin, typeCheck.warnings.length);
}
