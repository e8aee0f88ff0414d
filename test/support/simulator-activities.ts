/**
 * The application activities against a real simulator over HTTP, with a document store in a temporary directory:
 * one fresh pair per test (mocha hooks registered by the call, inside a `describe`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApplicationActivities } from '../../activities/application.js';
import { FileDocumentStore } from '../../runtime/document-store.js';
import { ecaClientFor } from '../../simulator/client.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../simulator/server.js';
import type { ApplicationActivities } from '../../workflows/application/activities.js';
import { applicationXml } from './engine.js';
import { inActivity } from './activity-context.js';

export interface SimulatorActivities {
  readonly sim: RunningSimulator;
  readonly store: FileDocumentStore;
  /** The activities, each call a first attempt (activity-context.ts), on a client that does not retry (and calls through `fetch` when given). */
  activities(fetch?: typeof globalThis.fetch): ApplicationActivities;
  /** A createAccount input for a stored application XML of `externalId` (edited by `edit`). */
  input(
    externalId: string,
    edit?: (xml: string) => string,
  ): Promise<{
    csid: string;
    externalId: string;
    application: Awaited<ReturnType<FileDocumentStore['put']>>;
    documents: [];
  }>;
}

/** Wednesday 8 January 2025, 10:00 UTC, unless `options` say otherwise. */
export function useSimulatorActivities(options: SimulatorOptions = {}): SimulatorActivities {
  let sim: RunningSimulator | undefined;
  let store: FileDocumentStore | undefined;
  let dir: string | undefined;
  beforeEach(async function () {
    sim = await startSimulator({ startTime: Date.UTC(2025, 0, 8, 10), ...options });
    dir = await mkdtemp(join(tmpdir(), 'eca-activities-'));
    store = new FileDocumentStore(join(dir, 'documents'));
  });
  afterEach(async function () {
    await sim?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const running = () => {
    if (!sim || !store) throw new Error('useSimulatorActivities: used outside a test');
    return { sim, store };
  };
  return {
    get sim() {
      return running().sim;
    },
    get store() {
      return running().store;
    },
    activities(fetch) {
      const { sim: current, store: documents } = running();
      return inActivity(
        createApplicationActivities({
          eca: ecaClientFor(current, { retry: 0, ...(fetch && { fetch }) }),
          store: documents,
        }),
      );
    },
    async input(externalId, edit) {
      const { sim: current, store: documents } = running();
      const application = await documents.put(new TextEncoder().encode(applicationXml(externalId, edit)));
      return { csid: current.csid, externalId, application, documents: [] };
    },
  };
}
