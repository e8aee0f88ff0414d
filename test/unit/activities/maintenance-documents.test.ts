/**
 * A maintenance request's body and attachments (security answers, tax forms) are the request's own in
 * the document store, and the document retention's release deletes them once its workflow has closed.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import { startMaintenance } from '../../../client/maintenance.js';
import { createRetentionActivities, UNKNOWN_OWNER_GRACE_MS } from '../../../activities/retention.js';
import { DocumentNotFound, FileDocumentStore } from '../../../runtime/document-store.js';
import type { DocumentRef } from '../../../domain/documents.js';
import type { MaintenanceInput } from '../../../workflows/maintenance/messages.js';
import { generateCodecKeyring } from '../../../codec/index.js';
import { logWatch, watchedActivityEnvironment, watchPersonalData } from '../../support/log-watch.js';

const CSID = 'CSID-M';
type Status = 'RUNNING' | 'COMPLETED' | 'FAILED' | 'TERMINATED' | 'unknown' | 'unreachable';

/** A client that starts nothing for real: it keeps each start's input, and describes workflows as `statuses` says. */
function fakeClient(started: Map<string, MaintenanceInput>, statuses: Map<string, Status>): Client {
  const workflow = {
    start: (_type: string, options: { workflowId: string; args: [MaintenanceInput] }) => {
      started.set(options.workflowId, options.args[0]);
      statuses.set(options.workflowId, 'RUNNING');
      return Promise.resolve({ workflowId: options.workflowId });
    },
    getHandle: (workflowId: string) => ({
      workflowId,
      describe: () => {
        const status = statuses.get(workflowId) ?? 'unknown';
        if (status === 'unknown') return Promise.reject(new WorkflowNotFoundError('not found', workflowId, undefined));
        if (status === 'unreachable') return Promise.reject(new Error('14 UNAVAILABLE: No connection established'));
        return Promise.resolve({ status: { name: status } });
      },
    }),
  };
  return { workflow } as unknown as Client;
}

// The security answers of these requests are secrets: no log line may hold one.
watchPersonalData(['my first pet', 'my first car', 'my first school', 'my first bicycle', 'my first teacher']);

describe('maintenance documents: owned by the request, deleted once it is final', function () {
  let dir: string;
  let store: FileDocumentStore;
  const started = new Map<string, MaintenanceInput>();
  const statuses = new Map<string, Status>();
  let client: Client;

  beforeEach(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-maintenance-docs-'));
    store = new FileDocumentStore(dir, { keyring: generateCodecKeyring() });
    started.clear();
    statuses.clear();
    client = fakeClient(started, statuses);
  });

  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  async function request(requestKey: string, body: string, withAttachment = false) {
    const { workflowId } = await startMaintenance(
      { client, store, csid: CSID },
      {
        accountId: 'U1234567',
        firmType: 'fully-disclosed',
        functionName: 'SecurityQuestions',
        body,
        requestKey,
        attachments: withAttachment
          ? [{ formNumber: '5001', fileName: 'w8.pdf', data: new TextEncoder().encode('%PDF- W-8BEN') }]
          : [],
      },
    );
    const input = started.get(workflowId)!;
    return { workflowId, documents: [input.body!, ...(input.attachments ?? [])] as DocumentRef[] };
  }

  /** The document retention's activity releasing a finished application's documents. */
  function retentionRuns(): Promise<unknown> {
    const { releaseDocuments } = createRetentionActivities({ store, client });
    return watchedActivityEnvironment().run(releaseDocuments, {
      owner: `application-${CSID}-someone-else`,
    });
  }

  it('deletes the body and attachments of a closed request at the next release, and keeps those of a running one', async function () {
    const released = logWatch.count(/^documents of closed workflows released$/);
    const findings = logWatch.pending;
    const closed = await request('k-closed', '<SecurityAnswer>my first pet</SecurityAnswer>', true);
    const failed = await request('k-failed', '<SecurityAnswer>my first car</SecurityAnswer>');
    const running = await request('k-running', '<SecurityAnswer>my first school</SecurityAnswer>');
    assert.equal(closed.documents.length, 2);
    statuses.set(closed.workflowId, 'COMPLETED');
    statuses.set(failed.workflowId, 'FAILED');

    await retentionRuns();
    for (const ref of [...closed.documents, ...failed.documents]) {
      await assert.rejects(store.get(ref), DocumentNotFound, 'a closed request left a document behind');
    }
    for (const ref of running.documents) assert.ok((await store.get(ref)).byteLength > 0);

    // Decided later: the next release deletes its body too, and nothing is swept twice.
    statuses.set(running.workflowId, 'COMPLETED');
    await retentionRuns();
    await assert.rejects(store.get(running.documents[0]!), DocumentNotFound);
    assert.deepEqual(await store.list(), []);
    assert.deepEqual((await store.closingOwners()).owners, []);
    // Each release that swept something said so, with counts only.
    assert.equal(released.seen, 2);
    assert.equal(logWatch.pending, findings, "a line held the requests' personal data");
  });

  it('releases its own documents when the namespace cannot be asked, and says the sweep failed', async function () {
    const failures = logWatch.count(/^the sweep of closed workflows failed/);
    const findings = logWatch.pending;
    const waiting = await request('k-waiting', '<SecurityAnswer>my first bicycle</SecurityAnswer>');
    statuses.set(waiting.workflowId, 'unreachable');
    const { releaseDocuments } = createRetentionActivities({ store, client });
    const own = await store.put(new TextEncoder().encode('<SecurityAnswer>my first teacher</SecurityAnswer>'), {
      owner: `application-${CSID}-someone-else`,
    });
    await watchedActivityEnvironment().run(releaseDocuments, { owner: `application-${CSID}-someone-else` });
    await assert.rejects(store.get(own), DocumentNotFound, "the application's own documents were kept");
    assert.ok((await store.get(waiting.documents[0]!)).byteLength > 0, 'swept without an answer');
    assert.equal(failures.seen, 1);
    assert.equal(logWatch.pending, findings, "a line held the requests' personal data");
  });

  it('releases a request the namespace does not know only after the grace, its start having failed', async function () {
    const lost = await request('k-lost', '<SecurityAnswer>never started</SecurityAnswer>');
    statuses.delete(lost.workflowId);
    await retentionRuns();
    assert.ok((await store.get(lost.documents[0]!)).byteLength > 0, 'released before the grace');
    const { releaseClosedOwners } = await import('../../../activities/retention.js');
    const report = await releaseClosedOwners(store, client, Date.now() + UNKNOWN_OWNER_GRACE_MS);
    assert.deepEqual(report, { released: 1, deleted: 1, running: 0, unreadable: 0 });
    await assert.rejects(store.get(lost.documents[0]!), DocumentNotFound);
  });

  it('keeps a body another owner holds too', async function () {
    const shared = '<SecurityAnswer>shared</SecurityAnswer>';
    const first = await request('k-1', shared);
    await store.put(new TextEncoder().encode(shared), { owner: `application-${CSID}-client-1` });
    statuses.set(first.workflowId, 'COMPLETED');
    await retentionRuns();
    assert.ok((await store.get(first.documents[0]!)).byteLength > 0);
  });
});
