/**
 * Deletion of documents once they are no longer needed (workflows/retention): a finished application's
 * when its retention ends; and, swept at each such release, those of the workflows recorded by the
 * store's `releaseWhenClosed` (a maintenance request's body and attachments) whose workflow has closed.
 */
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import type { MaintainedDocumentStore } from '../runtime/document-store.js';
import type { RetentionActivities } from '../workflows/retention/activities.js';

/**
 * An owner whose workflow the namespace does not know is released once recorded this long: its start
 * failed (the documents are stored before it), or it closed so long ago that the namespace's own
 * retention removed it.
 */
export const UNKNOWN_OWNER_GRACE_MS = 7 * 24 * 60 * 60 * 1000;

export interface ClosedOwnersReport {
  /** Owners whose workflow has closed (or is unknown past the grace): their documents released. */
  released: number;
  deleted: number;
  /** Owners whose workflow still runs (or is unknown, within the grace). */
  running: number;
  /** Records whose key is missing (see `eca keys rotate`). */
  unreadable: number;
}

/** Releases the documents of every owner recorded by `releaseWhenClosed` whose workflow has closed. */
export async function releaseClosedOwners(
  store: Pick<MaintainedDocumentStore, 'closingOwners' | 'release'>,
  client: Client,
  now = Date.now(),
): Promise<ClosedOwnersReport> {
  const { owners, unreadable } = await store.closingOwners();
  const report: ClosedOwnersReport = { released: 0, deleted: 0, running: 0, unreadable };
  for (const { owner, since } of owners) {
    let closed: boolean;
    try {
      closed = (await client.workflow.getHandle(owner).describe()).status.name !== 'RUNNING';
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      closed = now - since >= UNKNOWN_OWNER_GRACE_MS;
    }
    if (!closed) {
      report.running++;
      continue;
    }
    report.deleted += (await store.release(owner)).deleted;
    report.released++;
  }
  return report;
}

export interface RetentionActivityOptions {
  store: MaintainedDocumentStore;
  /** The client that tells whether a workflow has closed; the worker's own (the activity's context) by default. */
  client?: Client;
}

export function createRetentionActivities(options: RetentionActivityOptions): RetentionActivities {
  return {
    async releaseDocuments({ owner }) {
      const report = await options.store.release(owner);
      const client = options.client ?? Context.current().client;
      // The application's documents are released whatever the sweep meets: it is swept again next time.
      try {
        const swept = await releaseClosedOwners(options.store, client);
        if (swept.released > 0 || swept.unreadable > 0) {
          Context.current().log.info('documents of closed workflows released', { ...swept });
        }
      } catch (error) {
        Context.current().log.warn('the sweep of closed workflows failed; the next release sweeps again', {
          error: error instanceof Error ? error.name : 'unknown',
        });
      }
      return report;
    },
  };
}
