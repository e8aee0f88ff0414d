/**
 * The application's message handlers: the `state` query, staff updates (validated against the
 * lifecycle before they are accepted), staff signals, `pollNow` and the status sweep's wake-ups.
 */
import { log, setHandler } from '@temporalio/workflow';
import type { DocumentRef, FormDocument } from '../../domain/documents.js';
import type { LifecycleEvent } from '../lifecycle/index.js';
import {
  abandonUpdate,
  accountObservedSignal,
  provideDocumentsUpdate,
  resetUpdate,
  resubmitUpdate,
  retryUpdate,
  stateQuery,
} from './messages.js';
import type { AbandonRequest, EmptyRequest } from './messages.js';
import type { ApplicationRun } from './run.js';
import { requireDocumentsInput, requireResubmitInput, requireStaffInput } from './staff-input.js';
import { installStaffSignals } from './staff-signals.js';
import { forAccountOf, isAccountObservation } from './waits.js';

export function installHandlers(run: ApplicationRun): void {
  setHandler(stateQuery, () => run.view());
  const pollNow = () => {
    run.pollRequested = true;
    run.messages++;
  };
  run.staffNotices = installStaffSignals({
    refusal: (event) => run.refusal(event),
    handle: (event) => run.handleStaff(event),
    pollNow,
    publish: () => run.publish(),
  });
  installStaffUpdates(run);
  setHandler(accountObservedSignal, (incoming: unknown) => {
    if (!isAccountObservation(incoming)) {
      log.warn('accountObserved signal ignored: not a wake-up of the status sweep');
      return;
    }
    // Out-of-order deliveries keep the newest.
    if (!(incoming.observedAt > (run.observation?.observedAt ?? 0))) return;
    // Kept before the create is applied too (the sweep may read an account as its create returns).
    if (!forAccountOf(run, incoming)) return;
    run.observation = incoming;
  });
}

/**
 * Each staff update: its input checked, then refused unless the lifecycle takes it now (and, for documents,
 * unless each is a file the brokerage has not rejected). A validator's refusal writes no history, and
 * validators do not run on replay: a change to one needs no patch.
 */
function installStaffUpdates(run: ApplicationRun): void {
  const handle = (event: LifecycleEvent) => run.handleStaff(event);
  setHandler(abandonUpdate, (request) => handle({ type: 'ABANDON', reason: request?.reason }), {
    validator: (request?: AbandonRequest) => {
      requireStaffInput('abandon', request, ['reason']);
      run.allowed({ type: 'ABANDON', reason: request?.reason });
    },
  });
  setHandler(resubmitUpdate, (application) => handle({ type: 'RESUBMIT', application }), {
    validator: (application: DocumentRef) => {
      requireResubmitInput(application);
      run.allowed({ type: 'RESUBMIT', application });
    },
  });
  setHandler(provideDocumentsUpdate, (documents) => handle({ type: 'PROVIDE_DOCUMENTS', documents }), {
    validator: (documents: FormDocument[]) => {
      requireDocumentsInput(documents);
      run.allowed({ type: 'PROVIDE_DOCUMENTS', documents });
      run.refuseRejectedFiles(documents);
    },
  });
  setHandler(resetUpdate, () => handle({ type: 'RESET' }), {
    validator: (request?: EmptyRequest) => {
      requireStaffInput('reset', request);
      run.allowed({ type: 'RESET' });
    },
  });
  setHandler(retryUpdate, () => handle({ type: 'RETRY' }), {
    validator: (request?: EmptyRequest) => {
      requireStaffInput('retry', request);
      run.allowed({ type: 'RETRY' });
    },
  });
}
