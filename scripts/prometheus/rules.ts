/**
 * The engine's alert rules and the queries they stand on: one source for deploy/prometheus/alerts.yml
 * (compose's Prometheus and the cluster's load it), the dashboard (dashboard.ts) and the runbooks in
 * docs/production.md ("Alerts"). Thresholds are settings: `npm run prometheus -- --set blockedFor=4h`
 * writes the rules with other values; the rule tests (deploy/prometheus/alerts.test.yml) use the defaults.
 */

/** A Prometheus duration of one unit (`90s`, `15m`, `26h`, `7d`). */
export type PromDuration = `${number}${'s' | 'm' | 'h' | 'd'}`;

export interface AlertThresholds {
  /** An application stays `blocked` (waiting for staff) this long: `EcaApplicationsBlocked`. */
  blockedFor: PromDuration;
  /** An application stays `unconfirmed` (a write in doubt for staff) this long: `EcaApplicationsUnconfirmed`. */
  unconfirmedFor: PromDuration;
  /** No successful status sweep of a firm for this long: `EcaSweepLate` (three slots of the default 5 minutes). */
  sweepLateAfter: PromDuration;
  /** A firm's sweep attempts keep failing for this long: `EcaSweepFailing`. */
  sweepFailingFor: PromDuration;
  /** Share of one operation's brokerage calls that fail with one outcome (HTTP class, timeout...). */
  brokerageErrorRatio: number;
  /** Calls per second of an operation below which its error share is not judged (a handful of calls). */
  brokerageMinCallRate: number;
  /** How long the error share must hold: `EcaBrokerageCallsFailing`. */
  brokerageErrorsFor: PromDuration;
  /** A worker's metrics endpoint unreachable this long: `EcaWorkerDown`. */
  workerDownFor: PromDuration;
  /** A worker up but without a workflow task poll answered this long: `EcaWorkerNotPolling`. */
  notPollingFor: PromDuration;
  /** Workflow tasks failing (non-determinism, a bug, a missing codec key) this long: `EcaWorkflowTaskFailures`. */
  workflowTaskFailuresFor: PromDuration;
  /** No daily documents recorded for a firm for this long: `EcaDailyDocumentsLate` (a day and two hours). */
  dailyDocumentsLateAfter: PromDuration;
  /** An onboarding API replica's metrics endpoint unreachable this long: `EcaApiDown`. */
  apiDownFor: PromDuration;
  /** Share of a route's requests the onboarding API answers with a 5xx problem (TIMEOUT, TEMPORAL_UNAVAILABLE...). */
  apiErrorRatio: number;
  /** Requests per second of a route below which its error share is not judged. */
  apiMinRequestRate: number;
  /** How long the error share must hold: `EcaApiErrors`. */
  apiErrorsFor: PromDuration;
  /** The window of rates and increases. */
  rateWindow: PromDuration;
}

export const DEFAULT_THRESHOLDS: AlertThresholds = {
  blockedFor: '1h',
  unconfirmedFor: '1h',
  sweepLateAfter: '15m',
  sweepFailingFor: '15m',
  brokerageErrorRatio: 0.1,
  brokerageMinCallRate: 0.01,
  brokerageErrorsFor: '10m',
  workerDownFor: '2m',
  notPollingFor: '5m',
  workflowTaskFailuresFor: '10m',
  dailyDocumentsLateAfter: '26h',
  apiDownFor: '2m',
  apiErrorRatio: 0.05,
  apiMinRequestRate: 0.01,
  apiErrorsFor: '10m',
  rateWindow: '5m',
};

/** How far back a last-success time is looked for, so that it outlives the restart of the worker that set it. */
const LAST_SUCCESS_LOOKBACK = '7d';

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

export class ThresholdError extends Error {
  override readonly name = 'ThresholdError';
}

export function durationSeconds(duration: string): number {
  const match = /^(\d+)([smhd])$/.exec(duration);
  if (!match) throw new ThresholdError(`"${duration}" is not a duration such as 90s, 15m, 26h or 7d`);
  return Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS];
}

