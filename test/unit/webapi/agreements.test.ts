/**
 * The day's agreements and disclosures through the Web API (`POST /gw/api/v1/accounts/documents`) against the
 * simulator: submitted by the daily submission's activity for a firm on the Web API, recorded for the day by
 * the brokerage's own records, refused for a non-disclosed firm, and never sent again when an answer is lost
 * (there is no look-up for a submission, on either protocol).
 */
import assert from 'node:assert/strict';
import { webApiBrokerage } from '../../../brokerage/webapi/index.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDocumentsActivities } from '../../../activities/documents.js';
import type { DailyDocumentsLedger } from '../../../activities/forms.js';
import type { FormDocument } from '../../../domain/documents.js';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import type { WebApiClient } from '../../../webapi/index.js';
import { start } from '../simulator/helpers.js';
import { storedForms } from '../../support/engine.js';
import { registerWebApiClient } from '../../support/webapi-clients.js';
import { inActivity } from '../../support/activity-context.js';

describe('Web API agreements and disclosures against the simulator: the daily submission on the other protocol', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let dir: string;
  let forms: FormDocument[];
  const clients = new Map<string, WebApiClient>();

  const activities = () =>
    inActivity(
      createDocumentsActivities({
        eca: {} as never,
        store: new FileDocumentStore(join(dir, 'documents')),
        ledger: {} as DailyDocumentsLedger,
        brokerageFor: (csid) => Promise.resolve(webApiBrokerage(clients.get(csid)!, csid, 'qa')),
      }),
    );
  const submit = (csid: string) => activities().submitDailyDocuments({ csid, documents: forms });
  const path = 'webapi POST /gw/api/v1/accounts/documents';

  before(async function () {
    ({ sim } = await start());
    dir = await mkdtemp(join(tmpdir(), 'eca-agreements-'));
    forms = await storedForms(new FileDocumentStore(join(dir, 'documents')), ['3024', '4304']);
    clients.set(sim.csid, registerWebApiClient(sim, { clientId: 'docs', csid: sim.csid }).client({ timeoutMs: 2000 }));
  });
  after(async function () {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('submits the day’s forms once: processed, recorded for the day, no XML call', async function () {
    sim.control.resetCalls();
    const outcome = await submit(sim.csid);
    // The answer names no form accepted: the day's creates carry every PDF.
    assert.equal(outcome.processed, true);
    assert.deepEqual('documents' in outcome && outcome.documents, []);
    const days = sim.control.records({ csid: sim.csid }).documentSubmissions;
    assert.equal(days.length, 1);
    assert.equal(sim.control.calls()[path], 1);
    assert.equal(sim.control.calls().submitDocuments, undefined);
  });

  it('is refused for a non-disclosed firm, in the answer: not processed, with the brokerage’s words', async function () {
    const firm = await sim.control.registerFirm({ name: 'DocsNonDisclosed', firmType: 'non-disclosed' });
    clients.set(firm.csid, registerWebApiClient(sim, { clientId: 'docs-nd', csid: firm.csid }).client());
    const outcome = await submit(firm.csid);
    assert.equal(outcome.processed, false);
    assert.match('error' in outcome ? outcome.error : '', /answered an error: «Agreements apply/);
    assert.equal(sim.control.records({ csid: firm.csid }).documentSubmissions.length, 0);
  });

  it('takes a lost answer as in doubt, and never sends the submission again', async function () {
    const before = sim.control.records({ csid: sim.csid }).documentSubmissions.length;
    sim.control.addFault({ operation: path, kind: 'lost-response', count: 1 });
    sim.control.resetCalls();
    const outcome = await submit(sim.csid);
    assert.equal(outcome.processed, false);
    assert.equal('ambiguous' in outcome && outcome.ambiguous, true);
    // The brokerage processed it (its records say so); one call, no resend.
    assert.equal(sim.control.records({ csid: sim.csid }).documentSubmissions.length, before + 1);
    assert.equal(sim.control.calls()[path], 1);
  });
});
