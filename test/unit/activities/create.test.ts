/**
 * The create activity against the spec-strict simulator over HTTP: getResponseFile before every
 * attempt, the account matched on the response file name, failure entries settled, and a processed
 * file whose account cannot be matched never created again.
 */
import assert from 'node:assert/strict';
import { ecaClientFor } from '../../../simulator/client.js';
import { applicationXml } from '../../support/engine.js';
import { useSimulatorActivities } from '../../support/simulator-activities.js';

describe('createAccount activity (spec fields only, simulator over HTTP)', function () {
  const world = useSimulatorActivities();
  const activities = world.activities.bind(world);
  const input = world.input.bind(world);

  it('finds the account of a processed file instead of creating again, by getFileDetails on the file name', async function () {
    const engine = activities();
    const first = await engine.createAccount(await input('happy-c1'));
    assert.ok(first.created);
    assert.equal(first.recovered, false);
    const again = await engine.createAccount(await input('happy-c1'));
    assert.ok(again.created);
    assert.deepEqual([again.accountId, again.recovered], [first.accountId, true]);
    assert.equal(world.sim.control.calls().create, 1, 'create was sent again');
    assert.ok((world.sim.control.calls().getFileDetails ?? 0) >= 2, 'the account was matched with getFileDetails');
  });

  it('a failure entry refuses and settles its file; the resubmission with the file settled creates once', async function () {
    const engine = activities();
    const refused = await engine.createAccount(await input('happy-c2', (xml) => xml.replace(' last="Doe"', '')));
    assert.equal(refused.created, false);
    assert.ok('errors' in refused && refused.settledFiles?.length === 1, JSON.stringify(refused));
    assert.match(refused.errors.join(' '), /last name/);
    // Not settled, the failure entry refuses again without a call to create.
    const unsettled = await engine.createAccount(await input('happy-c2'));
    assert.equal(unsettled.created, false);
    assert.equal(world.sim.control.calls().create, 1);
    const corrected = { ...(await input('happy-c2')), settledFiles: refused.settledFiles };
    const created = await engine.createAccount(corrected);
    assert.ok(created.created, JSON.stringify(created));
    const recovered = await engine.createAccount(corrected);
    assert.ok(recovered.created && recovered.recovered && recovered.accountId === created.accountId);
    assert.equal(world.sim.control.calls().create, 2, 'one create per application XML');
  });

  it('a processed file whose account no getFileDetails entry names is unconfirmed and never created again', async function () {
    // The service lists the account, but not (yet) with its response file name.
    const hidingFileNames: typeof fetch = async (request, init) => {
      const response = await fetch(request, init);
      const url = request instanceof Request ? request.url : String(request);
      if (!url.endsWith('/ws/eca/getFileDetails')) return response;
      const body = (await response.json()) as { result: Array<Record<string, unknown>> };
      for (const entry of body.result) delete entry['Response File Name'];
      return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const engine = activities(hidingFileNames);
    const first = await engine.createAccount(await input('happy-c3'));
    assert.ok('unconfirmed' in first, JSON.stringify(first));
    assert.match(first.unconfirmed.responseFile, /\.xml\.report$/);
    assert.match(first.unconfirmed.reason, /no account lists response file/);
    const second = await engine.createAccount(await input('happy-c3'));
    assert.ok('unconfirmed' in second);
    assert.equal(world.sim.control.calls().create, 1, 'a processed file must never be created again');
  });

  it('a lost answer is an unknown outcome: nothing is sent again, and the look-ups find the account once listed', async function () {
    world.sim.control.setListingLag({
      getResponseFile: { minMs: 400, maxMs: 400 },
      getFileDetails: { minMs: 400, maxMs: 400 },
    });
    world.sim.control.addFault({ operation: 'create', kind: 'lost-response', count: 1 });
    const engine = activities();
    const lost = await engine.createAccount(await input('happy-c4'));
    assert.ok('unknown' in lost && lost.unknown.sentAt !== undefined, JSON.stringify(lost));
    // Processed, not listed yet: the look finds nothing and says so, and sends nothing.
    const early = await engine.createAccount({ ...(await input('happy-c4')), lookOnly: true });
    assert.ok('unknown' in early, JSON.stringify(early));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const found = await engine.createAccount({ ...(await input('happy-c4')), lookOnly: true });
    assert.ok(found.created && found.recovered, JSON.stringify(found));
    assert.equal(world.sim.control.calls().create, 1);
    const records = world.sim.control.records({ externalId: 'happy-c4' });
    assert.equal(records.externalIds[0]?.accounts.length, 1);
  });

  it('a 5xx or a dropped connection is an unknown outcome; a refused connection is thrown (nothing was sent)', async function () {
    for (const kind of ['http500', 'drop'] as const) {
      world.sim.control.addFault({ operation: 'create', kind, count: 1 });
      const outcome = await activities().createAccount(await input(`happy-c5-${kind}`));
      assert.ok('unknown' in outcome, `${kind}: ${JSON.stringify(outcome)}`);
    }
    const refusedConnection: typeof fetch = (request, init) => {
      const url = request instanceof Request ? request.url : String(request);
      if (!url.endsWith('/ws/eca/create')) return fetch(request, init);
      const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
      return Promise.reject(new TypeError('fetch failed', { cause }));
    };
    await assert.rejects(activities(refusedConnection).createAccount(await input('happy-c6')), /ECONNREFUSED/);
  });

  it('keys the brokerage cannot use are a configuration error, never a correction asked of the firm', async function () {
    const other = await world.sim.control.registerFirm({ name: 'OtherFirm' });
    const { previous } = world.sim.control.setFirmPublicKey(world.sim.csid, other.keys.firmPublicKey);
    const engine = activities();
    const application = await input('happy-c7');
    // validateXML: "isValid false with an encryption error text"; create: "isProcessed false".
    await assert.rejects(engine.validateApplication(application), (error: Error) => error.name === 'EcaCryptoError');
    await assert.rejects(engine.createAccount(application), (error: Error) => error.name === 'EcaCryptoError');
    world.sim.control.setFirmPublicKey(world.sim.csid, previous);
    assert.equal((await engine.validateApplication(application)).valid, true);
    assert.ok((await engine.createAccount(application)).created);
  });

  it('a create answered "Already processed" (a repeated external id) finds the one account the first made', async function () {
    world.sim.control.setRepeatedExternalId('already-processed');
    // Listed a minute late, passed by a clock jump: a loaded machine cannot pass it between the two sends.
    world.sim.control.setListingLag({ getResponseFile: { minMs: 60_000, maxMs: 60_000 } });
    world.sim.control.addFault({ operation: 'create', kind: 'lost-response', count: 1 });
    const engine = activities();
    const lost = await engine.createAccount(await input('happy-c8'));
    assert.ok('unknown' in lost);
    // Staff declared it never arrived and the application is sent again before the first is listed.
    const again = await engine.createAccount(await input('happy-c8'));
    assert.ok('unknown' in again && /Already processed/.test(again.unknown.reason), JSON.stringify(again));
    world.sim.control.advanceClock({ minutes: 2 });
    const found = await engine.createAccount({ ...(await input('happy-c8')), lookOnly: true });
    assert.ok(found.created && found.recovered, JSON.stringify(found));
    assert.equal(world.sim.control.calls().create, 2);
    assert.equal(world.sim.control.records({ externalId: 'happy-c8' }).externalIds[0]?.accounts.length, 1);
  });

  it("an external id another firm used is refused by the create's report: its errors, nothing in doubt", async function () {
    const other = await world.sim.control.registerFirm({ name: 'OtherFirm' });
    const otherEca = ecaClientFor(world.sim, { csid: other.csid, firmPrivateKey: other.keys.firmPrivateKey, retry: 0 });
    const first = await otherEca.create({ CSID: other.csid, applicationXml: applicationXml('happy-c9') });
    assert.equal(first.response?.applications[0]?.status.status, 'Success');
    const refused = await activities().createAccount(await input('happy-c9'));
    assert.ok('errors' in refused, JSON.stringify(refused));
    assert.deepEqual(refused.errors, ['External id happy-c9 is already in use']);
    assert.equal(refused.settledFiles?.length, 1);
    assert.equal(world.sim.control.calls().create, 2);
    const accounts = world.sim.control.records({ externalId: 'happy-c9' }).externalIds[0]?.accounts ?? [];
    assert.deepEqual(
      accounts.map((account) => account.csid),
      [other.csid],
    );
  });
});
