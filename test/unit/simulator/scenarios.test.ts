import assert from 'node:assert/strict';
import { buildDocumentSubmissionXml, buildUpdateRequestXml } from '../../../eca/xml.js';
import { sha1Hex } from '../../../eca/archive.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { REJECTION_REASON } from '../../../simulator/scenarios.js';
import { accountStatus, control, createAccount, filePayload, op, pdf, start, type Firm } from './helpers.js';

describe('simulator scenarios over simulated time', function () {
  let sim: RunningSimulator;
  let firm: Firm;

  beforeEach(async function () {
    ({ sim, firm } = await start());
  });
  afterEach(async function () {
    await sim.close();
  });

  const advance = (body: Record<string, number>) => control(sim, 'POST', '/clock/advance', body);

  async function pendingTasks(accountId: string) {
    const { body } = await op(sim, 'getPendingTasks', { CSID: firm.csid, accountIds: accountId });
    const [entry] = body.result as Array<{ pendingTasks: Array<Record<string, unknown>>; status: string }>;
    assert.ok(entry);
    return entry;
  }

  async function submitDocument(accountId: string, formNumber: string, name: string) {
    const file = pdf(name);
    const xml = buildDocumentSubmissionXml({
      accountId,
      documents: [
        {
          formNumber,
          execTs: new Date(),
          execLoginTs: new Date(),
          files: [{ fileName: name, sha1: sha1Hex(file), length: file.byteLength }],
        },
      ],
    });
    const payload = await filePayload(firm.keys, { fileName: 'docs.xml', content: xml }, [
      { fileName: name, data: file },
    ]);
    const { body } = await op(sim, 'update', { CSID: firm.csid, payload });
    assert.ok((body.fileData as { name?: string } | undefined)?.name, 'the update was filed');
  }

  it('happy: N under review, then P, Pending Approval, and open on the next business day', async function () {
    const { accountId } = await createAccount(sim, firm, 'happy-1');
    assert.deepEqual(await accountStatus(sim, firm.csid, accountId), {
      accountId,
      isError: false,
      description: 'New Account',
      state: 'Under Review with IBKR',
      status: 'N',
    });
    await advance({ hours: 1 });
    assert.equal((await accountStatus(sim, firm.csid, accountId)).status, 'P');
    await advance({ hours: 2 });
    const approval = await accountStatus(sim, firm.csid, accountId);
    assert.equal(approval.state, 'Pending Approval');
    // Wednesday 13:00 → opens Thursday 06:00, not earlier.
    await advance({ hours: 16 });
    assert.equal((await accountStatus(sim, firm.csid, accountId)).status, 'P');
    await advance({ hours: 1 });
    const open = await accountStatus(sim, firm.csid, accountId);
    assert.equal(open.status, 'O');
    assert.equal(open.description, 'Open');
    assert.equal(open.state, undefined);
  });

  it('happy: Pending Approval on a Friday opens on Monday', async function () {
    await advance({ days: 2 }); // Friday 10:00
    const { accountId } = await createAccount(sim, firm, 'happy-friday');
    await advance({ hours: 3 });
    assert.equal((await accountStatus(sim, firm.csid, accountId)).state, 'Pending Approval');
    await advance({ days: 2 }); // Sunday 13:00
    assert.equal((await accountStatus(sim, firm.csid, accountId)).status, 'P');
    await advance({ hours: 18 }); // Monday 07:00
    assert.equal((await accountStatus(sim, firm.csid, accountId)).status, 'O');
  });

  it('docs-required: documents to send, under review once received, then open', async function () {
    const { accountId } = await createAccount(sim, firm, 'docs-required-1');
    const status = await accountStatus(sim, firm.csid, accountId);
    assert.equal(status.status, 'P');
    assert.equal(status.state, 'Documents Required');
    const entry = await pendingTasks(accountId);
    assert.deepEqual(
      entry.pendingTasks.map((t) => [t.formNumber, t.action, t.state]),
      [
        ['8001', 'to send', 'To Be Sent'],
        ['8002', 'to send', 'To Be Submitted'],
      ],
    );
    await submitDocument(accountId, '8001', 'passport.pdf');
    await submitDocument(accountId, '8002', 'utility-bill.pdf');
    assert.deepEqual(
      (await pendingTasks(accountId)).pendingTasks.map((t) => t.state),
      ['Received- Being Processed', 'Received- Being Processed'],
    );
    assert.equal((await accountStatus(sim, firm.csid, accountId)).state, 'Under Review with IBKR');
    await advance({ hours: 4 });
    assert.deepEqual((await pendingTasks(accountId)).pendingTasks, []);
    await advance({ hours: 2 });
    assert.equal((await accountStatus(sim, firm.csid, accountId)).state, 'Pending Approval');
    await advance({ days: 1 });
    assert.equal((await accountStatus(sim, firm.csid, accountId)).status, 'O');
    const { body } = await op(sim, 'getRegistrationTasks', { CSID: firm.csid, accountIds: [accountId], getDocs: 'T' });
    const [registration] = body.result as Array<Record<string, unknown>>;
    assert.ok(registration);
    assert.match(String(registration.dateOpened), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d$/);
    assert.equal((registration.documents as unknown[]).length, 2);
  });

  it('doc-rejected: the first proof of address is rejected with a reason, a resubmission is accepted', async function () {
    const { accountId } = await createAccount(sim, firm, 'doc-rejected-1');
    await submitDocument(accountId, '8001', 'passport.pdf');
    await submitDocument(accountId, '8002', 'old-bill.pdf');
    await advance({ hours: 4 });
    const rejected = await pendingTasks(accountId);
    assert.deepEqual(
      rejected.pendingTasks.map((t) => [t.formNumber, t.state]),
      [['8002', `Rejected ${REJECTION_REASON}`]],
    );
    assert.equal((await accountStatus(sim, firm.csid, accountId)).state, 'Documents Required');
    await submitDocument(accountId, '8002', 'new-bill.pdf');
    await advance({ hours: 4 });
    assert.deepEqual((await pendingTasks(accountId)).pendingTasks, []);
    await advance({ days: 1 });
    assert.equal((await accountStatus(sim, firm.csid, accountId)).status, 'O');
  });

  it('portal-task: Incomplete Application until the client completes the task in the portal', async function () {
    const { accountId } = await createAccount(sim, firm, 'portal-task-1');
    const status = await accountStatus(sim, firm.csid, accountId);
    assert.deepEqual([status.status, status.state], ['N', 'Incomplete Application']);
    const [task] = (await pendingTasks(accountId)).pendingTasks;
    assert.deepEqual([task?.action, task?.state, task?.isOnlineTask], ['to complete', 'To Be Completed', true]);
    await advance({ hours: 5 });
    assert.equal((await accountStatus(sim, firm.csid, accountId)).state, 'Incomplete Application');
    await advance({ hours: 1 });
    assert.deepEqual([(await accountStatus(sim, firm.csid, accountId)).status], ['P']);
    await advance({ days: 1 });
    assert.equal((await accountStatus(sim, firm.csid, accountId)).status, 'O');
  });

  it('compliance-rejected: rejected at the end of the review', async function () {
    const { accountId } = await createAccount(sim, firm, 'compliance-rejected-1');
    await advance({ hours: 3 });
    const status = await accountStatus(sim, firm.csid, accountId);
    assert.deepEqual([status.status, status.description], ['R', 'Rejected']);
    await advance({ days: 3 });
    assert.equal((await accountStatus(sim, firm.csid, accountId)).status, 'R');
  });

  it('stalled: abandoned through update, reset, then completed by the client', async function () {
    const { accountId } = await createAccount(sim, firm, 'stalled-1');
    await advance({ days: 5 });
    assert.equal((await accountStatus(sim, firm.csid, accountId)).state, 'Incomplete Application');
    const abandon = buildUpdateRequestXml({ accountId, functionName: 'AbandonAccount' });
    await op(sim, 'update', {
      CSID: firm.csid,
      payload: await filePayload(firm.keys, { fileName: 'abandon.xml', content: abandon }),
    });
    assert.equal((await accountStatus(sim, firm.csid, accountId)).status, 'A');
    const resetXml = buildUpdateRequestXml({ accountId, functionName: 'ResetAbandonedAccount' });
    await op(sim, 'update', {
      CSID: firm.csid,
      payload: await filePayload(firm.keys, { fileName: 'reset.xml', content: resetXml }),
    });
    assert.equal((await accountStatus(sim, firm.csid, accountId)).state, 'Incomplete Application');
    await advance({ hours: 6 });
    assert.equal((await accountStatus(sim, firm.csid, accountId)).status, 'P');
    await advance({ days: 1 });
    assert.equal((await accountStatus(sim, firm.csid, accountId)).status, 'O');
  });

  it('scenarios are chosen by assignment first, then by prefix, then by the default', async function () {
    await control(sim, 'PUT', '/scenarios/plain-1', { scenario: 'compliance-rejected' });
    const assigned = await createAccount(sim, firm, 'plain-1');
    const prefixed = await createAccount(sim, firm, 'Portal-Task-9');
    await control(sim, 'PUT', '/default-scenario', { scenario: 'docs-required' });
    const defaulted = await createAccount(sim, firm, 'plain-2');
    assert.equal(sim.control.account(assigned.accountId)?.scenario, 'compliance-rejected');
    assert.equal(sim.control.account(prefixed.accountId)?.scenario, 'portal-task');
    assert.equal(sim.control.account(defaulted.accountId)?.scenario, 'docs-required');
    const unknown = await control(sim, 'PUT', '/scenarios/x', { scenario: 'nope' });
    assert.equal(unknown.status, 400);
  });

  it('time scale makes simulated hours pass in real milliseconds', async function () {
    const { accountId } = await createAccount(sim, firm, 'happy-fast');
    await control(sim, 'PUT', '/clock/scale', { timeScale: 3600 * 20 }); // 20 simulated hours per second
    await new Promise((done) => setTimeout(done, 1200));
    assert.equal((await accountStatus(sim, firm.csid, accountId)).status, 'O');
  });
});
