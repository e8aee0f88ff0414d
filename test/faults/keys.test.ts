/**
 * `npm run test:faults`, the firm's keys wrong while many applications are in flight: the worker's
 * passphrase, then the key the brokerage holds for the firm. Every application heals once the keys are
 * agreed again; the keys are blamed, never an application.
 */
import assert from 'node:assert/strict';
import { getState, retry } from '../../client/applications.js';
import { runFleet } from './world.js';
import { APPLICATIONS, describeFaults } from './suite.js';

describeFaults('fault injection, the keys (real processes: dev server, simulator, workers)', (suite) => {
  it('the firm key passphrase is wrong, then fixed, while applications are in flight: all heal', async function () {
    const taskQueue = suite.nextQueue();
    const { keyFile, passphrase } = await suite.world.protectedFirmKey();
    const wrong = await suite.world.worker('worker (wrong passphrase)', taskQueue, {
      ECA_FIRM_PRIVATE_KEY: keyFile,
      ECA_FIRM_KEY_PASSPHRASE: 'not-the-passphrase',
    });
    const alerts = () => wrong.output.match(/configuration error \(keys\)/g)?.length ?? 0;
    let alerted = 0;
    await runFleet(suite.world, {
      name: 'wrong passphrase, then fixed',
      listingLag: false,
      taskQueue,
      applications: APPLICATIONS,
      faultKinds: 'firm key passphrase wrong',
      // Every call with a file needs the key: each attempt fails, retryably, with an alert in the log. Fixed
      // once the alerts show (counted in the last 20 kB of output the suite.world keeps).
      disruptWhen: () => alerts() >= 5,
      disrupt: async (w) => {
        alerted = alerts();
        await w.killWorker(wrong);
        await w.worker('worker (passphrase fixed)', taskQueue, {
          ECA_FIRM_PRIVATE_KEY: keyFile,
          ECA_FIRM_KEY_PASSPHRASE: passphrase,
        });
        return 1;
      },
    });
    assert.ok(alerted >= 5, `the wrong passphrase was alerted ${alerted} times`);
  });

  it('the brokerage holds another key for the firm while applications are in flight: keys blamed, never the applications', async function () {
    const taskQueue = suite.nextQueue();
    // Key problems are configuration errors: alerted and retried for 20 s, then the application is blocked
    // with the configuration reason (which the staff see, and this case checks).
    await suite.world.worker('worker', taskQueue, { ECA_BLOCK_AFTER_MS: '20000' });
    const csid = encodeURIComponent(suite.world.sim.csid);
    const other = await suite.world.sim.control<{ keys: { firmPublicKey: string } }>('POST', '/firms', {
      name: 'RotatedKey',
    });
    let previous: string | undefined;
    let original: string | undefined;
    const unexpected: string[] = [];
    // The firm's key is agreed again however the case ends: a case that fails with the brokerage still
    // holding the other key must not fail every case after it.
    let stoppedByKeys = 0;
    const agreeOnce = async () => {
      if (previous === undefined) return;
      await suite.world.sim.control('PUT', `/firms/${csid}/public-key`, { publicKey: previous });
      previous = undefined;
    };
    const agreeAgain = async () => {
      if (original !== undefined)
        await suite.world.sim.control('PUT', `/firms/${csid}/public-key`, { publicKey: original });
    };
    const report = await runFleet(suite.world, {
      name: 'firm key rotated at the brokerage, then agreed again',
      taskQueue,
      applications: APPLICATIONS,
      faultKinds: 'brokerage holds another firm public key',
      // A create the brokerage could not verify is answered "not processed" (isProcessed false): sent again.
      createCallsMayFail: true,
      // A third of the creates made: from now on the brokerage verifies the firm's payloads with another key.
      disrupt: async (w) => {
        ({ previous } = await w.sim.control<{ previous: string }>('PUT', `/firms/${csid}/public-key`, {
          publicKey: other.keys.firmPublicKey,
        }));
        original = previous;
        return 1;
      },
      // An update the brokerage could not verify is answered without fileData: whether it was filed is unknown, so
      // it is looked up and stops in `unconfirmed`, its reason naming the keys (a reference application sealed with
      // them is refused too). The staff agree the keys again there as well; the suite's staff then retry.
      onUnconfirmed: async (ctx, app) => {
        const state = await getState(ctx, app.externalId);
        if (state.lifecycleState !== 'unconfirmed') return;
        if (!/keys may be at fault/.test(state.unconfirmed?.reason ?? '')) return;
        stoppedByKeys++;
        await agreeOnce();
      },
      onBlocked: async (ctx, app) => {
        const state = await getState(ctx, app.externalId);
        // The search attribute may lag a staff retry already taken: only a blocked application is judged.
        if (state.lifecycleState !== 'blocked') return;
        // The first blocked application tells the staff; they agree the keys again and retry each one.
        stoppedByKeys++;
        await agreeOnce();
        const blocked = state.blocked;
        if (blocked?.errorType !== 'EcaCryptoError' || !/configuration error \(keys\)/.test(blocked.reason)) {
          unexpected.push(`${app.externalId}: ${JSON.stringify(blocked)}`);
        }
        await retry(ctx, app.externalId);
      },
    }).finally(agreeAgain);
    assert.deepEqual(unexpected, [], 'blocked otherwise than by the keys');
    assert.ok(stoppedByKeys > 0, 'no application stopped for the rotated key');
    assert.ok(report.unblocked > 0 || report.unconfirmed > 0, 'no staff action was needed');
  });
});
