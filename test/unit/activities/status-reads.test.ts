/**
 * The account reads (an application's own, merged by the status reader, and the firm's status sweep)
 * decide on what the spec promises only, against the simulator over HTTP with the settings that break
 * what it does not promise:
 * - `description-rewording`: getAccountStatus `description` is "the text of the status", worded anew
 *   from read to read; it is no change of the account.
 * - `pending-tasks-omitted`: getPendingTasks lists only accounts with pending tasks; a missing entry
 *   means "no tasks" only where getAccountStatus agrees, and otherwise the account's read fails, bounded.
 */
import assert from 'node:assert/strict';
import { anomalyKind } from '../../../activities/configuration-errors.js';
import { createStatusReader } from '../../../activities/status.js';
import { AccountEntryError, accountSnapshot } from '../../../brokerage/xml/accounts.js';
import { readPending } from '../../../brokerage/xml/sweep-reads.js';
import { observationFingerprint } from '../../../domain/observation.js';
import type { AccountSnapshot } from '../../../domain/account.js';
import { parseAccountStatus, parseApplicationState } from '../../../eca/index.js';
import type { AccountStatusEntry } from '../../../eca/index.js';
import { ecaClientFor } from '../../../simulator/client.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import type { Unpromised } from '../../../simulator/unpromised.js';
import { createAccount, op, start } from '../simulator/helpers.js';

