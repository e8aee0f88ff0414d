/**
 * The ops dashboard (Grafana's JSON model), provisioned by compose from deploy/grafana/. Its queries are
 * the alert rules' own (rules.ts `queries`), so a renamed metric fails the same rule tests.
 */
import { DEFAULT_THRESHOLDS, queries } from './rules.js';

interface Target {
  expr: string;
  legend: string;
}

interface Panel {
  title: string;
  unit: string;
  targets: Target[];
  description: string;
}

/** The dashboard's panels: the queries they run, by title. */
export function dashboardPanels(): Panel[] {
  const q = queries(DEFAULT_THRESHOLDS);
  return [...applicationPanels(q), ...platformPanels(q), ...apiPanels(q)];
}

type Queries = ReturnType<typeof queries>;

function applicationPanels(q: Queries): Panel[] {
  return [
    {
      title: 'Applications by lifecycle state',
      unit: 'short',
      description: 'Counted from visibility by every worker (max over replicas).',
      targets: [{ expr: q.applicationsByState, legend: '{{lifecycle_state}}' }],
    },
    {
      title: 'Waiting for staff: blocked and unconfirmed',
      unit: 'short',
      description: 'Alerts EcaApplicationsBlocked and EcaApplicationsUnconfirmed.',
      targets: [
        { expr: q.applicationsInState('blocked'), legend: 'blocked' },
        { expr: q.applicationsInState('unconfirmed'), legend: 'unconfirmed' },
      ],
    },
    {
      title: 'Start to Open, median (applications finished in the last hour)',
      unit: 'ms',
      description: "The application workflow's end-to-end latency (SDK metric).",
      targets: [{ expr: q.startToOpenP50, legend: 'p50' }],
    },
    {
      title: 'Brokerage calls per second by operation and outcome',
      unit: 'reqps',
      description: 'Outcomes: ok, http_4xx, http_5xx, timeout, network, bad_response, crypto, bad_request.',
      targets: [{ expr: q.brokerageCalls, legend: '{{operation}} {{outcome}}' }],
    },
    {
      title: 'Brokerage errors: share of calls',
      unit: 'percentunit',
      description: 'Alert EcaBrokerageCallsFailing.',
      targets: [{ expr: q.brokerageErrorShare, legend: '{{operation}} {{outcome}}' }],
    },
    {
      title: 'Brokerage call duration, p99',
      unit: 'ms',
      description: 'Per operation.',
      targets: [{ expr: q.brokerageLatencyP99, legend: '{{operation}}' }],
    },
  ];
}

function platformPanels(q: Queries): Panel[] {
  return [
    {
      title: 'Status sweep: slot duration p99 and calls per slot',
      unit: 'short',
      description: 'Duration in ms; brokerage calls per successful slot.',
      targets: [
        { expr: q.sweepDurationP99, legend: '{{csid}} p99 ms' },
        { expr: q.sweepCallsPerSlot, legend: '{{csid}} calls per slot' },
      ],
    },
    {
      title: 'Status sweep: seconds since the last success',
      unit: 's',
      description: 'Alerts EcaSweepLate and EcaSweepFailing.',
      targets: [{ expr: q.sweepAgeSeconds, legend: '{{csid}}' }],
    },
    {
      title: 'Workflow task schedule-to-start, p99',
      unit: 'ms',
      description: 'How long workflow tasks wait for a worker: grows when workers are too few or busy.',
      targets: [{ expr: q.workflowTaskLatencyP99, legend: 'p99' }],
    },
    {
      title: 'Workflow task failures',
      unit: 'short',
      description: 'Alert EcaWorkflowTaskFailures.',
      targets: [{ expr: q.workflowTaskFailures, legend: '{{instance}} {{workflow_type}}' }],
    },
    {
      title: 'Workers: up and workflow task polls per second',
      unit: 'short',
      description: 'Alerts EcaWorkerDown and EcaWorkerNotPolling.',
      targets: [
        { expr: q.workersUp, legend: 'up {{instance}}' },
        { expr: q.workflowTaskPolls, legend: 'polls/s {{instance}}' },
      ],
    },
    {
      title: 'Configuration errors',
      unit: 'short',
      description: 'Alert EcaConfigurationErrors: wrong keys or an unreachable document store.',
      targets: [{ expr: q.configurationErrors, legend: '{{instance}} {{kind}}' }],
    },
    {
      title: 'Daily documents: seconds since last recorded',
      unit: 's',
      description: 'Alert EcaDailyDocumentsLate.',
      targets: [{ expr: q.dailyDocumentsAgeSeconds, legend: '{{csid}}' }],
    },
  ];
}

function apiPanels(q: Queries): Panel[] {
  return [
    {
      title: 'Onboarding API: requests per second by route and status',
      unit: 'reqps',
      description: 'Every replica; alert EcaApiErrors on the 5xx share.',
      targets: [{ expr: q.apiRequests, legend: '{{route}} {{status}}' }],
    },
    {
      title: 'Onboarding API: answer time p99, and replicas up',
      unit: 'short',
      description: 'Duration in ms by route; alert EcaApiDown.',
      targets: [
        { expr: q.apiLatencyP99, legend: '{{route}} p99 ms' },
        { expr: q.apisUp, legend: 'up {{instance}}' },
      ],
    },
  ];
}

/** The datasource compose provisions (deploy/grafana/provisioning/datasources/). */
export const DATASOURCE_UID = 'eca-prometheus';

export function dashboard(): Record<string, unknown> {
  const datasource = { type: 'prometheus', uid: DATASOURCE_UID };
  return {
    uid: 'eca-onboarding',
    title: 'ECA onboarding engine',
    tags: ['eca', 'temporal'],
    timezone: 'utc',
    schemaVersion: 39,
    version: 1,
    refresh: '30s',
    time: { from: 'now-6h', to: 'now' },
    panels: dashboardPanels().map((panel, index) => ({
      id: index + 1,
      type: 'timeseries',
      title: panel.title,
      description: panel.description,
      datasource,
      gridPos: { h: 8, w: 12, x: (index % 2) * 12, y: Math.floor(index / 2) * 8 },
      fieldConfig: { defaults: { unit: panel.unit }, overrides: [] },
      options: { legend: { displayMode: 'list', placement: 'bottom' }, tooltip: { mode: 'multi' } },
      targets: panel.targets.map((target, i) => ({
        refId: String.fromCharCode(65 + i),
        datasource,
        expr: target.expr,
        legendFormat: target.legend,
      })),
    })),
  };
}
