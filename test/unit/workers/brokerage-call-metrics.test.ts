/**
 * `eca_brokerage_calls` and its duration on both protocols (workers/metrics.ts): a Web API client counts
 * each call against the simulator as the XML client does, with the same outcomes, under its protocol.
 */
import assert from 'node:assert/strict';
import type { MetricMeter, MetricTags } from '@temporalio/common';
import { EcaDeferredError, EcaHttpError, EcaRequestError, EcaSchemaError } from '../../../eca/index.js';
import type { EcaClient } from '../../../eca/index.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import {
  WebApiAuthError,
  WebApiDeferredError,
  WebApiNetworkError,
  WebApiHttpError,
  WebApiRequestError,
  WebApiSchemaError,
} from '../../../webapi/index.js';
import {
  brokerageCallMetrics,
  callOutcome,
  instrumentEcaClient,
  webApiCallRecorder,
} from '../../../workers/metrics.js';
import { registerWebApiClient } from '../../support/webapi-clients.js';
import { start } from '../simulator/helpers.js';

interface Sample {
  metric: string;
  value: number;
  tags: MetricTags;
}

/** A metric meter that keeps what it is given. */
function recordingMeter(): { meter: MetricMeter; samples: Sample[] } {
  const samples: Sample[] = [];
  const instrument = (metric: string) => {
    const keep = (value: number, tags: MetricTags = {}) => samples.push({ metric, value, tags });
    return {
      name: metric,
      unit: '',
      description: '',
      kind: 'counter',
      valueType: 'int',
      add: keep,
      record: keep,
      set: keep,
    };
  };
  const meter = {
    createCounter: instrument,
    createHistogram: instrument,
    createGauge: instrument,
    withTags: () => meter,
  } as unknown as MetricMeter;
  return { meter, samples };
}

const counted = (samples: Sample[]) =>
  samples
    .filter((sample) => sample.metric === 'eca_brokerage_calls')
    .map(({ tags }) => `${String(tags.protocol)} ${String(tags.operation)} ${String(tags.outcome)}`);

describe('brokerage call metrics, on both protocols', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;

  before(async function () {
    ({ sim } = await start());
  });
  after(async function () {
    await sim.close();
  });

  it('names the same outcomes for the errors of both protocols', function () {
    const timeout = new WebApiNetworkError('accountStatus', new DOMException('timed out', 'TimeoutError'));
    const cases: Array<[unknown, string]> = [
      [new EcaHttpError('create', 503, ''), 'http_5xx'],
      [new WebApiHttpError('createAccount', 503, ''), 'http_5xx'],
      [new EcaHttpError('create', 400, ''), 'http_4xx'],
      [new WebApiHttpError('createAccount', 415, ''), 'http_4xx'],
      [timeout, 'timeout'],
      [new WebApiNetworkError('accountStatus', new TypeError('fetch failed')), 'network'],
      [new EcaSchemaError('accounts', 'not an array'), 'bad_response'],
      [new WebApiSchemaError('accountStatus', 'status', 'not a letter'), 'bad_response'],
      [new WebApiAuthError('client-1', 401, 'the token endpoint refused the assertion'), 'crypto'],
      [new EcaRequestError('accountIds', 'empty'), 'bad_request'],
      [new WebApiRequestError('baseUrl', 'a link-local address'), 'bad_request'],
      [new EcaDeferredError('getAccountStatus', 1000, 'the call budget is spent for now'), 'deferred'],
      [new WebApiDeferredError('accountStatus', 1000, 'the call budget is spent for now'), 'deferred'],
      [new Error('something else'), 'error'],
    ];
    for (const [error, outcome] of cases) assert.equal(callOutcome(error), outcome, (error as Error).message);
  });

  it('counts each Web API call as it ends, answered or failed, under protocol webapi', async function () {
    const { meter, samples } = recordingMeter();
    const metrics = brokerageCallMetrics(meter);
    const api = registerWebApiClient(sim, { clientId: 'metrics', csid: sim.csid, scopes: ['accounts.read'] }).client({
      onCall: webApiCallRecorder(metrics),
    });
    await api.enumerations('fin-info-ranges', { currency: 'EUR' });
    sim.control.addFault({
      operation: 'webapi GET /gw/api/v1/enumerations/:enumerationType',
      kind: 'http500',
      count: 1,
    });
    await assert.rejects(api.enumerations('fin-info-ranges', { currency: 'EUR' }), WebApiHttpError);
    assert.deepEqual(counted(samples), ['webapi enumerations ok', 'webapi enumerations http_5xx']);
    const durations = samples.filter((sample) => sample.metric === 'eca_brokerage_call_duration_ms');
    assert.equal(durations.length, 2);
    assert.ok(durations.every((sample) => sample.tags.protocol === 'webapi' && sample.value >= 0));
  });

  it('counts an XML client’s calls under protocol xml, a failure by its outcome', async function () {
    const { meter, samples } = recordingMeter();
    const xml = {
      getEnumerations: () => Promise.resolve({}),
      getAccountStatus: () => Promise.reject(new EcaHttpError('getAccountStatus', 502, '')),
    } as unknown as EcaClient;
    const instrumented = instrumentEcaClient(xml, brokerageCallMetrics(meter));
    await instrumented.getEnumerations({ CSID: 'F1', type: 'currencies' } as never);
    await assert.rejects(instrumented.getAccountStatus({ CSID: 'F1', accountIds: ['U1', 'U2'] }), EcaHttpError);
    assert.deepEqual(counted(samples), ['xml getEnumerations ok', 'xml getAccountStatus http_5xx']);
    const batch = samples.find((sample) => sample.metric === 'eca_poll_batch_size');
    assert.equal(batch?.value, 2);
  });
});
