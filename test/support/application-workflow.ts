/**
 * What the application workflow's test files share (test/workflows/application*.test.ts): the time-skipping
 * engine of each test, and starting an application of a simulator scenario, waiting for a state and keeping
 * a history as a replay fixture on it. Called inside the file's `describe`, which gets the engine's hooks.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { FormDocument } from '../../domain/documents.js';
import type { ApplicationInput } from '../../workflows/application/messages.js';
import type { accountApplication } from '../../workflows/index.js';
import { applicationXml, pdf, startApplication, timeSkippingEngine, waitForState } from './engine.js';
import type { EngineHarness } from './engine.js';
import { recordFixture } from './replay-fixtures.js';

export type Handle = WorkflowHandle<typeof accountApplication>;

export function applicationWorkflowTests() {
  const engines = timeSkippingEngine();
  return {
    engines,
    setUp: engines.setUp,
    /** An application of the simulator's `scenario`, the example's XML edited by `edit`. */
    start(
      harness: EngineHarness,
      scenario: string,
      input: Partial<ApplicationInput> = {},
      edit?: (xml: string) => string,
    ): Promise<Handle> {
      return startApplication(engines.env, harness, scenario, { input, xml: (id) => applicationXml(id, edit) });
    },
    /** Lets workflow time pass in steps until the application reaches `state`. */
    waitForState: (handle: Handle, state: string) => waitForState(engines.env, handle, state),
    /** Keeps the application's history as the replay fixture `application-<scenario>` (recordFixture). */
    keepFixture: (scenario: string, handle: Handle) =>
      recordFixture(`application-${scenario}`, () => handle.fetchHistory()),
    /** A PDF for `formNumber`, stored, distinct per `variant`. */
    async documentFor(harness: EngineHarness, formNumber: string, variant: string): Promise<FormDocument> {
      const ref = await harness.store.put(pdf(`${formNumber}-${variant}`));
      return { ...ref, formNumber, fileName: `form-${formNumber}-${variant}.pdf` };
    },
  };
}
