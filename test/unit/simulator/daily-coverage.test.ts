/**
 * submitDocuments rule 4: the day's submission "applies to fully disclosed clients (individual, joint, retirement)
 * and advisor clients (individual, joint, retirement)". The simulator holds a create of any other customer to
 * the forms its own archive carries: an agreement submitted that day but missing from the archive is a task to sign.
 */
import assert from 'node:assert/strict';
import { createEcaClient, type EcaClient } from '../../../eca/web-client/index.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { applicationXml, pdf, start } from './helpers.js';

describe('simulator: the day’s submission covers individual, joint and retirement customers only', function () {
  let sim: RunningSimulator;
  let eca: EcaClient;

  before(async function () {
    ({ sim } = await start());
    eca = createEcaClient({
      baseUrl: sim.url,
      csid: sim.csid,
      firmPrivateKey: sim.keys.firmPrivateKey,
      brokeragePublicKey: sim.keys.brokeragePublicKey,
    });
    const submitted = await eca.submitDocuments({
      documents: ['3230', '3024'].map((formNumber) => ({
        formNumber,
        execTs: '20250108100000',
        execLoginTs: '20250108095500',
        files: [{ fileName: `${formNumber}.pdf`, data: pdf(formNumber) }],
      })),
    });
    assert.equal(submitted.isProcessed, true);
  });
  after(async function () {
    await sim.close();
  });

  async function tasksOf(externalId: string, customerType: string, carried: string[]) {
    const xml = applicationXml(externalId).replace('type="INDIVIDUAL"', `type="${customerType}"`);
    const created = await eca.create({
      applicationXml: xml,
      attachments: carried.map((formNumber) => ({ fileName: `${formNumber}.pdf`, data: pdf(formNumber) })),
    });
    const accountId = created.response?.applications[0]?.accountId ?? '';
    assert.ok(accountId, `${externalId} made no account`);
    const status = await eca.getAccountStatus({ accountIds: accountId });
    const pending = await eca.getPendingTasks({ accountIds: accountId });
    return {
      state: status.accounts[0]?.state,
      toSign: (pending.accounts[0]?.pendingTasks ?? []).map((task) => `${task.formNumber} ${task.action?.action}`),
    };
  }

  it('asks nothing more of an individual, a joint or a retirement customer', async function () {
    for (const type of ['INDIVIDUAL', 'JOINT', 'IRA']) {
      assert.deepEqual((await tasksOf(`covered-${type}`, type, [])).toSign, [], type);
    }
  });

  it('gives an organization or a trust a task to sign for each submitted agreement its archive lacks', async function () {
    const org = await tasksOf('org-bare', 'ORG', []);
    assert.deepEqual(org.toSign.sort(), ['3024 to sign', '3230 to sign']);
    assert.equal(org.state?.raw, 'Incomplete Application');
    assert.deepEqual((await tasksOf('trust-half', 'TRUST', ['3230'])).toSign, ['3024 to sign']);
    assert.deepEqual((await tasksOf('org-full', 'ORG', ['3230', '3024'])).toSign, []);
  });

  // Spec, request XML: "AttachedFile | element, one or more per Document".
  it('asks for a form of several files until the archive carries every one of them', async function () {
    const submitted = await eca.submitDocuments({
      documents: [
        {
          formNumber: '4730',
          execTs: '20250108100000',
          execLoginTs: '20250108095500',
          files: ['4730-a', '4730-b'].map((name) => ({ fileName: `${name}.pdf`, data: pdf(name) })),
        },
      ],
    });
    assert.equal(submitted.isProcessed, true);
    assert.deepEqual((await tasksOf('trust-part', 'TRUST', ['3230', '3024', '4730-b'])).toSign, ['4730 to sign']);
    assert.deepEqual((await tasksOf('trust-parts', 'TRUST', ['3230', '3024', '4730-a', '4730-b'])).toSign, []);
  });
});
