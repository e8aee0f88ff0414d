/**
 * The settings `encryption-text-unworded`, `no-error-field` and `create-format-refusal` as the simulator answers
 * under them (what the engine does then: test/unit/activities/unworded-refusals.test.ts).
 */
import assert from 'node:assert/strict';
import type { RunningSimulator } from '../../../simulator/server.js';
import { applicationXml, control, filePayload, op, start, type Firm } from './helpers.js';

const KEY_WORDS = /encrypt|decrypt|signature|signed|key/i;

describe('simulator: refusals without fixed words, fields or promises', function () {
  let sim: RunningSimulator;
  let firm: Firm;
  const notPgp = Buffer.from('not pgp').toString('base64');

  before(async function () {
    ({ sim, firm } = await start({
      unpromised: ['encryption-text-unworded', 'no-error-field', 'create-format-refusal'],
    }));
  });
  after(async function () {
    await sim.close();
  });

  it('encryption-text-unworded: a payload that cannot be opened gets a text naming no keys', async function () {
    const validated = await op(sim, 'validateXML', { CSID: firm.csid, payload: notPgp });
    assert.equal(validated.body.isValid, false);
    const errors = (validated.body.errors as Array<{ error: string }>).map((entry) => entry.error);
    assert.deepEqual(errors, ['Request could not be processed (code 4012)']);
    const sso = await op(sim, 'sso/create', { CSID: firm.csid, payload: notPgp });
    assert.equal(sso.body.RESULT, false);
    assert.doesNotMatch(String(sso.body.ERROR), KEY_WORDS);
  });

  it('no-error-field: an update that files nothing answers its timestamp alone', async function () {
    const { body } = await op(sim, 'update', { CSID: firm.csid, payload: notPgp });
    assert.deepEqual(Object.keys(body), ['timestamp']);
  });

  it('create-format-refusal: create refuses a file holding the mark that validateXML accepts, every time', async function () {
    const marked = applicationXml('happy-f1').replace('<Applications', '<!-- format-refused -->\n<Applications');
    const payload = await filePayload(firm.keys, { fileName: 'app.xml', content: marked });
    assert.equal((await op(sim, 'validateXML', { CSID: firm.csid, payload })).body.isValid, true);
    for (let attempt = 0; attempt < 2; attempt++) {
      const { body } = await op(sim, 'create', { CSID: firm.csid, payload });
      assert.deepEqual(Object.keys(body).sort(), ['batchId', 'isProcessed', 'timestamp']);
      assert.equal(body.isProcessed, false);
    }
    const plain = await filePayload(firm.keys, { fileName: 'app.xml', content: applicationXml('happy-f2') });
    assert.equal((await op(sim, 'create', { CSID: firm.csid, payload: plain })).body.isProcessed, true);
    // Turned off, the marked file is processed like any other.
    await control(sim, 'PUT', '/unpromised', { 'create-format-refusal': false });
    assert.equal((await op(sim, 'create', { CSID: firm.csid, payload })).body.isProcessed, true);
  });
});
