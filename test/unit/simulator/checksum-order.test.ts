import assert from 'node:assert/strict';
import { sha1Hex } from '../../../eca/archive.js';
import { createEcaClient, type EcaClient } from '../../../eca/web-client/index.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { control, pdf, start } from './helpers.js';

// Spec, submitDocuments report: "`Status` states that the file has a different SHA-1 checksum and gives the stored
// and the received values" (their order and labels: not shown).
describe('checksum-mismatch texts under checksum-received-first', function () {
  let sim: RunningSimulator;
  let eca: EcaClient;

  before(async function () {
    ({ sim } = await start({ unpromised: ['checksum-received-first'] }));
    eca = createEcaClient({
      baseUrl: sim.url,
      csid: sim.csid,
      firmPrivateKey: sim.keys.firmPrivateKey,
      brokeragePublicKey: sim.keys.brokeragePublicKey,
    });
  });
  after(async function () {
    await sim.close();
  });

  const submit = (data: Uint8Array) =>
    eca.submitDocuments({
      documents: [
        {
          formNumber: '3230',
          execTs: '20250108100000',
          execLoginTs: '20250108095500',
          files: [{ fileName: 'agreement.pdf', data }],
        },
      ],
    });

  it('reads the archived form as stored and the one sent as received, whatever their order', async function () {
    const archived = pdf('customer agreement v1');
    assert.equal((await submit(archived)).fileData?.report.documents[0]?.accepted, true);
    await control(sim, 'POST', '/clock/advance', { days: 1 });
    const changed = pdf('customer agreement v2');
    const [document] = (await submit(changed)).fileData?.report.documents ?? [];
    assert.equal(document?.accepted, false);
    // The text gives the received digest first, unlabelled.
    assert.equal(
      document?.status,
      `File agreement.pdf has a different SHA-1 checksum (${sha1Hex(changed)} / ${sha1Hex(archived)})`,
    );
    assert.deepEqual(document?.checksumMismatch, { stored: sha1Hex(archived), received: sha1Hex(changed) });
  });
});
