/**
 * `npm run test:faults`, the brokerage's answers lost after it acted: a create's (its file listed late),
 * an update's and a daily submitDocuments', with many applications in flight. Each write is looked up
 * before any resend; the simulator's own records show each made once. A file of its own, so that its
 * cases run beside brokerage.test.ts's instead of after them.
 */
import assert from 'node:assert/strict';
import { dailyDocuments } from '../../workflows/index.js';
import { documentsWorkflowId } from '../../domain/workflow-ids.js';
import { writeFormsDir } from '../support/forms.js';
import { runFleet } from './world.js';
import { APPLICATIONS, describeFaults, simulatorFaults } from './suite.js';

describeFaults('fault injection, answers lost (real processes: dev server, simulator, workers)', (suite) => {
  it("create's response is lost after the account was made, and its file is listed 21-30 s late", async function () {
    const taskQueue = suite.nextQueue();
    await suite.world.worker('worker', taskQueue);
    const lost = Math.ceil(APPLICATIONS / 2);
    await runFleet(suite.world, {
      name: 'create response lost',
      taskQueue,
      applications: APPLICATIONS,
      faultKinds: 'create lost-response (both protocols)',
      // Half the fleet is on each protocol (world.ts): lose the creates' answers on both.
      before: (w) =>
        simulatorFaults(w, [
          { operation: 'create', kind: 'lost-response', count: Math.ceil(lost / 2) },
          { operation: 'webapi POST /gw/api/v1/accounts', kind: 'lost-response', count: Math.ceil(lost / 2) },
        ]),
    });
  });

  it("update's and submitDocuments' responses are lost after the service processed them", async function () {
    const taskQueue = suite.nextQueue();
    await suite.world.worker('worker', taskQueue);
    // One docs-required application in four sends one DocumentSubmission: lose half of their answers, on each protocol.
    const lostUpdates = Math.ceil(APPLICATIONS / 8);
    let submissions: Array<{ day: string }> = [];
    await runFleet(suite.world, {
      name: 'update + submitDocuments response lost',
      taskQueue,
      applications: APPLICATIONS,
      faultKinds: 'update, PATCH accounts, submitDocuments lost-response',
      before: async (w) => {
        const count = await simulatorFaults(w, [
          { operation: 'update', kind: 'lost-response', count: lostUpdates },
          { operation: 'webapi PATCH /gw/api/v1/accounts', kind: 'lost-response', count: lostUpdates },
          { operation: 'submitDocuments', kind: 'lost-response', count: 1 },
        ]);
        // The day's agreements first (their answer lost), then the fleet's creates follow the day's record.
        const formsDir = await writeFormsDir();
        const day = new Date().toISOString().slice(0, 10);
        const result = await w.client.workflow.execute(dailyDocuments, {
          taskQueue,
          workflowId: `${documentsWorkflowId(w.sim.csid, day)}-${taskQueue}`,
          args: [{ csid: w.sim.csid, formsDir, day }],
        });
        // The spec has no look-up for a submission: after the lost answer nothing is sent again (the
        // simulator would process a second copy), and the day is marked unconfirmed for the creates.
        assert.equal(result.day, day);
        assert.equal(result.alert, 'unconfirmed', JSON.stringify(result));
        submissions = (await w.records()).documentSubmissions;
        return count;
      },
    });
    const perDay = new Map<string, number>();
    for (const { day } of submissions) perDay.set(day, (perDay.get(day) ?? 0) + 1);
    assert.equal(submissions.length, 1, 'the lost submission was processed by the simulator, once');
    assert.deepEqual(
      [...perDay].filter(([, n]) => n > 1),
      [],
      `submitDocuments processed twice on one simulated day: ${JSON.stringify(submissions)}`,
    );
  });
});
