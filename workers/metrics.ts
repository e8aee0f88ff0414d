/**
 * The engine's own Prometheus metrics, exported beside the SDK runtime's (`temporal_*`) by the same
 * endpoint (`ECA_METRICS_ADDRESS`): the SDK's metric meter feeds Temporal Core's Prometheus exporter.
 *
 * - `eca_brokerage_calls{protocol,operation,outcome}`   calls to the brokerage, on either protocol (counter)
 * - `eca_brokerage_call_duration_ms{protocol,operation}` their duration (histogram)
 * - `eca_poll_batch_size{operation}`                    account ids per merged status read (histogram)
 * - `eca_applications{lifecycle_state}`                 applications per lifecycle state (gauge, from visibility)
 * - `eca_lifecycle_transitions{from,to,event}`          state changes, from the workflows (counter; workflows/)
 * - `eca_configuration_errors{kind}`                    activity attempts that met a wrong key or document store
 *                                                        (counter; activities/configuration-errors.ts)
 * - `eca_sweep_slots{csid,outcome}`                     the firm's status sweep attempts, `ok` or `failed` (counter)
 * - `eca_sweep_last_success_seconds{csid}`              when the firm's last sweep succeeded, Unix time (gauge)
 * - `eca_sweep_duration_ms{csid}`                       one sweep's duration (histogram)
 * - `eca_sweep_brokerage_calls{csid}`                   brokerage calls made by the sweeps (counter)
 * - `eca_sweep_woken{csid}`                             applications woken by the sweeps (counter)
 * - `eca_daily_documents_recorded_seconds{csid}`        when the firm's daily documents were last recorded, Unix time (gauge)
 *
 * The alert rules and the dashboard built on these are in deploy/prometheus/ and deploy/grafana/ (docs/operate.md).
 */
import type { Client } from '@temporalio/client';
import type { MetricMeter } from '@temporalio/common';
import type { EcaClient } from '../eca/index.js';
import { BrokerageError } from '../domain/brokerage-errors.js';
import type { WebApiCallRecord } from '../webapi/index.js';
import type { Protocol } from '../domain/protocols.js';
import { lifecycleMachine } from '../workflows/lifecycle/index.js';
import type { EngineActivityOptions } from '../activities/engine.js';
import type { EngineInterceptorOptions } from '../activities/interceptors.js';
import { ACCOUNT_APPLICATION_WORKFLOW } from '../domain/workflow-ids.js';
import { EcaLifecycleState } from '../domain/search-attributes.js';

/**
 * A call's outcome at the transport, on either protocol: business refusals inside a 200 answer count as `ok`
 * (the Web API's `hasError` answers included), and a call the firm's budget put off, never sent, as `deferred`.
 */
export function callOutcome(error: unknown): string {
  if (!(error instanceof BrokerageError)) return 'error';
  if (error.kind === 'credentials') return 'crypto';
  if (error.status !== undefined) return error.status >= 500 ? 'http_5xx' : 'http_4xx';
  switch (error.kind) {
    case 'put-off':
      return 'deferred';
    case 'transport':
      return error.timedOut ? 'timeout' : 'network';
    case 'answer':
      return 'bad_response';
    case 'invalid-request':
    case 'address':
      return 'bad_request';
    default:
      return 'error';
  }
}

/** The counter and the histogram of the brokerage's calls, shared by the clients of both protocols. */
export interface BrokerageCallMetrics {
  /** Counts one call as it ended, with its outcome ({@link callOutcome}, or `ok`). */
  record(protocol: Protocol, operation: string, durationMs: number, outcome: string): void;
  batchSize: ReturnType<MetricMeter['createHistogram']>;
}

export function brokerageCallMetrics(meter: MetricMeter): BrokerageCallMetrics {
  const calls = meter.createCounter('eca_brokerage_calls', 'call', 'Calls to the brokerage by operation and outcome');
  const duration = meter.createHistogram('eca_brokerage_call_duration_ms', 'int', 'ms', 'Duration of brokerage calls');
  const batchSize = meter.createHistogram(
    'eca_poll_batch_size',
    'int',
    'account',
    'Account ids per merged status read (getAccountStatus, getPendingTasks)',
  );
  return {
    record(protocol, operation, durationMs, outcome) {
      calls.add(1, { protocol, operation, outcome });
      duration.record(durationMs, { protocol, operation });
    },
    batchSize,
  };
}

/** What the Web API clients tell of each call (runtime/firm-brokerages.ts `onWebApiCall`), counted. */
export function webApiCallRecorder(metrics: BrokerageCallMetrics): (call: WebApiCallRecord) => void {
  return (call) =>
    metrics.record('webapi', call.operation, call.durationMs, 'error' in call ? callOutcome(call.error) : 'ok');
}

/** Operations whose request lists account ids: the merged status reads of polling. */
const BATCHED_OPERATIONS = new Set(['getAccountStatus', 'getPendingTasks']);

