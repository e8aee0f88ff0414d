import assert from 'node:assert/strict';
import { sha1Hex } from '../../../eca/archive.js';
import { loadPrivateKey } from '../../../eca/crypto.js';
import { buildDocumentSubmissionXml, buildUpdateRequestXml } from '../../../eca/xml.js';
import type { RunningSimulator } from '../../../simulator/server.js';
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

  /** Sends an update; answers the response file name (the only handle the spec gives on the request). */
  async function update(who: Firm, xml: string, attachments: Array<{ fileName: string; data: Uint8Array }> = []) {
    const payload = await filePayload(who.keys, { fileName: 'request.xml', content: xml }, attachments);
    const { body } = await op(sim, 'update', { CSID: who.csid, payload });
    // Spec, update: "Response: `timestamp`; `fileData` with `name` ... and `data`".
    assert.deepEqual(Object.keys(body).sort(), ['fileData', 'timestamp']);
    const fileData = body.fileData as { name: string; data: string };
    assert.match(fileData.name, /^[A-Za-z0-9-]+_\d{8}_\d{4}_\d{4}\.xml$/);
    const responseXml = await openText(who.keys, fileData.data);
    // The response XML is not shown by the spec: it names no request id the engine could rely on.
    assert.doesNotMatch(responseXml, /request_id/);
    return { fileName: fileData.name, responseXml, accountId: /ib_acct="([^"]+)"/.exec(xml)?.[1] ?? '' };
  }

  /** The request filed under `sent.fileName`, read with getAmRequestStatus by account (spec shape). */
  async function requestStatus(csid: string, sent: { fileName: string; accountId: string }) {
    const { body } = await op(sim, 'getAmRequestStatus', { CSID: csid, accountIds: [sent.accountId] });
    for (const entry of body.result as Array<Record<string, unknown>>) {
      for (const [type, group] of Object.entries(entry)) {
        const { data, files } = group as { data?: Array<{ RequestDetail: string; status: string }>; files?: string[] };
        if (files?.includes(sent.fileName)) return { type, status: data?.[0]?.status, entry };
      }
    }
    return { type: undefined, status: undefined, entry: (body.result as Array<Record<string, unknown>>)[0] };
  }

  const fn = (accountId: string, functionName: string) => buildUpdateRequestXml({ accountId, functionName });
  /** An AttachedFile element, self-closed or not. */
  const WITHOUT_FILE = /<AttachedFile\b[^>]*?(?:\/>|>[\s\S]*?<\/AttachedFile>)/g;

  it('AbandonAccount: pending only; PENDING, then PROCESSED; a second abandon is REJECTED', async function () {
    const { accountId } = await createAccount(sim, firm, 'stalled-u1');
    const sent = await update(firm, fn(accountId, 'AbandonAccount'));
    assert.equal((await requestStatus(firm.csid, sent)).status, 'PENDING');
    await control(sim, 'POST', '/clock/advance', { minutes: 5 });
    const processed = await requestStatus(firm.csid, sent);
    assert.deepEqual([processed.status, processed.type], ['PROCESSED', 'AbandonAccount']);
    assert.equal((await accountStatus(sim, firm.csid, accountId)).status, 'A');
    const again = await update(firm, fn(accountId, 'AbandonAccount'));
    await control(sim, 'POST', '/clock/advance', { minutes: 5 });
    const rejected = await requestStatus(firm.csid, again);
    assert.equal(rejected.status, 'REJECTED');
  });

  it('ResetAbandonedAccount: only for abandoned applications', async function () {
    const { accountId } = await createAccount(sim, firm, 'stalled-u2');
    const early = await update(firm, fn(accountId, 'ResetAbandonedAccount'));
    await update(firm, fn(accountId, 'AbandonAccount'));
    const reset = await update(firm, fn(accountId, 'ResetAbandonedAccount'));
    await control(sim, 'POST', '/clock/advance', { minutes: 5 });
    assert.equal((await requestStatus(firm.csid, early)).status, 'REJECTED');
    assert.equal((await requestStatus(firm.csid, reset)).status, 'PROCESSED');
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
    assert.equal((await requestStatus(firm.csid, tooEarly)).status, 'REJECTED');
    assert.equal((await requestStatus(firm.csid, allowed)).status, 'PROCESSED');
    assert.equal((await requestStatus(firm.csid, notForAdvisors)).status, 'REJECTED');
    assert.equal((await requestStatus(firm.csid, unknown)).status, 'REJECTED');

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
    assert.equal((await requestStatus(hidden.csid, bcan)).status, 'PROCESSED');
    assert.equal((await requestStatus(hidden.csid, loginMessage)).status, 'REJECTED');
    const foreign = await requestStatus(hidden.csid, foreignAccount);
    // Another firm's account: the spec's per-account error entry (errors rule 1, authentication rule 4).
    assert.equal(foreign.status, undefined);
    assert.equal(foreign.entry?.isError, true);
    assert.match(String(foreign.entry?.Error), new RegExp(accountId));
    // Requests are private to the firm that sent them.
    const { body } = await op(sim, 'getAmRequestStatus', { CSID: firm.csid, accountIds: [hiddenAccount] });
    assert.equal((body.result as Array<Record<string, unknown>>)[0]?.isError, true);
  });

  it('getAmRequestStatus by account lists every request, each keyed by request type with data and files only', async function () {
    // Spec, getAmRequestStatus: "`result` is a list of objects, each keyed by a request type; each holds
    // `data` (list of objects with `RequestDetail` (code) and `status`) and `files` (list of file names)".
    const { accountId } = await createAccount(sim, firm, 'stalled-u4');
    const abandon = await update(firm, fn(accountId, 'AbandonAccount'));
    const reset = await update(firm, fn(accountId, 'ResetAbandonedAccount'));
    const { body } = await op(sim, 'getAmRequestStatus', { CSID: firm.csid, accountIds: [accountId] });
    const entries = body.result as Array<Record<string, { data: Array<Record<string, unknown>>; files: string[] }>>;
    assert.deepEqual(
      entries.map((entry) => Object.keys(entry)),
      [['AbandonAccount'], ['ResetAbandonedAccount']],
    );
    // `files`: the update's response file, then the names of the firm's own files, which repeat when the
    // firm reuses a name (both archives hold request.xml).
    assert.deepEqual(
      entries.map((entry) => Object.values(entry)[0]?.files),
      [
        [abandon.fileName, 'request.xml'],
        [reset.fileName, 'request.xml'],
      ],
    );
    assert.deepEqual(Object.keys(entries[0]?.AbandonAccount?.data[0] ?? {}).sort(), ['RequestDetail', 'status']);
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
    await control(sim, 'POST', '/clock/advance', { minutes: 5 });
    const refused = await requestStatus(firm.csid, mismatch);
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
    const lengthStatus = await requestStatus(firm.csid, wrongLength);
    assert.equal(lengthStatus.status, 'REJECTED');
  });

  // Spec, request XML: AttachedFile is "one or more per Document".
  it('rejects a DocumentSubmission whose Document holds no AttachedFile', async function () {
    const { accountId } = await createAccount(sim, firm, 'docs-required-u6');
    // The engine's builder refuses to write such a Document: it is written here by taking the file out.
    const xml = buildDocumentSubmissionXml({
      accountId,
      documents: [
        {
          formNumber: '8002',
          execTs: '20250108100000',
          execLoginTs: '20250108095500',
          files: [{ fileName: 'address.pdf', sha1: sha1Hex(pdf('x')), length: pdf('x').byteLength }],
        },
      ],
    }).replace(WITHOUT_FILE, '');
    assert.doesNotMatch(xml, /AttachedFile/);
    const sent = await update(firm, xml, []);
    await control(sim, 'POST', '/clock/advance', { minutes: 5 });
    const status = await requestStatus(firm.csid, sent);
    assert.equal(status.status, 'REJECTED');
  });

  // Spec: exec_ts / exec_login_ts are `YYYYMMDDHHMMSS`; the request root is AcctMgmtRequests "in the namespace
  // {import_schema_namespace}". A file held to neither is not read: no fileData, no request filed.
  it('reads no request from a file with another exec_ts form or a root outside the import-schema namespace', async function () {
    const { accountId } = await createAccount(sim, firm, 'docs-required-u6');
    const data = pdf('identity scan');
    const valid = buildDocumentSubmissionXml({
      accountId,
      documents: [
        {
          formNumber: '8001',
          execTs: '20250108100000',
          execLoginTs: '20250108095500',
          files: [{ fileName: 'identity.pdf', sha1: sha1Hex(data), length: data.byteLength }],
        },
      ],
    });
    const broken = [
      valid.replace('exec_ts="20250108100000"', 'exec_ts="2026-01-01 10:00:00"'),
      valid.replace('exec_login_ts="20250108095500"', 'exec_login_ts="1736330100000"'),
      valid.replace(/xmlns="[^"]*"/, 'xmlns="urn:example:other"'),
      valid.replace(/ xmlns="[^"]*"/, ''),
      fn(accountId, 'AbandonAccount').replace(/xmlns="[^"]*"/, 'xmlns="urn:example:other"'),
    ];
    for (const xml of broken) {
      assert.notEqual(xml, valid);
      const payload = await filePayload(firm.keys, { fileName: 'request.xml', content: xml }, [
        { fileName: 'identity.pdf', data },
      ]);
      const { body } = await op(sim, 'update', { CSID: firm.csid, payload });
      assert.equal(body.fileData, undefined);
      assert.match(String(body.error), /Invalid request XML/);
    }
    const records = await control(sim, 'GET', `/records?externalId=docs-required-u6`);
    const [account] = records.body.accounts as Array<{ requests: unknown[] }>;
    assert.deepEqual(account?.requests, []);
    const accepted = await update(firm, valid, [{ fileName: 'identity.pdf', data }]);
    assert.equal((await requestStatus(firm.csid, accepted)).status, 'PENDING');
  });

  it('files nothing (no fileData) for a payload with wrong keys', async function () {
    const { body } = await op(sim, 'update', { CSID: firm.csid, payload: Buffer.from('not pgp').toString('base64') });
    assert.equal(body.fileData, undefined);
    assert.match(String(body.error), /Encryption error/);
  });
});
