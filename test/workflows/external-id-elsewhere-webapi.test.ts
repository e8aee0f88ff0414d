/**
 * External ids are the brokerage's, not the firm's, on the Web API too: but there nothing the document promises
 * establishes the refusal. The create's answer (`StatusResponse`) gives a `requestId` and `fileData`, whose
 * `data` is an object the document does not describe; `GET /gw/api/v1/requests` is not said to list creates;
 * and the look-up by external id answers this firm nothing for an id another firm holds, as it answers a create
 * not listed yet. So the application waits in doubt for the lost-answer window and stops in `unconfirmed`, and
 * the reason says what staff need: the Web API lists no application under the external id for this firm after
 * an answered create, and external ids are brokerage-wide, so one another firm holds is refused and never
 * listed here. The simulator's answers on each of those routes are checked first, as the engine reads them.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { applicationJsonOf } from '../../activities/application-json.js';
import { createWebApiApplicationActivities } from '../../activities/webapi-application.js';
import { requestWindow } from '../../brokerage/webapi/accounts.js';
import { ecaClientFor } from '../../simulator/client.js';
import type { WebApiClient } from '../../webapi/index.js';
import { stateQuery } from '../../workflows/application/messages.js';
import type { ApplicationStateView } from '../../workflows/application/messages.js';
import type { ApplicationActivities } from '../../workflows/application/activities.js';
import { applicationXml, startApplication, timeSkippingEngine } from '../support/engine.js';
import type { RunningSimulator } from '../../simulator/server.js';
import { start } from '../unit/simulator/helpers.js';
import { registerWebApiClient } from '../support/webapi-clients.js';

describe('an external id another firm used at the brokerage, on the Web API (time-skipping server, simulator over HTTP)', function () {
  this.timeout(120_000);
  const engines = timeSkippingEngine();

  /** Another firm of the same brokerage, whose create of `externalId` made an account. */
  async function heldElsewhere(sim: RunningSimulator, externalId: string): Promise<string> {
    const other = await sim.control.registerFirm({
      name: 'OtherFirm',
      csid: `OTHER-${randomUUID().slice(0, 6)}`,
    });
    const otherEca = ecaClientFor(sim, {
      csid: other.csid,
      firmPrivateKey: other.keys.firmPrivateKey,
      timeoutMs: 10_000,
      retry: 0,
    });
    const first = await otherEca.create({ CSID: other.csid, applicationXml: applicationXml(externalId) });
    assert.equal(first.response?.applications[0]?.status.status, 'Success', JSON.stringify(first.response));
    return other.csid;
  }

  /** This firm's Web API client (the simulator's authorization server keeps the wall clock, as its tokens do). */
  function webApiOf(sim: RunningSimulator): WebApiClient {
    const clientId = `firm-${randomUUID().slice(0, 6)}`;
    return registerWebApiClient(sim, { clientId, csid: sim.csid }).client();
  }

  it('answers this firm nothing it may read as a refusal: the create a requestId, the requests no create, the look-up no file', async function () {
    const { sim } = await start();
    try {
      const externalId = `happy-${randomUUID().slice(0, 8)}`;
      await heldElsewhere(sim, externalId);
      const api = webApiOf(sim);

      const answer = await api.createAccount(applicationJsonOf(applicationXml(externalId)));
      assert.ok(Number.isInteger(answer.requestId), JSON.stringify(answer));
      const found = await api.applicationByExternalId(externalId);
      assert.equal(found.hasError, true, JSON.stringify(found));
      assert.deepEqual(
        [found.accountId, found.name, found.isProcessed, found.responseFileName],
        [undefined, undefined, undefined, undefined],
        JSON.stringify(found),
      );
      assert.equal(found.errorDescription, `No application with external id ${externalId}`);
      const listed: unknown[] = [];
      for await (const detail of api.requestDetails(requestWindow(new Date(sim.control.clock().epochMs)))) {
        if (detail.requestId === answer.requestId) listed.push(detail);
      }
      assert.deepEqual(listed, [], 'the create is listed among the requests');
    } finally {
      await sim.close();
    }
  });

  it('waits in doubt and stops unconfirmed, saying that none is listed for this firm and why one may never be', async function () {
    // The application's create goes through the Web API adapter (this firm on the Web API), built once the
    // simulator is up; validation stays the XML service's, which the simulator serves for the same firm.
    const webapi: { activities?: ApplicationActivities } = {};
    const harness = await engines.setUp({
      replace: {
        createAccount: (input: Parameters<ApplicationActivities['createAccount']>[0]) =>
          webapi.activities!.createAccount(input),
      },
    });
    const { env } = engines;
    const externalId = `happy-${randomUUID().slice(0, 8)}`;
    const otherCsid = await heldElsewhere(harness.sim, externalId);
    const api = webApiOf(harness.sim);
    webapi.activities = createWebApiApplicationActivities({
      clientFor: () => Promise.resolve(api),
      store: harness.store,
      now: () => new Date(harness.sim.control.clock().epochMs),
    });

    const handle = await startApplication(env, harness, 'happy', {
      externalId,
      input: { settings: { lostAnswerWindow: '1 hour' } },
    });

    await harness.worker.runUntil(async () => {
      let view: ApplicationStateView = await handle.query(stateQuery);
      // A minute of workflow time at a time, for at most two hours (past the lost-answer window).
      for (let step = 0; step < 120 && ['validating', 'creating'].includes(view.lifecycleState); step++) {
        await env.sleep('1 minute');
        view = await handle.query(stateQuery);
      }
      assert.equal(view.lifecycleState, 'unconfirmed', JSON.stringify(view.transitions));
      const reason = view.unconfirmed?.reason ?? '';
      assert.match(
        reason,
        /create answered request \d+, and the Web API lists no application under the external id for this firm/,
      );
      assert.ok(reason.includes(`("No application with external id ${externalId}")`), reason);
      assert.ok(
        reason.includes(
          'external ids are brokerage-wide and one another firm of the brokerage already holds is refused at create ' +
            'and never listed here',
        ),
        reason,
      );
      assert.match(reason, /abandon the application and start it under another id/);
    });

    // One create each (this firm's on the Web API), and the one account is the other firm's.
    assert.equal(harness.sim.control.calls()['webapi POST /gw/api/v1/accounts'], 1, 'create was sent again');
    const records = harness.sim.control.records({ externalId });
    assert.deepEqual(
      records.externalIds.flatMap((entry) => entry.accounts.map((account) => account.csid)),
      [otherCsid],
    );
  });
});
