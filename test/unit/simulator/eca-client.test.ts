import assert from 'node:assert/strict';
import { setLanguages } from '../../../client/brokerage.js';
import { InvalidInputError } from '../../../client/errors.js';
import { createEcaClient, EcaLanguageCodeError, type EcaClient } from '../../../eca/web-client/index.js';
import { EcaHttpError, EcaSchemaError } from '../../../eca/errors.js';
import { sha1Hex } from '../../../eca/archive.js';
import { APPLICATION_XML_EXAMPLE, buildDocumentSubmissionXml, buildUpdateRequestXml } from '../../../eca/xml.js';
import { buildLandingUrl } from '../../../eca/sso.js';
import { ENUMERATION_TYPES } from '../../../eca/enumerations.js';
import { enumerationRows } from '../../../simulator/operations/enumerations.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { control, createAccount, pdf, post, start, type Firm } from './helpers.js';

/** The eca/ client against the simulator, operation by operation. */
describe('eca client against the simulator', function () {
  let sim: RunningSimulator;
  let firm: Firm;
  let client: EcaClient;

  before(async function () {
    ({ sim, firm } = await start());
    client = createEcaClient({
      baseUrl: sim.url,
      preferenceUrl: sim.preferenceUrl,
      csid: sim.csid,
      firmPrivateKey: sim.keys.firmPrivateKey,
      brokeragePublicKey: sim.keys.brokeragePublicKey,
      retry: { limit: 2, delayMs: 10 },
      sso: { allowInsecureLoopback: true },
    });
  });
  after(async function () {
    await sim.close();
  });

  const application = (externalId: string) =>
    APPLICATION_XML_EXAMPLE.replace('external_id="EXT-1"', `external_id="${externalId}"`);

  it('runs an application from validateXML to an open account and an SSO landing page', async function () {
    const valid = await client.validateXML({ applicationXml: application('client-1') });
    assert.equal(valid.isValid, true);
    const created = await client.create({ applicationXml: application('client-1') });
    assert.equal(created.isProcessed, true);
    const [result] = created.response?.applications ?? [];
    assert.ok(result?.accountId && result.userName && result.temporaryPassword);
    const accountId = result.accountId;

    const file = await client.getResponseFile({ externalId: 'client-1' });
    assert.equal(file.files[0]?.clearingStatus?.code, 'N');
    assert.equal(file.files[0]?.isProcessed, true);

    const before = await client.getAccountStatus({ accountIds: accountId });
    assert.equal(before.accounts[0]?.state?.state, 'Under Review');
    await control(sim, 'POST', '/clock/advance', { days: 1 });
    const after = await client.getAccountStatus({ accountIds: [accountId] });
    assert.equal(after.accounts[0]?.status?.code, 'O');

    const batch = await client.getBatchDetails({ accountIds: accountId });
    assert.equal(batch.accounts[0]?.clearingStatus?.code, 'O');
    const files = await client.getFileDetails({ accountIds: accountId });
    assert.match(files.accounts[0]?.requestFileName ?? '', /\.xml\.imported$/);
    const registration = await client.getRegistrationTasks({ accountIds: accountId });
    assert.ok(registration.accounts[0]?.dateOpened);

    const sso = await client.ssoCreate({ userName: result.userName, ip: '127.0.0.1' });
    assert.equal(sso.result, true);
    assert.ok(sso.signedUrl);
    const page = await fetch(buildLandingUrl(sso.signedUrl, 'statements'));
    assert.equal(page.status, 200);

    const preference = await client.preferenceSet({
      customerIdentity: { userName: result.userName },
      preferences: { LANGUAGE: { LANG1: 'de' } },
    });
    assert.equal(preference.status, 200);

    const update = await client.update({
      xml: buildUpdateRequestXml({ accountId, functionName: 'ChangeBaseCurrency' }),
    });
    const fileName = update.fileData?.name ?? '';
    assert.match(fileName, /\.xml$/);
    await control(sim, 'POST', '/clock/advance', { minutes: 5 });
    // The request is found by account and matched on the update's response file name.
    const requests = await client.getAmRequestStatus({ accountIds: accountId });
    const group = requests.requests[0]?.requests[0];
    // The response file first, then the firm's own file names (the library names the request XML update.xml).
    assert.deepEqual(group?.files, [fileName, 'update.xml']);
    assert.equal(group?.data[0]?.status?.status, 'PROCESSED');
  });

  it('documents: docs-required tasks, DocumentSubmission report, submitDocuments', async function () {
    const created = await client.create({ applicationXml: application('docs-required-client') });
    const accountId = created.response?.applications[0]?.accountId ?? '';
    const pending = await client.getPendingTasks({ accountIds: accountId });
    assert.deepEqual(
      pending.accounts[0]?.pendingTasks.map((t) => t.formNumber),
      ['8001', '8002'],
    );
    const submitted = await client.submitDocuments({
      documents: [
        {
          formNumber: '3230',
          execTs: '20250108100000',
          execLoginTs: '20250108095500',
          files: [{ fileName: 'agreement.pdf', data: pdf('agreement') }],
        },
      ],
    });
    assert.equal(submitted.isProcessed, true);
    assert.equal(submitted.fileData?.report.documents[0]?.accepted, true);
    const update = await client.update({
      xml: buildDocumentSubmissionXml({
        accountId,
        documents: [
          {
            formNumber: '8001',
            execTs: '20250108100000',
            execLoginTs: '20250108095500',
            files: [
              {
                fileName: 'id.pdf',
                sha1: sha1Hex(pdf('id')),
                length: pdf('id').byteLength,
              },
            ],
          },
        ],
      }),
      attachments: [{ fileName: 'id.pdf', data: pdf('id') }],
    });
    assert.ok(update.fileData?.name);
    await control(sim, 'POST', '/clock/advance', { minutes: 5 });
    const requests = await client.getAmRequestStatus({ accountIds: accountId });
    assert.equal(requests.requests[0]?.requests[0]?.data[0]?.status?.status, 'PROCESSED');
  });

  // Spec, preference/set: "Languages are given as short lower-case codes." What the simulator refuses, the client
  // (eca/ and the client API) refuses before sending.
  it('languages: the client refuses before sending what the simulator refuses ("Languages are given as short lower-case codes")', async function () {
    const { userName } = await createAccount(sim, firm, 'happy-languages');
    for (const code of ['en-US', 'zh-Hans', 'EN', 'English']) {
      const raw = await post(sim.preferenceUrl, '/preference/set', {
        customerIdentity: { userName },
        preferences: { LANGUAGE: { LANG1: code } },
      });
      assert.equal(raw.status, 400, `the simulator takes ${code}`);
      sim.control.resetCalls();
      await assert.rejects(
        client.preferenceSet({ customerIdentity: { userName }, preferences: { LANGUAGE: { LANG1: code } } }),
        (error) => error instanceof EcaLanguageCodeError && error.value === code,
      );
      await assert.rejects(
        setLanguages({ userName, lang1: 'en', lang2: code }, client),
        (error) => error instanceof InvalidInputError && error.input === 'lang2' && error.message.includes(`"${code}"`),
      );
      assert.equal(sim.control.calls()['preference/set'] ?? 0, 0, 'nothing was sent');
    }
    const accepted = await setLanguages({ userName, lang1: 'zh', lang2: 'en' }, client);
    assert.equal(accepted.status, 200);
  });

  // Spec, Authentication 2: "Responses that carry files are encrypted XML in base64 that the caller decrypts"; the
  // simulator sends getEnumerations' CSV so. Read as it came, ciphertext would be CSV of noise or a schema error.
  it('enumerations through the client: the encrypted CSV opened, every type row for row', async function () {
    const ranges = await client.getEnumerations({ type: 'FIN_INFO_RANGES', currency: 'USD' });
    assert.ok(ranges.rows.length > 0);
    assert.equal(ranges.rows[0]?.currency, 'USD');
    for (const type of ENUMERATION_TYPES) {
      const narrowing =
        type === 'FIN_INFO_RANGES' ? { currency: 'EUR' } : type === 'EDD_AVT' ? { formNumber: '4100' } : {};
      const table = enumerationRows(type, narrowing);
      assert.ok(typeof table !== 'string', table as string);
      const read = await client.getEnumerations({ type, ...narrowing });
      const expected = table.rows.map((row) => Object.fromEntries(table.header.map((column, at) => [column, row[at]])));
      assert.deepEqual(read.rows, expected, type);
      const raw = read.raw as { fileData: { data: string } };
      assert.doesNotMatch(
        Buffer.from(raw.fileData.data, 'base64').toString('latin1'),
        new RegExp(table.header[0]!),
        'sent encrypted',
      );
    }
  });

  it('retries a query through injected 503s and malformed JSON; then refuses with the typed error', async function () {
    sim.control.resetCalls();
    await control(sim, 'POST', '/faults', { operation: 'getAccountStatus', kind: 'http503', count: 2 });
    const response = await client.getAccountStatus();
    assert.ok(response.accounts.length > 0);
    assert.equal(sim.control.calls().getAccountStatus, 3);
    await control(sim, 'POST', '/faults', { operation: 'getAccountStatus', kind: 'http500', count: 5 });
    await assert.rejects(client.getAccountStatus(), EcaHttpError);
    await control(sim, 'DELETE', '/faults');
    await control(sim, 'DELETE', '/faults');
    sim.control.resetCalls();
    await control(sim, 'POST', '/faults', { operation: 'getAccountStatus', kind: 'malformed', count: 1 });
    assert.ok((await client.getAccountStatus()).accounts.length > 0);
    assert.equal(sim.control.calls().getAccountStatus, 2, 'the malformed answer, then one that parsed');
    await control(sim, 'POST', '/faults', { operation: 'getAccountStatus', kind: 'malformed', count: 5 });
    await assert.rejects(client.getAccountStatus(), EcaSchemaError);
  });
});
