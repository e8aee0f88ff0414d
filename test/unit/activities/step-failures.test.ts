import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import {
  anomalyKind,
  configurationErrorKind,
  FIRM_DISABLED_RETRY_MS,
  stepFailureInterceptor,
} from '../../../activities/configuration-errors.js';
import { engineActivityInterceptors } from '../../../activities/interceptors.js';
import { ACCOUNT_APPLICATION_WORKFLOW } from '../../../domain/workflow-ids.js';
import { callBrokerage } from '../../../activities/brokerage-errors.js';
import { stepFailureInActivity } from '../../support/activity-context.js';
import { NON_RETRYABLE_ERROR_TYPES } from '../../../domain/error-types.js';
import { FirmDisabledError, FirmNotConfiguredError } from '../../../runtime/firm-errors.js';
import type { StepFailureBounds } from '../../../runtime/defaults.js';
import { DocumentCorrupted, DocumentNotFound } from '../../../runtime/document-store.js';
import { ADDRESS_REFUSED, EcaCryptoError, EcaHttpError, EcaNetworkError, EcaSchemaError } from '../../../eca/index.js';
import { createTransport } from '../../../eca/web-client/transport.js';
import { AccountEntryError } from '../../../brokerage/xml/accounts.js';
import {
  transportFailure,
  WebApiAnswerError,
  WebApiAuthError,
  WebApiHttpError,
  WebApiSchemaError,
} from '../../../webapi/index.js';

const bounds: StepFailureBounds = { blockAfterMs: 60_000, anomalyAttempts: 3 };
const first = { attempts: 1, elapsedMs: 0 };

/** The policy's own log of each failure is left out: the failures are what is asserted. */
const quiet = () => ({ logger: new DefaultLogger('ERROR', () => undefined) });