/** Thresholds with `name=value` settings applied, each checked (a typo names the setting and the known ones). */
export function thresholdsWith(
  settings: readonly string[],
  base: AlertThresholds = DEFAULT_THRESHOLDS,
): AlertThresholds {
  const thresholds: Record<string, string | number> = { ...base };
  for (const setting of settings) {
    const [name, value] = setting.split(/=(.*)/s) as [string, string | undefined];
    if (!(name in base) || value === undefined) {
      throw new ThresholdError(`"${setting}" is not name=value with a known name (${Object.keys(base).join(', ')})`);
    }
    if (typeof base[name as keyof AlertThresholds] === 'number') {
      const number = Number(value);
      if (!(number > 0)) throw new ThresholdError(`${name} must be a positive number, got "${value}"`);
      thresholds[name] = number;
    } else {
      durationSeconds(value);
      thresholds[name] = value;
    }
  }
  return thresholds as unknown as AlertThresholds;
}

/**
 * The queries of the rules and the dashboard, by the names the dashboard's panels use. The metric names
 * are the ones workers/metrics.ts, the SDK and the Temporal server export: a rename fails the rule tests.
 */
export function queries(t: AlertThresholds) {
  const w = t.rateWindow;
  const callRate = `sum by (operation) (rate(eca_brokerage_calls[${w}]))`;
  const apiRate = `sum by (route) (rate(eca_api_requests[${w}]))`;
  const polls = (answer: 'succeed' | 'empty') =>
    `sum by (instance) (rate(temporal_workflow_task_queue_poll_${answer}{job="eca-worker"}[${w}]))`;
  return {
    /** The same count on every replica (counted from visibility): `max`, never `sum`. */
    applicationsByState: 'max by (lifecycle_state) (eca_applications)',
    applicationsInState: (state: string) => `max(eca_applications{lifecycle_state="${state}"})`,
    brokerageCalls: `sum by (operation, outcome) (rate(eca_brokerage_calls[${w}]))`,
    brokerageErrorShare:
      `sum by (operation, outcome) (rate(eca_brokerage_calls{outcome!="ok"}[${w}]))` +
      ` / ignoring (outcome) group_left ${callRate}`,
    brokerageCallRate: callRate,
    brokerageLatencyP99: `histogram_quantile(0.99, sum by (operation, le) (rate(eca_brokerage_call_duration_ms_bucket[${w}])))`,
    sweepAgeSeconds: `time() - max by (csid) (max_over_time(eca_sweep_last_success_seconds[${LAST_SUCCESS_LOOKBACK}]))`,
    sweepFailures: `sum by (csid) (increase(eca_sweep_slots{outcome="failed"}[${w}]))`,
    sweepSuccesses: `sum by (csid) (increase(eca_sweep_slots{outcome="ok"}[${w}]))`,
    sweepDurationP99: `histogram_quantile(0.99, sum by (csid, le) (rate(eca_sweep_duration_ms_bucket[${w}])))`,
    sweepCallsPerSlot: `sum by (csid) (increase(eca_sweep_brokerage_calls[${w}])) / sum by (csid) (increase(eca_sweep_slots{outcome="ok"}[${w}]))`,
    configurationErrors: `sum by (instance, kind) (increase(eca_configuration_errors[${w}]))`,
    workersUp: 'up{job="eca-worker"}',
    /**
     * Workflow task polls answered, with a task or empty (an idle worker's long polls end empty about every
     * minute); either counter may not exist yet on a worker, hence `(S + E) or S or E`.
     */
    workflowTaskPolls: `(${polls('succeed')} + ${polls('empty')}) or ${polls('succeed')} or ${polls('empty')}`,
    workflowTaskFailures: `sum by (instance, workflow_type) (increase(temporal_workflow_task_execution_failed[${w}]))`,
    workflowTaskLatencyP99: `histogram_quantile(0.99, sum by (le) (rate(temporal_workflow_task_schedule_to_start_latency_bucket[${w}])))`,
    startToOpenP50: `histogram_quantile(0.5, sum by (le) (rate(temporal_workflow_endtoend_latency_bucket{workflow_type="accountApplication"}[1h])))`,
    dailyDocumentsAgeSeconds: `time() - max by (csid) (max_over_time(eca_daily_documents_recorded_seconds[${LAST_SUCCESS_LOOKBACK}]))`,
    scheduleMissedCatchup: 'sum by (namespace) (increase(schedule_missed_catchup_window[1h]))',
    apisUp: 'up{job="eca-api"}',
    apiRequests: `sum by (route, status) (rate(eca_api_requests[${w}]))`,
    apiRequestRate: apiRate,
    apiErrorShare:
      `sum by (route, code) (rate(eca_api_requests{status=~"5.."}[${w}]))` + ` / ignoring (code) group_left ${apiRate}`,
    apiLatencyP99: `histogram_quantile(0.99, sum by (route, le) (rate(eca_api_request_duration_ms_bucket[${w}])))`,
  };
}

