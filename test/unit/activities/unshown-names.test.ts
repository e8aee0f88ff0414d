/**
 * Readings the spec does not promise, broken by the simulator's settings, and what the engine's activities do
 * then (over HTTP): getFileDetails' `Response File Name` not the name create gave (`file-details-other-name`),
 * the service's timestamps and dates in far time zones (`service-time-zone`), and getAmRequestStatus `files`
 * without the update's response file (`update-file-unlisted`).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApplicationActivities } from '../../../activities/application.js';
import { applicationFileName } from '../../../activities/find-account.js';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import { ecaClientFor } from '../../../simulator/client.js';
import { startSimulator } from '../../../simulator/server.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import type { Unpromised } from '../../../simulator/unpromised.js';
import type { ApplicationActivities } from '../../../workflows/application/activities.js';
import { inActivity } from '../../support/activity-context.js';
import { applicationXml } from '../../support/engine.js';
import { op, WEDNESDAY_10H } from '../simulator/helpers.js';

type Entry = Record<string, unknown>;

describe('names and dates the spec does not tie together (simulator settings, over HTTP)', function () {
  let sim: RunningSimulator | undefined;
  let dir: string;
  let store: FileDocumentStore;

  beforeEach(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-unshown-'));
    store = new FileDocumentStore(join(dir, 'documents'));
  });
  afterEach(async function () {
    await sim?.close();
    sim = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  /** A simulator at Wednesday 10:00 UTC with `unpromised` on, and the engine's activities against it. */
  async function begin(unpromised: Unpromised[], fetch?: typeof globalThis.fetch) {
    const running = await startSimulator({ startTime: WEDNESDAY_10H, unpromised });
    sim = running;
    const engine: ApplicationActivities = inActivity(
      createApplicationActivities({ eca: ecaClientFor(running, { retry: 0, ...(fetch && { fetch }) }), store }),
    );
    return { sim: running, engine };
  }

  async function input(csid: string, externalId: string) {
    const application = await store.put(new TextEncoder().encode(applicationXml(externalId)));
    return { csid, externalId, application, documents: [] };
  }

  /** The accounts the simulator made for `externalId`. */
  function accountsOf(running: RunningSimulator, externalId: string): string[] {
    return running.control.records({ externalId }).externalIds[0]?.accounts.map((account) => account.accountId) ?? [];
  }

  describe('file-details-other-name', function () {
    it('getFileDetails files the account under a name no create gave: unconfirmed, never created again', async function () {
      const { sim: running, engine } = await begin(['file-details-other-name']);
      const first = await engine.createAccount(await input(running.csid, 'fd-1'));
      assert.ok('unconfirmed' in first, JSON.stringify(first));
      assert.match(
        first.unconfirmed.reason,
        /no account lists response file \S+ or request file eca-[0-9a-f]{32}\.xml/,
      );
      assert.match(first.unconfirmed.reason, /getFileDetails over 1 account\(s\)/, 'what was looked at');
      const [accountId] = accountsOf(running, 'fd-1');
      const details = await op(running, 'getFileDetails', { CSID: running.csid, accountIds: [accountId] });
      const [entry] = details.body.result as Entry[];
      assert.match(String(entry?.['Response File Name']), /^\w+_\d{8}_\d{4}_\d{4}\.xml\.report$/);
      assert.notEqual(entry?.['Response File Name'], first.unconfirmed.responseFile);
      const again = await engine.createAccount(await input(running.csid, 'fd-1'));
      assert.ok('unconfirmed' in again, JSON.stringify(again));
      assert.equal(running.control.calls().create, 1, 'a processed file must never be created again');
    });

    it("a service that keeps the firm's XML name as `Request File Name` identifies the account by it", async function () {
      // The service files the request under the name of the XML in the firm's archive (with `.imported`).
      const keepingFirmNames: typeof fetch = async (request, init) => {
        const response = await fetch(request, init);
        const url = request instanceof Request ? request.url : String(request);
        // `sim`: the simulator begin() starts below, this fetch's own.
        if (!url.endsWith('/ws/eca/getFileDetails') || !sim) return response;
        const body = (await response.json()) as { result: Entry[] };
        const ours = accountsOf(sim, 'fd-2');
        for (const entry of body.result) {
          if (ours.includes(String(entry['Account ID']))) {
            entry['Request File Name'] = `${applicationFileName(sim.csid, 'fd-2')}.imported`;
          }
        }
        return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
      };
      const { sim: running, engine } = await begin(['file-details-other-name'], keepingFirmNames);
      const first = await engine.createAccount(await input(running.csid, 'fd-2'));
      assert.ok(first.created, JSON.stringify(first));
      assert.deepEqual([first.accountId, first.recovered], [accountsOf(running, 'fd-2')[0], false]);
      const again = await engine.createAccount(await input(running.csid, 'fd-2'));
      assert.ok(again.created && again.recovered && again.accountId === first.accountId, JSON.stringify(again));
      assert.equal(running.control.calls().create, 1);
    });
  });

  describe('service-time-zone', function () {
    it('timestamps in UTC+14 and dates in UTC−12: the account is found by widening the days searched', async function () {
      const { sim: running, engine } = await begin(['service-time-zone']);
      const first = await engine.createAccount(await input(running.csid, 'tz-1'));
      const [accountId] = accountsOf(running, 'tz-1');
      // Wednesday 10:00 UTC is Thursday 00:00 in UTC+14 and Tuesday 22:00 in UTC−12.
      const files = await op(running, 'getResponseFile', { CSID: running.csid, externalId: 'tz-1' });
      assert.match(String((files.body.result as Entry[])[0]?.timestamp), /^2025-01-09 00:/);
      const listedOn = async (date: string) => {
        const body = { CSID: running.csid, startDate: date, endDate: date };
        const { body: listed } = await op(running, 'getAccountStatus', body);
        return (listed.status as Entry[]).map((entry) => entry.accountId);
      };
      assert.deepEqual([await listedOn('2025-01-07'), await listedOn('2025-01-08')], [[accountId], []]);
      assert.ok(first.created, JSON.stringify(first));
      assert.deepEqual([first.accountId, first.recovered], [accountId, false]);
      const again = await engine.createAccount(await input(running.csid, 'tz-1'));
      assert.ok(again.created && again.recovered && again.accountId === accountId, JSON.stringify(again));
      assert.equal(running.control.calls().create, 1);
    });
  });

  describe('update-file-unlisted', function () {
    it('a request never listed under its response file stays undecided; an abandon and a reset are confirmed by the status', async function () {
      const { sim: running, engine } = await begin(['update-file-unlisted']);
      const created = await engine.createAccount(await input(running.csid, 'uf-1'));
      assert.ok(created.created, JSON.stringify(created));
      const account = { csid: running.csid, accountId: created.accountId };

      const known = await engine.listAccountRequests(account);
      const abandon = await engine.sendApplicationUpdate({ ...account, functionName: 'AbandonAccount', known });
      assert.ok(abandon.accepted && abandon.responseFile !== undefined, JSON.stringify(abandon));
      const responseFile = abandon.responseFile;
      running.control.advanceClock({ minutes: 10 });
      // The service lists its own name for the request, then the firm's archive names; never the response file.
      const listed = await engine.listAccountRequests(account);
      assert.ok(!listed.includes(responseFile), JSON.stringify(listed));
      assert.match(listed[0] ?? '', /^\w+_\d{4}-\d{2}-\d{2}_\d{4}_\d{4}\.xml\.imported$/);
      // Read as maintenance reads it (no function named): not listed, whatever the time; says what it saw.
      const unlisted = await engine.readRequestByFile({ ...account, responseFile });
      assert.deepEqual(unlisted, { decided: false, status: 'not listed yet (the account lists 1 other request(s))' });
      // After a lost answer, the service's own name is not taken for a response file; the account's status A
      // shows the abandon in effect, so it is done without a file to follow (nothing is sent again).
      const looked = await engine.sendApplicationUpdate({
        ...account,
        functionName: 'AbandonAccount',
        known,
        lookOnly: true,
      });
      assert.deepEqual(looked, { accepted: true, recovered: true, inEffect: true });
      // AbandonAccount: getAccountStatus `status` A confirms it.
      const abandoned = await engine.readRequestByFile({ ...account, responseFile, functionName: 'AbandonAccount' });
      assert.deepEqual(abandoned, { decided: true, processed: true });

      const reset = await engine.sendApplicationUpdate({
        ...account,
        functionName: 'ResetAbandonedAccount',
        known: await engine.listAccountRequests(account),
      });
      assert.ok(reset.accepted && reset.responseFile !== undefined, JSON.stringify(reset));
      const confirmed = await engine.readRequestByFile({
        ...account,
        responseFile: reset.responseFile,
        functionName: 'ResetAbandonedAccount',
      });
      assert.deepEqual(confirmed, { decided: true, processed: true });
      assert.equal(running.control.calls().update, 2, 'one request per function');
    });

    it('a DocumentSubmission never listed is confirmed once the pending tasks of its forms no longer want a document', async function () {
      const { sim: running, engine } = await begin(['update-file-unlisted']);
      const created = await engine.createAccount(await input(running.csid, 'docs-required-uf-3'));
      assert.ok(created.created, JSON.stringify(created));
      const account = { csid: running.csid, accountId: created.accountId };
      const read = (responseFile: string, forms: string[]) =>
        engine.readRequestByFile({ ...account, responseFile, functionName: 'DocumentSubmission', forms });
      // Before anything is sent both proofs are wanted: nothing is confirmed, and the reason names them.
      const before = await read('DemoFirm_20250108_0999_0999.xml', ['8001', '8002']);
      assert.ok(!before.decided, JSON.stringify(before));
      assert.match(before.status, /pending tasks still want 8001 To Be Sent, 8002 To Be Submitted$/);

      const documents = await Promise.all(
        ['8001', '8002'].map(async (formNumber) => {
          const bytes = new TextEncoder().encode(`%PDF-1.4\n% ${formNumber}\n%%EOF\n`);
          const ref = await store.put(bytes);
          return { formNumber, fileName: `${formNumber}.pdf`, sha1: ref.sha1, length: ref.length, ref: ref.ref };
        }),
      );
      const known = await engine.listAccountRequests(account);
      const sent = await engine.sendApplicationUpdate({
        ...account,
        functionName: 'DocumentSubmission',
        known,
        documents,
      });
      assert.ok(sent.accepted && sent.responseFile !== undefined, JSON.stringify(sent));
      running.control.advanceClock({ minutes: 10 });
      assert.deepEqual(await read(sent.responseFile, ['8001', '8002']), { decided: true, processed: true });
      // Its answer lost, the request is looked for: no listing names it, its effect shows it, nothing is sent again.
      const looked = await engine.sendApplicationUpdate({
        ...account,
        functionName: 'DocumentSubmission',
        known,
        documents,
        mayHaveSent: true,
      });
      assert.deepEqual(looked, { accepted: true, recovered: true, inEffect: true });
      assert.equal(running.control.calls().update, 1);
    });

    it('an abandon the service has not carried out stays undecided, with the status it read', async function () {
      const { sim: running, engine } = await begin(['update-file-unlisted']);
      const created = await engine.createAccount(await input(running.csid, 'uf-2'));
      assert.ok(created.created, JSON.stringify(created));
      const account = { csid: running.csid, accountId: created.accountId };
      // A response file the account never had: the listing shows nothing for it and the account is not abandoned.
      const outcome = await engine.readRequestByFile({
        ...account,
        responseFile: 'DemoFirm_20250108_0999_0999.xml',
        functionName: 'AbandonAccount',
      });
      assert.ok(!outcome.decided, JSON.stringify(outcome));
      assert.match(outcome.status, /^not listed yet \(the account lists 0 other request\(s\)\); account status N$/);
    });
  });
});