describe('step-failure policy: what an activity failure means for an application', function () {
  it('retries configuration errors with an alert, then blocks after the configured time in a row', async function () {
    const alerts: string[] = [];
    const error = new EcaCryptoError('passphrase', 'wrong passphrase');
    const early = await stepFailureInActivity(error, { attempts: 7, elapsedMs: 59_000 }, bounds, (kind) =>
      alerts.push(kind),
    );
    assert.ok(early instanceof ApplicationFailure);
    assert.equal(early.nonRetryable, false);
    const late = await stepFailureInActivity(
      new DocumentNotFound('gone'),
      { attempts: 8, elapsedMs: 60_000 },
      bounds,
      (kind) => alerts.push(kind),
    );
    assert.equal(late?.nonRetryable, true);
    assert.equal(late?.type, 'DocumentNotFound');
    assert.deepEqual(alerts, ['keys', 'document-store']);
    // Unbounded calls (other workflows, reads) keep retrying.
    assert.equal(
      (await stepFailureInActivity(error, { attempts: 99, elapsedMs: 1e9 }, undefined))?.nonRetryable,
      false,
    );
  });

  it('blocks a disabled firm’s application step at once, and puts its other work off without an alert', async function () {
    const alerts: string[] = [];
    const disabled = new FirmDisabledError('F1', 'contract ended');
    const step = await stepFailureInActivity(disabled, first, bounds, (kind) => alerts.push(kind));
    assert.equal(step?.nonRetryable, true);
    assert.match(step?.message ?? '', /contract ended.*the application is blocked/);
    const other = await stepFailureInActivity(disabled, { attempts: 40, elapsedMs: 1e9 }, undefined, (kind) =>
      alerts.push(kind),
    );
    assert.equal(other?.nonRetryable, false);
    assert.equal(other?.nextRetryDelay, FIRM_DISABLED_RETRY_MS);
    assert.equal(alerts.length, 0, 'a decision is no configuration error');
    // A firm the deployment does not know is one: alerted, retried, blocked past the bound.
    const unknown = await stepFailureInActivity(
      new FirmNotConfiguredError('F2'),
      { attempts: 9, elapsedMs: 60_000 },
      bounds,
      (kind) => alerts.push(kind),
    );
    assert.equal(unknown?.nonRetryable, true);
    assert.deepEqual(alerts, ['firm']);
  });

  it('blocks anomalies after the attempts in a row, a corrupted document at once; transient 4xx and transport errors pass', async function () {
    const refusal = new EcaHttpError('create', 403, '{"first_name":"Ada","reason":"forbidden"}');
    assert.equal(
      (await stepFailureInActivity(refusal, { attempts: 2, elapsedMs: 10_000 }, bounds))?.nonRetryable,
      false,
    );
    const blocked = await stepFailureInActivity(refusal, { attempts: 3, elapsedMs: 20_000 }, bounds);
    assert.equal(blocked?.nonRetryable, true);
    // A response body may echo what was sent: only the operation and the status are kept.
    assert.match(blocked?.message ?? '', /^create: HTTP 403 /);
    assert.doesNotMatch(blocked?.message ?? '', /Ada/);
    assert.equal(
      (await stepFailureInActivity(new EcaSchemaError('result', 'not an array'), first, bounds))?.nonRetryable,
      false,
    );
    assert.equal(
      (await stepFailureInActivity(new DocumentCorrupted('bytes differ'), first, bounds))?.nonRetryable,
      true,
    );
    for (const status of [408, 425, 429, 500, 503]) {
      assert.equal(anomalyKind(new EcaHttpError('create', status, '')), undefined, `HTTP ${status}`);
      assert.equal(
        await stepFailureInActivity(new EcaHttpError('create', status, ''), { attempts: 50, elapsedMs: 0 }, bounds),
        undefined,
      );
    }
    assert.equal(
      await stepFailureInActivity(new EcaNetworkError('create', 'ECONNRESET'), { attempts: 50, elapsedMs: 0 }, bounds),
      undefined,
    );
  });

  it("retries an account's error entry in a status read as an anomaly, then blocks after the attempts in a row", async function () {
    const alerts: string[] = [];
    const entry = new AccountEntryError('getAccountStatus: the account is not under the advisor account');
    assert.equal(anomalyKind(entry), 'account-entry');
    const early = await stepFailureInActivity(entry, first, bounds, (kind) => alerts.push(kind));
    assert.ok(early instanceof ApplicationFailure);
    assert.equal(early.nonRetryable, false);
    assert.equal(early.type, 'AccountEntryError');
    assert.match(early.message, /\(account-entry\); the step is retried$/);
    const blocked = await stepFailureInActivity(entry, { attempts: 3, elapsedMs: 20_000 }, bounds, (kind) =>
      alerts.push(kind),
    );
    assert.equal(blocked?.nonRetryable, true);
    assert.match(
      blocked?.message ?? '',
      /^getAccountStatus: the account is not under the advisor account \(account-entry, 3 /,
    );
    // An anomaly is no configuration error: no alert. Unbounded calls keep retrying.
    assert.deepEqual(alerts, []);
    assert.equal(
      (await stepFailureInActivity(entry, { attempts: 99, elapsedMs: 1e9 }, undefined))?.nonRetryable,
      false,
    );
  });

  it('on the Web API: waits as a 429 or 503 asks, blocks refusals after the attempts, and takes a refused client for keys', async function () {
    const limited = await stepFailureInActivity(new WebApiHttpError('createAccount', 429, '', 7_000), first, bounds);
    assert.equal(limited?.nonRetryable, false);
    assert.equal(limited?.nextRetryDelay, 7_000);
    assert.match(limited?.message ?? '', /createAccount: HTTP 429; the service asked to wait 7 s/);
    // However long it goes on: the service's own wait, never a block.
    const busy = await stepFailureInActivity(
      new WebApiHttpError('accountStatus', 503, '', 1_000),
      { attempts: 50, elapsedMs: 1e9 },
      bounds,
    );
    assert.equal(busy?.nonRetryable, false);
    assert.equal(anomalyKind(new WebApiHttpError('manageAccounts', 400, '')), 'brokerage-refusal');
    assert.equal(anomalyKind(new WebApiAnswerError('accountStatus', 'Account not found')), 'brokerage-refusal');
    assert.equal(
      anomalyKind(new WebApiSchemaError('pendingTasks', 'pendingTasks.0.formNumber', 'expected number')),
      'brokerage-answer',
    );
    assert.equal(
      anomalyKind(new WebApiHttpError('accountStatus', 500, '')),
      undefined,
      'a 5xx is retried as a transport error',
    );
    assert.equal(
      (
        await stepFailureInActivity(
          new WebApiHttpError('manageAccounts', 400, ''),
          { attempts: 3, elapsedMs: 0 },
          bounds,
        )
      )?.nonRetryable,
      true,
    );
    const alerts: string[] = [];
    await stepFailureInActivity(
      new WebApiAuthError('client-1', 400, 'the token endpoint refused the client'),
      first,
      bounds,
      (kind) => alerts.push(kind),
    );
    assert.deepEqual(alerts, ['keys']);
  });

  it('takes an address refused before connecting for a configuration error of the firm, on the XML service as on the Web API', async function () {
    // What the checked transport (runtime/checked-fetch.ts) throws for a name that resolves to a refused address.
    const refused = () =>
      Promise.reject(
        new TypeError('fetch failed', {
          cause: Object.assign(new Error('brokerage.invalid resolves to 169.254.169.254, a link-local address'), {
            code: ADDRESS_REFUSED,
          }),
        }),
      );
    const xml = createTransport(
      {
        csid: 'R',
        baseUrl: 'http://brokerage.invalid',
        preferenceUrl: 'http://brokerage.invalid',
        fetch: refused,
        retry: { limit: 2, delayMs: 1 },
      },
      'qa',
    );
    const calls: Record<string, () => Promise<unknown>> = {
      'XML baseUrl': () => xml.send('getAccountStatus', { CSID: 'R' }, 'query'),
      'XML preferenceUrl': () => xml.send('preferenceSet', { CSID: 'R' }, 'query'),
      'Web API baseUrl': () =>
        refused().catch((error: unknown) => Promise.reject(transportFailure('echoHttps', error))),
    };
    for (const [name, call] of Object.entries(calls)) {
      const alerts: string[] = [];
      // The engine's interceptors as its workers install them: the application's create is a bounded step.
      const interceptors = engineActivityInterceptors({
        onConfigurationError: (kind) => alerts.push(kind),
        stepFailureBounds: bounds,
      });
      /** Attempt `attempt` of the step, scheduled at `at` ms: the failure the workflow sees. */
      const attempt = async (attempt: number, at: number): Promise<ApplicationFailure> => {
        const env = new MockActivityEnvironment(
          {
            attempt,
            currentAttemptScheduledTimestampMs: at,
            workflowType: ACCOUNT_APPLICATION_WORKFLOW,
            activityType: 'createAccount',
            startToCloseTimeoutMs: 120_000,
          },
          // The policy's own log of each alert is left out: the alerts are counted below.
          { ...quiet(), interceptors },
        );
        const failure = await env
          .run(() => callBrokerage(call))
          .then(
            () => assert.fail(`${name}: the call succeeded`),
            (error: unknown) => error,
          );
        assert.ok(failure instanceof ApplicationFailure, `${name}: ${String(failure)}`);
        return failure;
      };
      // Retried with an alert, of a type no workflow's retry policy stops on.
      const early = await attempt(1, 1_000);
      assert.equal(early.nonRetryable, false, `${name}: ${early.message}`);
      assert.ok(!NON_RETRYABLE_ERROR_TYPES.includes(early.type ?? ''), `${name}: ${early.type}`);
      assert.match(early.message, /^configuration error \(firm\): .*brokerage\.invalid resolves to 169\.254\.169\.254/);
      assert.equal((await attempt(2, 60_999)).nonRetryable, false, `${name}: within the bound`);
      // Blocked past the bound, as a redirect or any configuration error of the firm.
      const late = await attempt(3, 61_000);
      assert.equal(late.nonRetryable, true, `${name}: past the bound`);
      assert.match(late.message, /^configuration error \(firm\) for 1 min: .*the application is blocked/);
      assert.deepEqual(alerts, ['firm', 'firm', 'firm'], name);
      const raw = await call().catch((error: unknown) => error);
      assert.equal(configurationErrorKind(raw), 'firm', name);
    }
  });

  it('counts a streak per call from its first anomaly, ends it on success, and bounds only the blocking steps', async function () {
    const interceptor = stepFailureInterceptor({
      bounds,
      bounded: { workflows: [ACCOUNT_APPLICATION_WORKFLOW], activities: ['createAccount'] },
    });
    const refusal = () => Promise.reject(new EcaHttpError('create', 403, ''));
    /** Attempt `attempt` of one call (workflow, activity type and id): its failure, or `ok`. */
    const attempt = async (
      attempt: number,
      work: () => Promise<unknown>,
      call: { workflowType?: string; activityType?: string; activityId?: string } = {},
    ): Promise<ApplicationFailure | 'ok'> => {
      const env = new MockActivityEnvironment(
        {
          attempt,
          workflowType: ACCOUNT_APPLICATION_WORKFLOW,
          activityType: 'createAccount',
          activityId: 'create-1',
          ...call,
        },
        { ...quiet(), interceptors: [interceptor] },
      );
      const outcome = await env.run(work).then(
        () => 'ok' as const,
        (error: unknown) => error,
      );
      if (outcome === 'ok' || outcome instanceof ApplicationFailure) return outcome;
      throw outcome;
    };
    const nonRetryable = (outcome: ApplicationFailure | 'ok') => outcome !== 'ok' && outcome.nonRetryable;
    // A transport outage before the anomalies does not count: the streak starts at attempt 3.
    for (const n of [1, 2]) {
      const outage = await attempt(n, () => Promise.reject(new EcaNetworkError('create', 'ECONNRESET'))).catch(
        (error: unknown) => error,
      );
      assert.ok(outage instanceof EcaNetworkError, 'a transport error passes unchanged');
    }
    assert.equal(nonRetryable(await attempt(3, refusal)), false);
    assert.equal(nonRetryable(await attempt(4, refusal)), false);
    assert.equal(nonRetryable(await attempt(5, refusal)), true, 'the third anomaly in a row blocks');
    // Another call's streak is its own; a success ends it.
    assert.equal(nonRetryable(await attempt(1, refusal, { activityId: 'create-2' })), false);
    assert.equal(nonRetryable(await attempt(2, refusal, { activityId: 'create-2' })), false);
    assert.equal(await attempt(3, () => Promise.resolve(), { activityId: 'create-2' }), 'ok');
    assert.equal(nonRetryable(await attempt(4, refusal, { activityId: 'create-2' })), false, 'counted again from 1');
    // Not a blocking step, or not the application's: retried however long it goes on.
    for (const call of [{ activityType: 'sweepFirm' }, { workflowType: 'accountMaintenance' }]) {
      for (let n = 1; n <= 6; n++) {
        assert.equal(nonRetryable(await attempt(n, refusal, { ...call, activityId: 'other' })), false, `${n}`);
      }
    }
  });
});
