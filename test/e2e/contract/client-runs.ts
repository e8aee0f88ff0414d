/**
 * The two runs every generated client that runs makes (the Python and TypeScript ones), each in its own
 * language: a whole application against the real API, and a newer server's answers read through a proxy.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { applicationXml, pdf } from '../../support/engine.js';
import { externalIdOf, FUTURE, futureServerProxy, printed, startedWithEvents } from './support.js';
import type { RealApi } from './support.js';

/** What the cases reach once the file's `before` has run. */
export interface ClientRun {
  api: RealApi;
  receiver: { url: string };
  /** A working directory of the file's own. */
  dir: string;
  /** Runs the client's program with its arguments (`flow …`, `read …`); answers its output. */
  run(args: string[]): Promise<string>;
}

/** Declares the two cases; `tag` keeps each language's external ids apart (`py`, `ts`). */
export function clientRunCases(tag: string, context: () => ClientRun): void {
  it('starts an application with a PDF, provides the documents it asks for, follows it to open, reads its events and registers a webhook (onboarding key)', async function () {
    const { api, receiver, dir, run } = context();
    const externalId = externalIdOf(`docs-required-${tag}`);
    await writeFile(join(dir, 'application.xml'), applicationXml(externalId));
    await writeFile(join(dir, 'w9.pdf'), pdf(`${externalId} W-9`));
    const seen = printed(
      await run(['flow', api.base, externalId, join(dir, 'application.xml'), join(dir, 'w9.pdf'), receiver.url]),
    );
    assert.deepEqual(seen.start, { existed: false, externalId });
    assert.equal(seen.asked, 'needsDocuments');
    assert.equal((seen.provided as { state: string }).state, 'submittingDocuments');
    const final = seen.final as { state: string; accountId: string; done: boolean };
    assert.equal(final.state, 'open');
    assert.match(final.accountId, /\S/);
    const types = seen.events as string[];
    assert.ok(types.includes('application.open'), `events read: ${types.join(', ')}`);
    // An onboarding key registers its firm's webhook: the secret comes once.
    assert.deepEqual(seen.webhook, { status: 201, hasSecret: true, url: receiver.url }, JSON.stringify(seen.webhook));
  });

  it("reads a newer server's answers: an unknown field, a new lifecycle state and a new event type", async function () {
    const { api, run } = context();
    const externalId = externalIdOf(`stalled-${tag}-future`);
    await startedWithEvents(api, externalId, applicationXml(externalId));
    const proxy = await futureServerProxy(api.base);
    try {
      const seen = printed(await run(['read', proxy.base, externalId]));
      assert.equal(seen.applicationError, undefined, String(seen.applicationError));
      assert.equal(seen.eventsError, undefined, String(seen.eventsError));
      const application = seen.application as { state: string; externalId: string; done: boolean };
      assert.equal(application.state, FUTURE.state);
      assert.equal(application.externalId, externalId);
      const events = seen.events as Array<{ type: string; to: string }>;
      assert.deepEqual(events.at(-1), { type: FUTURE.eventType, to: FUTURE.state });
      assert.ok(events.length >= 2, 'the real events are read too');
    } finally {
      await proxy.close();
    }
  });
}