export interface AlertRule {
  alert: string;
  expr: string;
  for?: PromDuration;
  labels: { severity: 'critical' | 'warning' };
  annotations: { summary: string; description: string; runbook_url: string };
}

/** The anchor of an alert's runbook entry in docs/production.md (its heading is the alert's name). */
export function runbookAnchor(alert: string): string {
  return `docs/production.md#${alert.toLowerCase()}`;
}

function rule(
  alert: string,
  fields: Omit<AlertRule, 'alert' | 'annotations'> & { summary: string; description: string },
): AlertRule {
  const { summary, description, ...rest } = fields;
  return { alert, ...rest, annotations: { summary, description, runbook_url: runbookAnchor(alert) } };
}

export function alertRules(t: AlertThresholds = DEFAULT_THRESHOLDS): AlertRule[] {
  const q = queries(t);
  return [...engineRules(t, q), ...platformRules(t, q), ...apiRules(t, q)];
}

type Queries = ReturnType<typeof queries>;

/** The applications, the firm's sweep and the brokerage. */
function engineRules(t: AlertThresholds, q: Queries): AlertRule[] {
  return [
    rule('EcaApplicationsBlocked', {
      expr: `${q.applicationsInState('blocked')} > 0`,
      for: t.blockedFor,
      labels: { severity: 'warning' },
      summary: 'Applications have waited in blocked for staff for over ' + t.blockedFor,
      description:
        '{{ $value }} application(s) are blocked: a step stopped on a configuration error or an anomaly and waits for staff (retry, resubmit, abandon).',
    }),
    rule('EcaApplicationsUnconfirmed', {
      expr: `${q.applicationsInState('unconfirmed')} > 0`,
      for: t.unconfirmedFor,
      labels: { severity: 'warning' },
      summary: 'Applications have waited in unconfirmed for over ' + t.unconfirmedFor,
      description:
        '{{ $value }} application(s) sent a write whose outcome the service never showed: staff confirm with the brokerage, then retry or resubmit.',
    }),
    rule('EcaSweepLate', {
      expr: `${q.sweepAgeSeconds} > ${durationSeconds(t.sweepLateAfter)}`,
      labels: { severity: 'critical' },
      summary: `The status sweep of firm {{ $labels.csid }} has not succeeded for over ${t.sweepLateAfter}`,
      description:
        'Last success {{ $value | humanizeDuration }} ago. Waiting applications still poll on their own after their safety interval, late.',
    }),
    rule('EcaSweepFailing', {
      // `unless`, not `and ... == 0`: a firm whose sweep never succeeded on any worker has no `ok` series at all.
      expr: `${q.sweepFailures} > 0 unless ${q.sweepSuccesses} > 0`,
      for: t.sweepFailingFor,
      labels: { severity: 'warning' },
      summary: `Every status sweep of firm {{ $labels.csid }} has failed for ${t.sweepFailingFor}`,
      description:
        "The sweep's current details in the Temporal UI name the error (workflow status-sweep-{{ $labels.csid }}).",
    }),
    rule('EcaBrokerageCallsFailing', {
      expr: `(${q.brokerageErrorShare}) > ${t.brokerageErrorRatio} and on (operation) (${q.brokerageCallRate}) > ${t.brokerageMinCallRate}`,
      for: t.brokerageErrorsFor,
      labels: { severity: 'warning' },
      summary: `{{ $labels.operation }} calls to the brokerage fail with {{ $labels.outcome }}`,
      description: `{{ $value | humanizePercentage }} of {{ $labels.operation }} calls ended in {{ $labels.outcome }} for ${t.brokerageErrorsFor} (threshold ${t.brokerageErrorRatio * 100} %).`,
    }),
  ];
}

