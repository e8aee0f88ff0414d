/**
 * The Web API's enumerations (`GET /gw/api/v1/enumerations/{enumerationType}`) against the simulator: a list
 * read under the document's name and narrowed by its query fields, with either scope the document allows; a
 * type the document does not list refused before anything is sent.
 */
import assert from 'node:assert/strict';
import type { RunningSimulator } from '../../../simulator/server.js';
import { WebApiHttpError, WebApiRequestError } from '../../../webapi/index.js';
import type { WebApiEnumerationType } from '../../../webapi/index.js';
import { start } from '../simulator/helpers.js';
import { registerWebApiClient } from '../../support/webapi-clients.js';

describe('Web API enumerations against the simulator', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  const path = 'webapi GET /gw/api/v1/enumerations/:enumerationType';
  const clientWith = (clientId: string, scopes: string[]) =>
    registerWebApiClient(sim, { clientId, csid: sim.csid, scopes }).client({ timeoutMs: 2000 });

  before(async function () {
    ({ sim } = await start());
  });
  after(async function () {
    await sim.close();
  });

  it('reads a list narrowed by its query fields, each row keyed by its column: no XML call', async function () {
    const client = clientWith('enum-accounts', ['accounts.read']);
    sim.control.resetCalls();
    const ranges = await client.enumerations('fin-info-ranges', { currency: 'EUR' });
    assert.equal(ranges.enumerationsType, 'fin-info-ranges');
    const rows = ranges.jsonData as Array<Record<string, string>>;
    assert.ok(rows.length > 0);
    for (const row of rows) assert.equal(Object.values(row)[0], 'EUR');
    await assert.rejects(
      client.enumerations('fin-info-ranges'),
      (error: unknown) =>
        error instanceof WebApiHttpError && error.status === 400 && /currency/.test(error.bodyExcerpt),
    );
    assert.equal(sim.control.calls()[path], 2);
    assert.equal(sim.control.calls().getEnumerations, undefined);
  });

  it('lets in a token of either scope the document allows, and no other', async function () {
    const reader = clientWith('enum-reader', ['enumerations.read']);
    const acats = await reader.enumerations('acats');
    assert.ok(Array.isArray(acats.jsonData) && acats.jsonData.length > 0);
    const writer = clientWith('enum-writer', ['accounts.write']);
    await assert.rejects(
      writer.enumerations('acats'),
      (error: unknown) => error instanceof WebApiHttpError && error.status === 403,
    );
  });

  it('refuses a type the document does not list before anything is sent', async function () {
    const client = clientWith('enum-bad', ['accounts.read']);
    sim.control.resetCalls();
    await assert.rejects(
      client.enumerations('occupations' as WebApiEnumerationType),
      (error: unknown) => error instanceof WebApiRequestError && error.parameter === 'enumerationType',
    );
    assert.equal(sim.control.calls()[path], undefined);
  });
});
