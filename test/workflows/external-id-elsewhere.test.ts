/**
 * External ids are the brokerage's, not the firm's: an external id another firm of the same brokerage already
 * used is refused by the brokerage in the create's own report (Status `Error`, the reason in its words), and
 * getResponseFile lists nothing of it for this firm. The application stops at once, in `needsCorrection` with
 * the brokerage's words, instead of waiting in doubt for the lost-answer window; and no account is made for it.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ecaClientFor } from '../../simulator/client.js';
import { stateQuery } from '../../workflows/application/messages.js';
import type { ApplicationStateView } from '../../workflows/application/messages.js';
import { applicationXml, startApplication, timeSkippingEngine } from '../support/engine.js';

describe('an external id another firm used at the brokerage (time-skipping server, simulator over HTTP)', function () {
  this.timeout(120_000);
  const engines = timeSkippingEngine();

  it("is refused by the brokerage's create report: needs correction at once, with its words, and no account", async function () {
    const harness = await engines.setUp();
    const { env } = engines;
    const externalId = `happy-${randomUUID().slice(0, 8)}`;

    // Another firm of the same brokerage creates an account with the external id first.
    const other = await harness.sim.control.registerFirm({
      name: 'OtherFirm',
      csid: `OTHER-${randomUUID().slice(0, 6)}`,
    });
    const otherEca = ecaClientFor(harness.sim, {
      csid: other.csid,
      firmPrivateKey: other.keys.firmPrivateKey,
      timeoutMs: 10_000,
      retry: 0,
    });
    const first = await otherEca.create({ CSID: other.csid, applicationXml: applicationXml(externalId) });
    assert.equal(first.response?.applications[0]?.status.status, 'Success', JSON.stringify(first.response));

    // This firm starts an application with the same external id.
    const handle = await startApplication(env, harness, 'happy', {
      externalId,
      input: { settings: { lostAnswerWindow: '1 hour' } },
    });

    await harness.worker.runUntil(async () => {
      const began = await env.currentTimeMs();
      let view: ApplicationStateView = await handle.query(stateQuery);
      // A minute of workflow time at a time, for at most two hours (past the lost-answer window).
      for (let step = 0; step < 120 && ['validating', 'creating'].includes(view.lifecycleState); step++) {
        await env.sleep('1 minute');
        view = await handle.query(stateQuery);
      }
      const took = (await env.currentTimeMs()) - began;
      assert.equal(view.lifecycleState, 'needsCorrection', JSON.stringify({ unconfirmed: view.unconfirmed }));
      assert.ok(took < 5 * 60_000, `stopped after ${Math.round(took / 60_000)} min of workflow time`);
      assert.ok(
        view.corrections.some((text) => text.includes(`External id ${externalId} is already in use`)),
        view.corrections.join('; '),
      );
      assert.equal(view.inDoubt, undefined, JSON.stringify(view.inDoubt));
      const states = view.transitions.map((transition) => transition.state);
      assert.ok(!states.includes('unconfirmed'), states.join(' → '));
    });

    // One create each, and the one account is the other firm's.
    assert.equal(harness.sim.control.calls().create, 2, 'create was sent again');
    const records = harness.sim.control.records({ externalId });
    assert.deepEqual(
      records.externalIds.flatMap((entry) => entry.accounts.map((account) => account.csid)),
      [other.csid],
    );
    assert.deepEqual(harness.sim.control.records({ csid: harness.sim.csid, externalId }).externalIds, []);
  });
});