/** The brokerage client with every call counted and timed; the calls themselves are unchanged. */
export function instrumentEcaClient(eca: EcaClient, metrics: BrokerageCallMetrics): EcaClient {
  const instrumented: Record<string, unknown> = {};
  for (const [operation, call] of Object.entries(eca) as [string, unknown][]) {
    if (typeof call !== 'function') {
      instrumented[operation] = call;
      continue;
    }
    instrumented[operation] = async (...args: unknown[]): Promise<unknown> => {
      if (BATCHED_OPERATIONS.has(operation)) {
        const ids = (args[0] as { accountIds?: unknown } | undefined)?.accountIds;
        metrics.batchSize.record(Array.isArray(ids) ? ids.length : 1, { operation });
      }
      const started = performance.now();
      let outcome = 'ok';
      try {
        return await (call as (...values: unknown[]) => Promise<unknown>).apply(eca, args);
      } catch (error) {
        outcome = callOutcome(error);
        throw error;
      } finally {
        metrics.record('xml', operation, Math.round(performance.now() - started), outcome);
      }
    };
  }
  return instrumented as unknown as EcaClient;
}

/** Leaf states of the lifecycle statechart: the values of the `EcaLifecycleState` search attribute. */
export function lifecycleStates(): string[] {
  const leaves: string[] = [];
  const visit = (node: { key: string; states: Record<string, unknown> }) => {
    const children = Object.values(node.states) as (typeof node)[];
    if (children.length === 0) leaves.push(node.key);
    children.forEach(visit);
  };
  visit(lifecycleMachine.root);
  return [...new Set(leaves)];
}

export interface LifecycleGauge {
  /** Counts once now (the periodic counts run in the background). */
  refresh(): Promise<void>;
  stop(): void;
}

/**
 * `eca_applications{lifecycle_state}`: counted from Temporal's visibility store, so it is right after
 * a restart and the same on every worker (aggregate with `max`, not `sum`). Closed workflows count in
 * their final state (open, rejected...) for as long as the namespace retains them.
 */
export function startLifecycleGauge(options: {
  client: Client;
  meter: MetricMeter;
  intervalMs: number;
  onError?: (error: unknown) => void;
}): LifecycleGauge {
  const gauge = options.meter.createGauge('eca_applications', 'int', 'application', 'Applications by lifecycle state');
  const states = lifecycleStates();
  let running: Promise<void> | undefined;
  const refresh = () => {
    running ??= (async () => {
      try {
        for (const state of states) {
          const { count } = await options.client.workflow.count(
            `WorkflowType = '${ACCOUNT_APPLICATION_WORKFLOW}' AND ${EcaLifecycleState.name} = '${state}'`,
          );
          gauge.set(count, { lifecycle_state: state });
        }
      } catch (error) {
        options.onError?.(error);
      } finally {
        running = undefined;
      }
    })();
    return running;
  };
  const timer = setInterval(() => void refresh(), options.intervalMs);
  timer.unref();
  void refresh();
  return { refresh, stop: () => clearInterval(timer) };
}

/**
 * The hooks that feed the worker's metrics: the step-failure policy's alert of configuration errors (a
 * worker option, activities/interceptors.ts `engineActivityInterceptors`), and the activities' sweeps and daily
 * documents.
 */
export function activityMetrics(
  meter: MetricMeter,
): Pick<EngineInterceptorOptions, 'onConfigurationError'> &
  Pick<EngineActivityOptions, 'onSweep' | 'onSweepFailed' | 'onDailyDocumentsRecorded'> {
  const configurationErrors = meter.createCounter(
    'eca_configuration_errors',
    'attempt',
    'Activity attempts that met a configuration error (keys, document store); retried until it is fixed, or an application is blocked (ECA_BLOCK_AFTER_MS)',
  );
  const slots = meter.createCounter('eca_sweep_slots', 'slot', "Attempts of the firm's status sweep by outcome");
  const lastSuccess = meter.createGauge(
    'eca_sweep_last_success_seconds',
    'int',
    's',
    "When the firm's status sweep last succeeded (Unix time)",
  );
  const duration = meter.createHistogram('eca_sweep_duration_ms', 'int', 'ms', "Duration of one of the firm's sweeps");
  const calls = meter.createCounter('eca_sweep_brokerage_calls', 'call', 'Brokerage calls made by the status sweeps');
  const woken = meter.createCounter('eca_sweep_woken', 'application', 'Applications woken by the status sweeps');
  const recorded = meter.createGauge(
    'eca_daily_documents_recorded_seconds',
    'int',
    's',
    "When the firm's daily documents were last recorded (Unix time)",
  );
  const unixSeconds = () => Math.floor(Date.now() / 1000);
  return {
    onConfigurationError: (kind) => configurationErrors.add(1, { kind }),
    onSweep: (report, csid) => {
      slots.add(1, { csid, outcome: 'ok' });
      lastSuccess.set(unixSeconds(), { csid });
      duration.record(report.durationMs, { csid });
      calls.add(report.brokerageCalls, { csid });
      woken.add(report.woken, { csid });
    },
    onSweepFailed: (csid) => slots.add(1, { csid, outcome: 'failed' }),
    onDailyDocumentsRecorded: (result) => recorded.set(unixSeconds(), { csid: result.csid }),
  };
}
