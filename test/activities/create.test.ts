/**
 * The create activity against the spec-strict simulator over HTTP: getResponseFile before every
 * attempt, the account matched on the response file name, failure entries settled, and a processed
 * file whose account cannot be matched never created again.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApplicationActivities } from '../../activities/application.js';
import { FileDocumentStore } from '../../runtime/document-store.js';
import type { ApplicationActivities } from '../../workflows/application/activities.js';
import { ecaClientFor } from '../../simulator/client.js';
import { startSimulator } from '../../simulator/server.js';
import type { RunningSimulator } from '../../simulator/server.js';
import { applicationXml } from '../support/engine.js';

describe('createAccount activity (spec fields only, simulator over HTTP)', function () {
  let sim: RunningSimulator;
  let dir: string;
  let store: FileDocumentStore;

  beforeEach(async function () {
    sim = await startSimulator({ startTime: Date.UTC(2025, 0, 8, 10) });
    dir = await mkdtemp(join(tmpdir(), 'eca-create-'));
    store = new FileDocumentStore(join(dir, 'documents'));
  });
  afterEach(async function () {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  function activities(fetch?: typeof globalThis.fetch): ApplicationActivities {
    return createApplicationActivities({ eca: ecaClientFor(sim, { retry: 0, ...(fetch && { fetch }) }), store });
  }

  async function input(externalId: string, edit?: (xml: string) => string) {
    const application = await store.put(new TextEncoder().encode(applicationXml(externalId, edit)));
    return { csid: sim.csid, externalId, application, documents: [] };
  }

  it('finds the account of a processed file instead of creating again, by getFileDetails on the file name', async function () {
    const engine = activities();
    const first = await engine.createAccount(await input('happy-c1'));
    assert.ok(first.created);
    assert.equal(first.recovered, false);
    const again = await engine.createAccount(await input('happy-c1'));
    assert.ok(again.created);
    assert.deepEqual([again.accountId, again.recovered], [first.accountId, true]);
    assert.equal(sim.control.calls().create, 1, 'create was sent again');
    assert.ok((sim.control.calls().getFileDetails ?? 0) >= 2, 'the account was matched with getFileDetails');
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
    assert.equal(sim.control.calls().create, 1);
    const corrected = { ...(await input('happy-c2')), settledFiles: refused.settledFiles };
    const created = await engine.createAccount(corrected);
    assert.ok(created.created, JSON.stringify(created));
    const recovered = await engine.createAccount(corrected);
    assert.ok(recovered.created && recovered.recovered && recovered.accountId === created.accountId);
    assert.equal(sim.control.calls().create, 2, 'one create per application XML');
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
    assert.equal(sim.control.calls().create, 1, 'a processed file must never be created again');
  });
});