describe('account reads decide on status, state and tasks only (simulator over HTTP)', function () {
  let sim: RunningSimulator | undefined;

  afterEach(async function () {
    await sim?.close();
    sim = undefined;
  });

  async function simulator(setting: Unpromised) {
    const started = await start({ unpromised: [setting] });
    sim = started.sim;
    return { sim: started.sim, firm: started.firm };
  }

  /** A fetch that drops `accountId`'s entry from every getPendingTasks answer (a service listing fewer accounts). */
  function withoutPendingEntry(accountId: string): typeof fetch {
    return async (request, init) => {
      const response = await fetch(request, init);
      const url = request instanceof Request ? request.url : String(request);
      if (!url.endsWith('/ws/eca/getPendingTasks')) return response;
      const body = (await response.json()) as { result: Array<Record<string, unknown>> };
      body.result = body.result.filter((entry) => entry.acctId !== accountId);
      return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    };
  }

  it('a status worded anew from read to read reads to the same fingerprint (description-rewording)', async function () {
    const { sim, firm } = await simulator('description-rewording');
    const { accountId } = await createAccount(sim, firm, 'happy-d1');
    const descriptions = new Set<unknown>();
    for (let i = 0; i < 2; i++) {
      const { body } = await op(sim, 'getAccountStatus', { CSID: firm.csid, accountIds: [accountId] });
      descriptions.add((body.status as Array<Record<string, unknown>>)[0]?.description);
    }
    assert.equal(descriptions.size, 2, 'the simulator words the status anew');

    // An application's own read, twice: the same account, the same fingerprint.
    const reader = createStatusReader(ecaClientFor(sim, { retry: 0 }), { windowMs: 0 });
    const first = await reader.read(firm.csid, accountId);
    const second = await reader.read(firm.csid, accountId);
    assert.equal(observationFingerprint(first), observationFingerprint(second));
    assert.equal(first.description, undefined, 'the wording is not part of what the engine reads');

    // The sweep's reads, twice: it compares the same fingerprint and wakes nothing.
    const eca = ecaClientFor(sim, { retry: 0 });
    const swept: string[] = [];
    for (let i = 0; i < 2; i++) {
      const account = (await readPending(eca, firm.csid)).snapshots.get(accountId);
      if (account === undefined || account instanceof Error) assert.fail(account?.message ?? 'no entry');
      swept.push(observationFingerprint(account));
    }
    assert.equal(swept[0], swept[1]);
    assert.equal(swept[0], observationFingerprint(first), "the sweep's read and the application's agree");
  });

  it('getPendingTasks lists only accounts with pending tasks under pending-tasks-omitted, by ids and without selector', async function () {
    const { sim, firm } = await simulator('pending-tasks-omitted');
    const quiet = (await createAccount(sim, firm, 'happy-p1')).accountId;
    const docs = (await createAccount(sim, firm, 'docs-required-p1')).accountId;
    for (const selection of [{ accountIds: [quiet, docs] }, {}]) {
      const { body } = await op(sim, 'getPendingTasks', { CSID: firm.csid, ...selection });
      const listed = (body.result as Array<Record<string, unknown>>).map((entry) => entry.acctId);
      assert.deepEqual(listed, [docs], JSON.stringify(selection));
    }
  });

  it('reads an unlisted account as without tasks where getAccountStatus agrees, as unknown where it says tasks are pending', async function () {
    const { sim, firm } = await simulator('pending-tasks-omitted');
    const quiet = (await createAccount(sim, firm, 'happy-p2')).accountId;
    const docs = (await createAccount(sim, firm, 'docs-required-p2')).accountId;

    // The simulator leaves out the account without tasks: its state (Under Review) agrees.
    const reader = createStatusReader(ecaClientFor(sim, { retry: 0 }), { windowMs: 0 });
    const [quietRead, docsRead] = await Promise.all([reader.read(firm.csid, quiet), reader.read(firm.csid, docs)]);
    assert.deepEqual([quietRead.stateText, quietRead.tasks], ['Under Review', []]);
    assert.equal(docsRead.tasks.length, 2);

    // A getPendingTasks that leaves out an account whose state says documents are required: not "no tasks".
    const hiding = ecaClientFor(sim, { retry: 0, fetch: withoutPendingEntry(docs) });
    const failed = await createStatusReader(hiding, { windowMs: 0 })
      .read(firm.csid, docs)
      .then(
        (account) => assert.fail(`read as ${JSON.stringify(account)}`),
        (error: unknown) => error,
      );
    assert.ok(failed instanceof AccountEntryError, String(failed));
    assert.match(
      failed.message,
      /getPendingTasks lists no entry for account \S+ while .*status P .*Documents Required/,
    );
    assert.equal(anomalyKind(failed), 'account-entry', 'retried, then blocked after ECA_BLOCK_AFTER_ATTEMPTS');

    // The sweep: the account is unknown this slot (it wakes nothing); the other reads as without tasks.
    const { snapshots } = await readPending(hiding, firm.csid);
    assert.ok(snapshots.get(docs) instanceof AccountEntryError);
    assert.deepEqual((snapshots.get(quiet) as AccountSnapshot).tasks, []);
  });

  it('decides a missing getPendingTasks entry from the status and state alone', function () {
    const entry = (status: string, state?: string): AccountStatusEntry => ({
      accountId: 'U100',
      isError: false,
      status: parseAccountStatus(status),
      ...(state !== undefined && { state: parseApplicationState(state) }),
      extra: {},
    });
    const tasksOf = (read: AccountSnapshot | Error) => (read instanceof Error ? read : read.tasks);
    for (const [status, state] of [
      ['N', 'Under Review with IBKR'],
      ['P', 'Pending Approval'],
      ['O', undefined],
      ['R', undefined],
      ['C', undefined],
      ['A', undefined],
      // A status the engine does not know, in a state that needs no client action: the state agrees.
      ['X', 'Under Review'],
    ] as const) {
      assert.deepEqual(tasksOf(accountSnapshot(entry(status, state), undefined)), [], `${status} ${state}`);
    }
    for (const [status, state] of [
      ['N', 'Incomplete Application'],
      ['P', 'Documents Required'],
      ['P', 'Awaiting a decision'],
      ['N', undefined],
      ['X', undefined],
    ] as const) {
      const read = accountSnapshot(entry(status, state), undefined);
      assert.ok(read instanceof AccountEntryError, `${status} ${state}: ${JSON.stringify(read)}`);
    }
  });
});
