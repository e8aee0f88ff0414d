/**
 * Replays committed histories of the end-to-end scenarios against today's workflow code: a change
 * that breaks determinism (reordered commands, removed activities) fails here, before it reaches a
 * running workflow. Regenerate only for an intended change shipped with patching (see docs), with the files
 * that record them alone (npm test runs this file beside them): `UPDATE_REPLAY_FIXTURES=1 npx mocha
 * test/e2e/applications.test.ts test/workflows/*.test.ts`, then this file.
 */
import assert from 'node:assert/strict';
import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Worker } from '@temporalio/worker';
import { tracingOptions, workflowBundle } from '../../workers/engine-worker.js';
import { loadHistories, REPLAY_FIXTURES_DIR } from '../support/replay-fixtures.js';

describe('replay of recorded histories', function () {
  this.timeout(120_000);

  // Traced: a worker with tracing turned on (OTEL_*) replays the histories of one without it, and back.
  for (const traced of [false, true]) {
    it(`replays every committed history without nondeterminism${traced ? ', tracing on' : ''}`, async function () {
      const histories = await loadHistories();
      assert.ok(histories.length >= 4, `expected the end-to-end histories in ${REPLAY_FIXTURES_DIR}`);
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
