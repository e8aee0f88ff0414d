/**
 * The workflows' log call sites that only a fault reaches, each forced on an application whose data is an
 * applicant's (test/support/history-privacy.ts), the fault's own text naming the applicant as an outside
 * error would: the run's log watch (test/support/log-watch.ts) reads every line the worker writes, the
 * SDK's included, and fails the run on any of the data. Each test also checks that its site was reached.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EcaHttpError } from '../../eca/index.js';
import { openDatabase } from '../../runtime/database/index.js';
import { EventLog } from '../../runtime/events.js';
import type { Applicant } from '../support/history-privacy.js';
import { firmStatusSweep } from '../../workflows/index.js';
import { startApplication, timeSkippingEngine } from '../support/engine.js';
import type { EngineHarness } from '../support/engine.js';
import { expectLog } from '../support/hooks.js';
import { applicant, personalXml } from '../support/history-privacy.js';
import { logWatch, siteLines } from '../support/log-watch.js';

describe("the workflows' log call sites, forced with an applicant's data", function () {
  this.timeout(120_000);
  const engines = timeSkippingEngine();
  const { setUp } = engines;

  /** Starts an application of the simulator's `scenario` whose holder is `person`. */
  function start(harness: EngineHarness, scenario: string, person: Applicant) {
    return startApplication(engines.env, harness, scenario, { xml: (id) => personalXml(id, person) });
  }

  /** Lets workflow time pass in steps until the site has written a line since `before`; exactly one. */
  async function untilWritten(file: string, message: RegExp, before: number, step = '20 minutes'): Promise<void> {
    for (let i = 0; i < 200 && siteLines(file, message) === before; i++) await engines.env.sleep(step);
    assert.equal(siteLines(file, message) - before, 1, `${file}: ${String(message)} written once`);
  }

  it('deadlines not watched: a policy this build refuses (from an activity of another build) names the applicant', async function () {
    const person = applicant('deadlines', randomBytes(4).toString('hex'));
    const site = ['workflows/application/workflow.ts', /^deadlines not watched$/] as const;
    const expected = expectLog(site[1]);
    try {
      const harness = await setUp({
        // The activity checks a stored policy; one that answers as if it did not, with a deadline no duration reads.
        replace: {
          readDeadlinePolicy: () =>
            Promise.resolve({ needsDocuments: { deadline: person.email, reminders: [], escalation: 'none' } }),
        },
      });
      const before = siteLines(...site);
      const findings = logWatch.findings.length;
      const handle = await start(harness, 'docs-required', person);
      await harness.worker.runUntil(async () => {
        await untilWritten(...site, before);
        // The application goes on without deadlines.
        assert.equal((await handle.describe()).status.name, 'RUNNING');
        await handle.terminate('test done');
      });
      assert.equal(expected.seen, 1);
      assert.deepEqual(logWatch.findings.slice(findings), []);
    } finally {
      expected.done();
    }
  });

  it('events not written: an event log whose database has gone, then a cancel', async function () {
    const person = applicant('events', randomBytes(4).toString('hex'));
    const site = ['workflows/application/events.ts', /^events not written$/] as const;
    const expected = expectLog(site[1]);
    const attempts = expectLog(/^Activity failed$/);
    const dir = await mkdtemp(join(tmpdir(), 'eca-events-log-'));
    // The engine's event log on a database that has gone away: every write fails, and is retried.
    const database = await openDatabase(`pglite:${dir}`);
    await database.close();
    const eventLog = new EventLog(database);
    let appends = 0;
    try {
      const harness = await setUp({
        events: {
          append: (events) => {
            appends++;
            return eventLog.append(events);
          },
        },
      });
      const before = siteLines(...site);
      const findings = logWatch.findings.length;
      const handle = await start(harness, 'happy', person);
      await harness.worker.runUntil(async () => {
        for (let i = 0; i < 100 && appends < 2; i++) await engines.env.sleep('1 minute');
        assert.ok(appends >= 2, `${appends} append(s)`);
        await handle.cancel();
        await untilWritten(...site, before, '1 minute');
        await handle.terminate('test done').catch(() => undefined);
      });
      assert.ok(attempts.seen >= 2, `${attempts.seen} failed attempt(s) logged`);
      assert.deepEqual(logWatch.findings.slice(findings), []);
    } finally {
      expected.done();
      attempts.done();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("status sweep failed: a slot whose brokerage read fails with the applicant in the brokerage's text", async function () {
    const person = applicant('sweep', randomBytes(4).toString('hex'));
    const site = ['workflows/sweep/workflow.ts', /^status sweep failed; the next slot runs as usual$/] as const;
    const expected = expectLog(site[1]);
    const attempts = expectLog(/^Activity failed$/);
    try {
      const harness = await setUp({
        replace: {
          // The brokerage refuses the read with a text that names the holder in prose.
          sweepFirm: () =>
            Promise.reject(
              new EcaHttpError(
                'getAccountStatus',
                500,
                `{"error":"account of ${person.first} ${person.last} (${person.email}) is under review"}`,
              ),
            ),
        },
      });
      const before = siteLines(...site);
      const findings = logWatch.findings.length;
      const handle = await engines.env.client.workflow.start(firmStatusSweep, {
        taskQueue: harness.taskQueue,
        workflowId: `sweep-logs-${randomUUID().slice(0, 8)}`,
        args: [{ csid: harness.sim.csid, interval: '5 minutes' }],
      });
      await harness.worker.runUntil(async () => {
        await untilWritten(...site, before, '1 minute');
        await handle.terminate('test done');
      });
      assert.equal(attempts.seen, 3, 'the slot failed after its three attempts');
      assert.deepEqual(logWatch.findings.slice(findings), []);
    } finally {
      expected.done();
      attempts.done();
    }
  });
});
