// kube-apiserver's admission webhook metrics, same names, help, buckets and labels
// (S/admission/metrics/metrics.go), so the KEP's rollback signals (`name=~".*\\.static\\.k8s\\.io"`) and dashboards
// built for the apiserver work when Prometheus scrapes this daemon:
//   apiserver_admission_webhook_admission_duration_seconds{name,type,operation,rejected}
//   apiserver_admission_webhook_request_total{name,type,operation,code,rejected}
//   apiserver_admission_webhook_rejection_count{name,type,operation,error_type,rejection_code}
//   apiserver_admission_webhook_fail_open_count{name,type}
//   apiserver_admission_match_condition_evaluation_errors_total / _exclusions_total{name,kind="webhook",type,operation}
// `type` is "validating" or "admit"; codes above 600 are recorded as 600, as upstream bounds them.
//
// Every webhook call records two or three series, so recording must be cheap: prom-client hashes the label set on
// every inc/observe, while here a record is one map lookup and a few additions, and the text is produced only when
// Prometheus scrapes (lib/metrics/aggregated.ts).
import type { Registry } from 'prom-client';
import { AggregatedMetric, CounterSeries, HistogramSeries, registerAggregated } from '../metrics/aggregated.js';

export type WebhookType = 'validating' | 'admit';
export type RejectionErrorType = 'calling_webhook_error' | 'apiserver_internal_error' | 'no_error';

export interface WebhookMetrics {
  /** ObserveWebhook: one finished call (duration and request total) */
  observeWebhook(name: string, type: WebhookType, operation: string, rejected: boolean, code: number, seconds: number): void;
  /** ObserveWebhookRejection */
  observeRejection(name: string, type: WebhookType, operation: string, errorType: RejectionErrorType, code: number): void;
  /** ObserveWebhookFailOpen */
  observeFailOpen(name: string, type: WebhookType): void;
  /** ObserveMatchConditionEvalError: one matchCondition of the webhook failed to evaluate */
  observeMatchConditionEvalError(name: string, type: WebhookType, operation: string): void;
  /** ObserveMatchConditionExclusion: the webhook was not called because its matchConditions did not match */
  observeMatchConditionExclusion(name: string, type: WebhookType, operation: string): void;
}

export const webhookDurationBuckets = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25] as const;

const bound = (code: number): string => String(code > 600 ? 600 : code);

const byRegistry = new WeakMap<Registry, WebhookMetrics>();

/** The four metrics in `registry` (one set per registry, shared by both webhook plugins). */
export function createWebhookMetrics(registry: Registry): WebhookMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const durationName = 'apiserver_admission_webhook_admission_duration_seconds';
  const duration = new HistogramSeries(durationName, ['name', 'type', 'operation', 'rejected'], webhookDurationBuckets);
  const requests = new CounterSeries(['name', 'type', 'operation', 'code', 'rejected']);
  const rejections = new CounterSeries(['name', 'type', 'operation', 'error_type', 'rejection_code']);
  const failOpen = new CounterSeries(['name', 'type']);
  const matchConditionErrors = new CounterSeries(['name', 'kind', 'type', 'operation']);
  const matchConditionExclusions = new CounterSeries(['name', 'kind', 'type', 'operation']);
  const metrics = [
    new AggregatedMetric(durationName,
      '[STABLE] Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
      'histogram', () => duration.values()),
    new AggregatedMetric('apiserver_admission_webhook_request_total',
      '[ALPHA] Admission webhook request total, identified by name and broken out for each admission type (validating or mutating) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
      'counter', () => requests.values()),
    new AggregatedMetric('apiserver_admission_webhook_rejection_count',
      '[ALPHA] Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
      'counter', () => rejections.values()),
    new AggregatedMetric('apiserver_admission_webhook_fail_open_count',
      '[ALPHA] Admission webhook fail open count, identified by name and broken out for each admission type (validating or mutating).',
      'counter', () => failOpen.values()),
    new AggregatedMetric('apiserver_admission_match_condition_evaluation_errors_total',
      '[ALPHA] Admission match condition evaluation errors count, identified by name of resource containing the match condition and broken out for each kind containing matchConditions (webhook or policy), operation and admission type (validate or admit).',
      'counter', () => matchConditionErrors.values()),
    new AggregatedMetric('apiserver_admission_match_condition_exclusions_total',
      '[ALPHA] Admission match condition evaluation exclusions count, identified by name of resource containing the match condition and broken out for each kind containing matchConditions (webhook or policy), operation and admission type (validate or admit).',
      'counter', () => matchConditionExclusions.values()),
  ];
  registerAggregated(registry, metrics);
  const recorder: WebhookMetrics = {
    observeWebhook(name, type, operation, rejected, code, seconds) {
      const r = rejected ? 'true' : 'false';
      requests.inc([name, type, operation, bound(code), r]);
      duration.observe([name, type, operation, r], seconds);
    },
    observeRejection(name, type, operation, errorType, code) {
      rejections.inc([name, type, operation, errorType, bound(code)]);
    },
    observeFailOpen(name, type) {
      failOpen.inc([name, type]);
    },
    // kind "webhook" and the webhook's type, as generic/webhook.go ShouldCallHook records them
    observeMatchConditionEvalError(name, type, operation) {
      matchConditionErrors.inc([name, 'webhook', type, operation]);
    },
    observeMatchConditionExclusion(name, type, operation) {
      matchConditionExclusions.inc([name, 'webhook', type, operation]);
    },
  };
  byRegistry.set(registry, recorder);
  return recorder;
}

/** Metrics that record nothing (the `review` command, tests that do not look). */
export const noWebhookMetrics: WebhookMetrics = {
  observeWebhook() {},
  observeRejection() {},
  observeFailOpen() {},
  observeMatchConditionEvalError() {},
  observeMatchConditionExclusion() {},
};