/** The workers, their configuration and the schedules. */
function platformRules(t: AlertThresholds, q: Queries): AlertRule[] {
  return [
    rule('EcaConfigurationErrors', {
      expr: `${q.configurationErrors} > 0`,
      labels: { severity: 'critical' },
      summary: 'Worker {{ $labels.instance }} meets configuration errors ({{ $labels.kind }})',
      description:
        'Activities met a wrong key or an unreachable document store {{ $value }} time(s): retried until fixed, then applications are blocked.',
    }),
    rule('EcaWorkerDown', {
      expr: `${q.workersUp} == 0`,
      for: t.workerDownFor,
      labels: { severity: 'critical' },
      summary: 'Worker {{ $labels.instance }} is down',
      description: `Its metrics endpoint has not answered for ${t.workerDownFor}: the process is gone or hung.`,
    }),
    rule('EcaWorkerNotPolling', {
      expr: `(${q.workflowTaskPolls}) == 0 and on (instance) ${q.workersUp} == 1`,
      for: t.notPollingFor,
      labels: { severity: 'critical' },
      summary: 'Worker {{ $labels.instance }} is up but takes no workflow tasks',
      description: `No workflow task poll answered (task or empty) for ${t.notPollingFor}: it cannot reach the Temporal frontend, or its pollers stopped.`,
    }),
    rule('EcaWorkflowTaskFailures', {
      expr: `${q.workflowTaskFailures} > 0`,
      for: t.workflowTaskFailuresFor,
      labels: { severity: 'warning' },
      summary: 'Workflow tasks of {{ $labels.workflow_type }} keep failing on {{ $labels.instance }}',
      description:
        'The workflows are stuck until a fixed worker takes them: non-determinism, a bug or a missing codec key (worker log, workflow history).',
    }),
    rule('EcaDailyDocumentsLate', {
      expr: `${q.dailyDocumentsAgeSeconds} > ${durationSeconds(t.dailyDocumentsLateAfter)}`,
      labels: { severity: 'warning' },
      summary: `No daily documents recorded for firm {{ $labels.csid }} for over ${t.dailyDocumentsLateAfter}`,
      description:
        "Today's creates carry every PDF meanwhile. Look at the schedule (eca schedules describe) and the day's workflow (eca documents list).",
    }),
    rule('EcaScheduleMissedCatchup', {
      expr: `${q.scheduleMissedCatchup} > 0`,
      labels: { severity: 'warning' },
      summary: 'A schedule missed its catch-up window in namespace {{ $labels.namespace }}',
      description:
        'A scheduled run (daily documents) was skipped: the Temporal server was down or behind past the catch-up window.',
    }),
  ];
}

/** The onboarding API's replicas. */
function apiRules(t: AlertThresholds, q: Queries): AlertRule[] {
  return [
    rule('EcaApiDown', {
      expr: `${q.apisUp} == 0`,
      for: t.apiDownFor,
      labels: { severity: 'critical' },
      summary: 'Onboarding API replica {{ $labels.instance }} is down',
      description: `Its metrics endpoint has not answered for ${t.apiDownFor}: the process is gone or hung; the gateway sends its callers to the other replicas.`,
    }),
    rule('EcaApiErrors', {
      expr: `(${q.apiErrorShare}) > ${t.apiErrorRatio} and on (route) (${q.apiRequestRate}) > ${t.apiMinRequestRate}`,
      for: t.apiErrorsFor,
      labels: { severity: 'warning' },
      summary: 'The onboarding API answers {{ $labels.route }} with {{ $labels.code }}',
      description: `{{ $value | humanizePercentage }} of {{ $labels.route }} requests were answered with a 5xx {{ $labels.code }} for ${t.apiErrorsFor} (threshold ${t.apiErrorRatio * 100} %).`,
    }),
  ];
}
