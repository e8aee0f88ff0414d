import assert from 'node:assert/strict';
import { sha1Hex } from '../../eca/archive.js';
import { loadPrivateKey } from '../../eca/crypto.js';
import { buildDocumentSubmissionXml, buildUpdateRequestXml, parseDocumentsReport } from '../../eca/xml.js';
import type { RunningSimulator } from '../../simulator/server.js';
import { accountStatus, control, createAccount, filePayload, op, openText, pdf, start, type Firm } from './helpers.js';

describe('simulator update and getAmRequestStatus', function () {
  let sim: RunningSimulator;
  let firm: Firm;

  beforeEach(async function () {
    ({ sim, firm } = await start());
  });
  afterEach(async function () {
    await sim.close();
  });

  async function update(who: Firm, xml: string, attachments: Array<{ fileName: string; data: Uint8Array }> = []) {
    const payload = await filePayload(who.keys, { fileName: 'request.xml', content: xml }, attachments);
    const { body } = await op(sim, 'update', { CSID: who.csid, payload });
    assert.equal(body.isProcessed, true);
    const fileData = body.fileData as { name: string; data: string };
    assert.match(fileData.name, /^DemoFirm_\d{8}_\d{4}_\d{4}\.xml$|^[A-Za-z0-9-]+_\d{8}_\d{4}_\d{4}\.xml$/);
    const xml2 = await openText(who.keys, fileData.data);
    const requestId = /request_id="(\d+)"/.exec(xml2)?.[1];
    assert.ok(requestId);
    return { requestId, responseXml: xml2 };
  }

  async function requestStatus(csid: string, requestId: string): Promise<Record<string, unknown>> {
    const { body } = await op(sim, 'getAmRequestStatus', { CSID: csid, request_id: requestId });
    const [entry] = body.result as Array<Record<string, unknown>>;
    assert.ok(entry);
    const group = Object.values(entry).find((value) => typeof value === 'object' && value !== null && 'data' in value);
    const detail = (group as { data: Array<Record<string, unknown>> } | undefined)?.data[0] ?? {};
    return { ...entry, ...detail, reason: entry.Error };
  }

  const fn = (accountId: string, functionName: string) => buildUpdateRequestXml({ accountId, functionName });

  it('AbandonAccount: pending only; PENDING, then PROCESSED; a second abandon is REJECTED', async function () {
    const { accountId } = await createAccount(sim, firm, 'stalled-u1');
    const { requestId } = await update(firm, fn(accountId, 'AbandonAccount'));
    assert.equal((await requestStatus(firm.csid, requestId)).status, 'PENDING');
    await control(sim, 'POST', '/clock/advance', { minutes: 5 });
    const processed = await requestStatus(firm.csid, requestId);
    assert.deepEqual(
      [processed.status, processed.RequestDetail, processed.acctId],
      ['PROCESSED', 'AbandonAccount', accountId],
    );
    assert.equal((await accountStatus(sim, firm.csid, accountId)).status, 'A');
    const again = await update(firm, fn(accountId, 'AbandonAccount'));
    await control(sim, 'POST', '/clock/advance', { minutes: 5 });
    const rejected = await requestStatus(firm.csid, again.requestId);
    assert.equal(rejected.status, 'REJECTED');
    assert.match(String(rejected.reason), /pending applications only/);
  });

  it('ResetAbandonedAccount: only for abandoned applications', async function () {
    const { accountId } = await createAccount(sim, firm, 'stalled-u2');
    const early = await update(firm, fn(accountId, 'ResetAbandonedAccount'));
    await update(firm, fn(accountId, 'AbandonAccount'));
    const reset = await update(firm, fn(accountId, 'ResetAbandonedAccount'));
    await control(sim, 'POST', '/clock/advance', { minutes: 5 });
    assert.equal((await requestStatus(firm.csid, early.requestId)).status, 'REJECTED');
    assert.equal((await requestStatus(firm.csid, reset.requestId)).status, 'PROCESSED');
    assert.equal((await accountStatus(sim, firm.csid, accountId)).status, 'N');
  });

  it('open-account functions need an open account and respect availability per firm type', async function () {
    const { accountId } = await createAccount(sim, firm, 'happy-u3');
    const tooEarly = await update(firm, fn(accountId, 'ChangeBaseCurrency'));
    await control(sim, 'POST', '/clock/advance', { days: 1 });
    assert.equal((await accountStatus(sim, firm.csid, accountId)).status, 'O');
    const allowed = await update(firm, fn(accountId, 'ChangeBaseCurrency'));
    const notForAdvisors = await update(firm, fn(accountId, 'UpdateBCAN'));
    const unknown = await update(firm, fn(accountId, 'MakeMeRich'));
    await control(sim, 'POST', '/clock/advance', { minutes: 5 });
    assert.equal((await requestStatus(firm.csid, tooEarly.requestId)).status, 'REJECTED');
    assert.equal((await requestStatus(firm.csid, allowed.requestId)).status, 'PROCESSED');
    assert.equal((await requestStatus(firm.csid, notForAdvisors.requestId)).status, 'REJECTED');
    assert.equal((await requestStatus(firm.csid, unknown.requestId)).status, 'REJECTED');

    const registered = await control(sim, 'POST', '/firms', { name: 'HiddenFirm', firmType: 'non-disclosed' });
    const keys = registered.body.keys as { firmPrivateKey: string };
    const hidden: Firm = {
      csid: String(registered.body.csid),
      keys: { ownPrivateKey: await loadPrivateKey(keys.firmPrivateKey), peerPublicKey: firm.keys.peerPublicKey },
    };
    const [hiddenAccount] = sim.control.seedAccounts({ count: 1, csid: hidden.csid, prefix: 'happy-h' });
    assert.ok(hiddenAccount);
    await control(sim, 'POST', '/clock/advance', { days: 1 });
    const bcan = await update(hidden, fn(hiddenAccount, 'UpdateBCAN'));
    const loginMessage = await update(hidden, fn(hiddenAccount, 'CompleteLoginMessage'));
    const foreignAccount = await update(hidden, fn(accountId, 'ChangeBaseCurrency'));
    await control(sim, 'POST', '/clock/advance', { minutes: 5 });
    assert.equal((await requestStatus(hidden.csid, bcan.requestId)).status, 'PROCESSED');
    assert.equal((await requestStatus(hidden.csid, loginMessage.requestId)).status, 'REJECTED');
    const foreign = await requestStatus(hidden.csid, foreignAccount.requestId);
    assert.equal(foreign.status, 'REJECTED');
    assert.match(String(foreign.reason), new RegExp(accountId));
    // Requests are private to the firm that sent them.
    const { body } = await op(sim, 'getAmRequestStatus', { CSID: firm.csid, request_id: bcan.requestId });
    assert.equal((body.result as Array<Record<string, unknown>>)[0]?.isError, true);
  });

  it('getAmRequestStatus by account lists every request of the account', async function () {
    const { accountId } = await createAccount(sim, firm, 'stalled-u4');
    await update(firm, fn(accountId, 'AbandonAccount'));
    await update(firm, fn(accountId, 'ResetAbandonedAccount'));
    const { body } = await op(sim, 'getAmRequestStatus', { CSID: firm.csid, accountIds: [accountId] });
    const types = (body.result as Array<Record<string, unknown>>).map((entry) =>
      Object.keys(entry).find((key) => /^[A-Z]/.test(key) && key !== 'Status'),
    );
    assert.deepEqual(types, ['AbandonAccount', 'ResetAbandonedAccount']);
    const [first] = body.result as Array<Record<string, { files: string[] }>>;
    assert.match(first?.AbandonAccount?.files[0] ?? '', /\.xml$/);
  });

  it('DocumentSubmission verifies SHA-1 and length of every attachment', async function () {
    const { accountId } = await createAccount(sim, firm, 'docs-required-u5');
    const good = pdf('passport scan');
    const bad = pdf('address proof');
    const xml = buildDocumentSubmissionXml({
      accountId,
      documents: [
        {
          formNumber: '8002',
          execTs: '20250108100000',
          execLoginTs: '20250108095500',
          files: [{ fileName: 'address.pdf', sha1: sha1Hex(good), length: bad.byteLength }],
        },
      ],
    });
    const mismatch = await update(firm, xml, [{ fileName: 'address.pdf', data: bad }]);
    const report = parseDocumentsReport(mismatch.responseXml);
    assert.deepEqual(report.documents[0]?.checksumMismatch, { stored: sha1Hex(good), received: sha1Hex(bad) });
    await control(sim, 'POST', '/clock/advance', { minutes: 5 });
    const refused = await requestStatus(firm.csid, mismatch.requestId);
    assert.equal(refused.status, 'REJECTED');
    const { body } = await op(sim, 'getPendingTasks', { CSID: firm.csid, accountIds: [accountId] });
    const [entry] = body.result as Array<{ pendingTasks: Array<{ state: string }> }>;
    assert.deepEqual(
      entry?.pendingTasks.map((t) => t.state),
      ['To Be Sent', 'To Be Submitted'],
    );

    const lengthXml = buildDocumentSubmissionXml({
      accountId,
      documents: [
        {
          formNumber: '8002',
          execTs: '20250108100000',
          execLoginTs: '20250108095500',
          files: [{ fileName: 'address.pdf', sha1: sha1Hex(bad), length: bad.byteLength + 1 }],
        },
      ],
    });
    const wrongLength = await update(firm, lengthXml, [{ fileName: 'address.pdf', data: bad }]);
    await control(sim, 'POST', '/clock/advance', { minutes: 5 });
    const lengthStatus = await requestStatus(firm.csid, wrongLength.requestId);
    assert.equal(lengthStatus.status, 'REJECTED');
    assert.match(String(lengthStatus.reason), /different length/);
  });

  it('gives isProcessed false for a payload with wrong keys', async function () {
    const { body } = await op(sim, 'update', { CSID: firm.csid, payload: Buffer.from('not pgp').toString('base64') });
    assert.equal(body.isProcessed, false);
    assert.match(String(body.error), /Encryption error/);
  });
});
