/**
 * Lifecycle settings are checked before they can fail a workflow's tasks: the client refuses bad ones
 * before anything is stored or started, and a workflow started past the client (another SDK, the
 * `temporal` CLI) fails its first task with the same typed error, having sent nothing. Fuzzed: any value
 * either is refused with a reason or is used by every pacing computation without a throw.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { InvalidInputError, startApplication } from '../../client/index.js';
import { ACCOUNT_APPLICATION_WORKFLOW } from '../../domain/workflow-ids.js';
import { durationMs } from '../../domain/durations.js';
import {
  lookPaceOf,
  nextSafetyPollAt,
  nextSlot,
  resolveSettings,
  settingsProblems,
} from '../../workflows/application/settings.js';
import type { SettingsOverrides } from '../../workflows/application/settings.js';
import { applicationXml, startEngine } from '../support/engine.js';
import type { EngineHarness } from '../support/engine.js';
import { devServerEnv } from '../support/servers.js';
import { fc, fuzzParameters } from '../support/fuzz.js';

/** Values seen to fail workflow tasks over and over before the check. */
const BAD: Array<[unknown, RegExp]> = [
  [{ pollIntervals: { tracking: '0s' } }, /settings.pollIntervals.tracking must be positive/],
  [{ pollIntervals: { tracking: 'soon' } }, /settings.pollIntervals.tracking must be a duration/],
  [{ pollIntervals: { portal: '1 hour' } }, /settings.pollIntervals.portal is not a poll interval/],
  [{ lostAnswerWindow: -5 }, /settings.lostAnswerWindow must be positive/],
  [{ safetyPollInterval: 1e-252 }, /settings.safetyPollInterval must be positive \(at least 1 ms\)/],
  [{ safetyPollInterval: 1.5 }, /settings.safetyPollInterval must be whole milliseconds/],
  [{ statusSource: 'poll' }, /settings.statusSource is not a setting/],
  [{ continueAsNewAfterEvents: 1.5 }, /settings.continueAsNewAfterEvents must be a whole number/],
  [
    { documentRetention: '1000 years' },
    /settings.documentRetention must be positive \(at least 1 ms\) and at most 10 years/,
  ],
  [{ pollInterval: '1 minute' }, /settings.pollInterval is not a setting/],
  [[], /settings must be an object/],
];

describe('lifecycle settings: refused before they can fail a workflow', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let engine: EngineHarness;
  const run = randomUUID().slice(0, 6);

  before(async function () {
    env = await devServerEnv();
    engine = await startEngine(env);
  });

  after(async function () {
    await engine.close();
  });

  it('the client refuses each bad value by name, before anything is stored or started', async function () {
    const ctx = { client: env.client, store: engine.store, csid: engine.sim.csid, taskQueue: engine.taskQueue };
    for (const [settings, reason] of BAD) {
      await assert.rejects(
        startApplication(ctx, { applicationXml: applicationXml(`settings-${run}`), settings: settings as never }),
        (error: unknown) => error instanceof InvalidInputError && reason.test(error.message),
        JSON.stringify(settings),
      );
    }
    assert.deepEqual(await readdir(engine.store.root).catch(() => []), [], 'nothing stored');
    const { count } = await env.client.workflow.count(`EcaExternalId = 'settings-${run}'`);
    assert.equal(count, 0, 'nothing started');
  });

  it('a workflow started past the client fails its first task with InvalidArgument, having sent nothing', async function () {
    const callsBefore = engine.sim.control.calls();
    await engine.worker.runUntil(async () => {
      const handle = await env.client.workflow.start(ACCOUNT_APPLICATION_WORKFLOW, {
        taskQueue: engine.taskQueue,
        workflowId: `settings-${run}-direct`,
        args: [
          { csid: engine.sim.csid, externalId: `settings-${run}`, settings: { pollIntervals: { tracking: '0s' } } },
        ],
      });
      const failure = await handle.result().then(
        () => assert.fail('the workflow ran'),
        (error: unknown) => error,
      );
      assert.ok(failure instanceof WorkflowFailedError);
      assert.ok(failure.cause instanceof ApplicationFailure);
      assert.equal(failure.cause.type, 'InvalidArgument');
      assert.match(failure.cause.message, /settings.pollIntervals.tracking must be positive/);
      const tasks = (await handle.fetchHistory()).events!.filter((event) => event.workflowTaskCompletedEventAttributes);
      assert.equal(tasks.length, 1, 'one workflow task, not one per retry');
    });
    assert.deepEqual(engine.sim.control.calls(), callsBefore, 'nothing sent to the brokerage');
  });
});

const duration = fc.oneof(
  fc.constantFrom('0s', '1s', '15 minutes', '1 hour', '2 days', '10 years', '11 years', 'soon', '', '-1s', '1e3'),
  fc.integer({ min: -10, max: 400_000_000_000 }),
  fc.double(),
  fc.string({ maxLength: 8 }),
);

describe('fuzz: lifecycle settings', function () {
  it('any overrides are refused with reasons, or paced without a throw', function () {
    const anything = fc.oneof(duration, fc.boolean(), fc.constant(null), fc.string({ maxLength: 6 }), fc.integer());
    const overrides = fc.record(
      {
        pollIntervals: fc.oneof(fc.record({ tracking: duration, portal: duration }, { requiredKeys: [] }), anything),
        abandonedRetention: duration,
        continueAsNewAfterEvents: fc.oneof(fc.integer({ min: -5, max: 60_000 }), fc.double()),
        requestConfirmTimeout: duration,
        lostAnswerWindow: duration,
        createConfirmInterval: duration,
        safetyPollInterval: duration,
        documentRetention: fc.oneof(duration, fc.constant(null)),
        extra: anything,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(overrides, fc.integer({ min: 0, max: 4_102_444_800_000 }), (given, now) => {
        const problems = settingsProblems(given);
        if (problems.length) {
          assert.ok(
            problems.every((problem) => problem.startsWith('settings')),
            problems.join('; '),
          );
          return;
        }
        const settings = resolveSettings(given as SettingsOverrides);
        assert.ok(nextSlot(now, settings.pollIntervals.tracking) > now);
        assert.ok(nextSafetyPollAt(now, settings) > now);
        lookPaceOf(settings, now);
        assert.ok(durationMs(settings.abandonedRetention) > 0 && durationMs(settings.requestConfirmTimeout) > 0);
      }),
      fuzzParameters('lifecycle settings', 3000),
    );
  });
});
