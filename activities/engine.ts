/**
 * Every activity of the engine, built from one brokerage client and one document store: what a
 * worker registers. The worker process, the demo and the tests all assemble their activities here.
 *
 * What every activity runs under is not here but in the worker's activity inbound interceptors
 * (interceptors.ts `engineActivityInterceptors`, installed by workers/engine-worker.ts `createEngineWorker`):
 * the step-failure policy (configuration-errors.ts) and the attempt's abort signal (attempt-signal.ts).
 */
import type { Client } from '@temporalio/client';
import { createApplicationActivities } from './application.js';
import { createWebApiApplicationActivities } from './webapi-application.js';
import type { WebApiApplicationOptions } from './webapi-application.js';
import { byProtocol } from './protocol-router.js';
import { ApplicationProtocols } from '../runtime/application-protocols.js';
import type { ProtocolAdapters } from './protocol-router.js';
import { statusReaderOf } from './status.js';
import type { StatusReaderOptions } from './status.js';
import type { MaintainedDocumentStore } from '../runtime/document-store.js';
import { createDocumentsActivities } from './documents.js';
import type { DocumentsActivityOptions } from './documents.js';
import { dailyLedgerBeside } from './daily-ledger.js';
import type { DailyDocumentsLedger } from './forms.js';
import { planCreateDocuments } from './forms.js';
import { createMaintenanceActivities } from './maintenance.js';
import * as smokeActivities from './smoke.js';
import { createSweepActivities } from './sweep.js';
import { SweepSnapshot } from '../runtime/sweep-snapshot.js';
import type { ApplicationActivities } from '../workflows/application/activities.js';
import type { SweepActivityOptions } from './sweep.js';
import { createRetentionActivities } from './retention.js';
import { createEventActivities } from './events.js';
import { createDeadlinePolicyActivities } from './deadline-policies.js';
import { DeadlinePolicies } from '../runtime/deadline-policies.js';
import type { EventSink } from './events.js';
import { withRidingEvents } from './event-riders.js';
import { createWebhookActivities } from './webhooks.js';
import type { WebhookActivityOptions } from './webhooks.js';
import type { Database } from '../runtime/database/index.js';
import type { CodecKeyring } from '../codec/keyring.js';

export interface EngineActivityOptions extends StatusReaderOptions {
  store: MaintainedDocumentStore;
  /** The days' records of the daily document submission; beside the store by default (daily-ledger.ts). */
  ledger?: DailyDocumentsLedger;
  /** The day's clock (daily submission, signing times); the system clock by default. */
  now?: () => Date;
  /**
   * A Temporal client with the workers' payload codec, for the firm's status sweep (it lists waiting
   * applications and signals them). Without it the sweep's activity fails and applications fall back
   * to their safety polls.
   */
  client?: Client;
  /** How often the status sweep lists the waiting applications from visibility (sweep.ts). */
  sweepListingIntervalMs?: number;
  /** Told what each of the firm's status sweeps did (sweep.ts). */
  onSweep?: SweepActivityOptions['onSweep'];
  /** Told of each sweep attempt that failed (sweep.ts). */
  onSweepFailed?: SweepActivityOptions['onSweepFailed'];
  /** Told when a firm's daily documents are recorded (documents.ts): their schedule ran to its end. */
  onDailyDocumentsRecorded?: DocumentsActivityOptions['onRecorded'];
  /** Where the applications' lifecycle events are written: the event log in the engine's database (runtime/events.ts). */
  events: EventSink;
  /**
   * The engine's database: webhook delivery (activities/webhooks.ts), the firms' deadline policies, the
   * status sweep's snapshot (sweep.ts) and the protocol each application started on.
   */
  database: Database;
  /** The payload codec's keys, which seal the webhook endpoints' secrets (the API process must use the same). */
  keyring?: CodecKeyring;
  /**
   * The firms (runtime/firms.ts `FirmRegistry`): a disabled firm's webhook deliveries are held until it is
   * enabled (activities/webhooks.ts). Without it every endpoint is delivered to.
   */
  firms?: WebhookActivityOptions['firms'];
  /**
   * The firms on the brokerage's Web API: each firm's protocol, Web API client and brokerage on its protocol
   * (runtime/firm-brokerages.ts `protocols`). Without it every firm is on the XML service.
   */
  webApi?: Pick<WebApiApplicationOptions, 'clientFor'> &
    Pick<ProtocolAdapters, 'protocolOf'> &
    Pick<SweepActivityOptions, 'brokerageFor'>;
}

/**
 * The application's activities: the XML service's, and the Web API's beside them when firms may be on it.
 * Each adapter registers the accounts it creates or resets in the sweep's `snapshot`.
 */
function applicationActivities(
  options: EngineActivityOptions,
  ledger: DailyDocumentsLedger,
  statusReader: ReturnType<typeof statusReaderOf>,
  snapshot: SweepSnapshot,
): ApplicationActivities {
  const { eca, store, now } = options;
  const xml = createApplicationActivities({
    eca,
    store,
    statusReader,
    now,
    createDocuments: (input) => planCreateDocuments(ledger, input),
    snapshot,
  });
  if (!options.webApi) return xml;
  const webapi = createWebApiApplicationActivities({ clientFor: options.webApi.clientFor, store, now, snapshot });
  return byProtocol({
    protocolOf: options.webApi.protocolOf,
    adapters: { xml, webapi },
    // Each application stays on the protocol it started on.
    pins: new ApplicationProtocols(options.database),
  });
}

export function createEngineActivities(options: EngineActivityOptions) {
  const { eca, store, now } = options;
  const ledger = options.ledger ?? dailyLedgerBeside(store);
  const statusReader = statusReaderOf(options);
  // The status sweep compares against its snapshot in the database, which creates and resets register into.
  const snapshot = new SweepSnapshot(options.database);
  return {
    ledger,
    statusReader,
    activities: {
      ...smokeActivities,
      ...withRidingEvents(applicationActivities(options, ledger, statusReader, snapshot), options.events),
      ...createDocumentsActivities({
        eca,
        store,
        ledger,
        now,
        onRecorded: options.onDailyDocumentsRecorded,
        ...(options.webApi && { brokerageFor: options.webApi.brokerageFor }),
      }),
      ...createMaintenanceActivities({ eca, store, now, ...(options.webApi && { webApi: options.webApi }) }),
      ...createSweepActivities({
        eca,
        client: options.client,
        snapshot,
        listingIntervalMs: options.sweepListingIntervalMs,
        maxAccountsPerCall: options.maxAccountsPerCall,
        onSweep: options.onSweep,
        onSweepFailed: options.onSweepFailed,
        ...(options.webApi && { brokerageFor: options.webApi.brokerageFor }),
      }),
      ...createRetentionActivities({ store }),
      ...createEventActivities(options.events),
      ...createDeadlinePolicyActivities(new DeadlinePolicies(options.database)),
      ...createWebhookActivities({ db: options.database, keyring: options.keyring, firms: options.firms }),
    },
  };
}
