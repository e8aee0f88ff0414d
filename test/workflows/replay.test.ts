/**
 * Replays committed histories of the end-to-end scenarios against today's workflow code: a change
 * that breaks determinism (reordered commands, removed activities) fails here, before it reaches a
 * running workflow. The fixtures are recorded from 2.0 (`recordFixture`, named `[webapi-]<workflow>-<scenario>`);
 * a change shipped with a patch adds the old code's history beside them (docs/architecture.md). The files
 * that record them, alone (npm test runs this file beside them): `UPDATE_REPLAY_FIXTURES=1 npx mocha
 * --jobs 1 test/e2e/applications.test.ts test/e2e/protocols.test.ts test/e2e/retention.test.ts
 * test/workflows/application.test.ts test/workflows/daily-documents.test.ts test/workflows/webhooks.test.ts`.
 */
import assert from 'node:assert/strict';
import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Worker } from '@temporalio/worker';
import { tracingOptions, workflowBundle } from '../../workers/engine-worker.js';
import { loadHistories, REPLAY_FIXTURES_DIR } from '../support/replay-fixtures.js';

/** The fixtures' first words: each workflow type, `webapi-` where the Web API runs it another way. */
const EXPECTED = [
  'application',
  'webapi-application',
  'firm',
  'webapi-firm',
  'maintenance',
  'webapi-maintenance',
  'daily-documents',
  'daily-documents-trigger',
  'document-retention',
  'webhook-delivery',
];

describe('replay of recorded histories', function () {
  this.timeout(120_000);

  // Traced: a worker with tracing turned on (OTEL_*) replays the histories of one without it, and back.
  for (const traced of [false, true]) {
    it(`replays every committed history without nondeterminism${traced ? ', tracing on' : ''}`, async function () {
      const histories = await loadHistories();
      // Every workflow type that runs for long, on each protocol where it has one.
      const names = histories.map(({ workflowId }) => workflowId);
      for (const kind of EXPECTED) {
        assert.ok(
          names.some((name) => name.startsWith(`${kind}-`)),
          `no ${kind}-… fixture in ${REPLAY_FIXTURES_DIR}`,
        );
      }
      const bundle = await workflowBundle(false, traced);
      // The traced bundle's span sink is registered as a traced worker has it; a replay never calls it.
      const spans = new InMemorySpanExporter();
      const sinks = traced
        ? (await tracingOptions({ spanProcessor: new SimpleSpanProcessor(spans), resource: Resource.empty() })).sinks
        : undefined;
      const results = Worker.runReplayHistories({ workflowBundle: bundle, sinks }, histories);
      let replayed = 0;
      for await (const result of results) {
        assert.equal(result.error, undefined, `${result.workflowId}: ${String(result.error)}`);
        replayed++;
      }
      assert.equal(replayed, histories.length);
      assert.deepEqual(spans.getFinishedSpans(), [], 'a replay exports no workflow spans');
    });
  }
});
