/**
 * The activities' log call sites fed an applicant's data as an outside text would carry it (the brokerage's
 * per-account error text, a document's error), through the engine's logger in a real activity context: the
 * run's log watch (test/support/log-watch.ts) reads the lines, and fails the run on any of the data.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stepFailure } from '../../activities/configuration-errors.js';
import { createDeadlinePolicyActivities } from '../../activities/deadline-policies.js';
import { registeringAccounts } from '../../activities/sweep-snapshot.js';
import { AccountEntryError } from '../../activities/status.js';
import { SweepSnapshot } from '../../runtime/sweep-snapshot.js';
import type { ApplicationActivities } from '../../workflows/application/activities.js';
import { EcaCryptoError } from '../../eca/index.js';
import { openDatabase } from '../../runtime/database/index.js';
import { DeadlinePolicies } from '../../runtime/deadline-policies.js';
import { DocumentCorrupted, DocumentNotFound } from '../../runtime/document-store.js';
import { applicant } from '../support/history-privacy.js';
import { logWatch, siteLines, watchedActivityEnvironment } from '../support/log-watch.js';

const bounds = { blockAfterMs: 60_000, anomalyAttempts: 3 };

describe("the activities' log call sites, fed an applicant's data", function () {
  const person = applicant('logs', randomBytes(4).toString('hex'));
  /** The ways an outside text quotes a person: an e-mail, a tax id, an XML fragment, a JSON body. */
  const echoes = [
    `for ${person.email}`,
    `TIN ${person.taxId} already on file`,
    `<Name first="${person.first}" last="${person.last}"/> <Identification DriversLicense="${person.licence}"/>`,
    `{"first": "${person.first}", "last": "${person.last}", "email": "${person.email}"}`,
  ];

  it('configuration errors and anomalies: their texts are logged, not the person in them', async function () {
    const findings = logWatch.findings.length;
    const configuration = siteLines('activities/configuration-errors.ts', /^configuration error \(/);
    const anomaly = siteLines('activities/configuration-errors.ts', / attempt\(s\) in a row\): /);
    const errors = echoes.flatMap((echo) => [
      new EcaCryptoError('brokeragePublicKey', `signature check failed ${echo}`),
      new DocumentNotFound(`document of ${echo}`),
      new AccountEntryError(`getAccountStatus: ${echo}`),
      new DocumentCorrupted(`bytes differ ${echo}`),
    ]);
    await watchedActivityEnvironment().run(() => {
      for (const error of errors) stepFailure(error, { attempts: 1, elapsedMs: 0 }, bounds);
      return Promise.resolve();
    });
    assert.equal(siteLines('activities/configuration-errors.ts', /^configuration error \(/) - configuration, 8);
    assert.equal(siteLines('activities/configuration-errors.ts', / attempt\(s\) in a row\): /) - anomaly, 8);
    assert.deepEqual(logWatch.findings.slice(findings), []);
  });

  it('an account the status sweep could not be told of: logged, the create standing', async function () {
    const dir = await mkdtemp(join(tmpdir(), 'eca-log-sites-'));
    // The sweep's snapshot on a database that has gone away: the registration fails.
    const db = await openDatabase(`pglite:${dir}`);
    await db.close();
    try {
      const site = ['activities/sweep-snapshot.ts', /^account not registered with the status sweep/] as const;
      const before = siteLines(...site);
      const findings = logWatch.findings.length;
      // The create as the brokerage answered it; the registration after it is what fails.
      const created = { created: true as const, accountId: 'U7654321', recovered: false };
      const { createAccount } = registeringAccounts(
        {
          createAccount: () => Promise.resolve(created),
          sendApplicationUpdate: () => Promise.reject(new Error('not called')),
        },
        new SweepSnapshot(db),
      );
      const info = { workflowExecution: { workflowId: 'application-FIRM-LOGS-ext-1', runId: randomUUID() } };
      const outcome = await watchedActivityEnvironment(info).run(createAccount, {
        csid: 'FIRM-LOGS',
        externalId: 'ext-1',
        application: { id: 'doc-1', sha256: '0'.repeat(64), bytes: 1 },
      } as unknown as Parameters<ApplicationActivities['createAccount']>[0]);
      assert.deepEqual(outcome, created, 'the create stands');
      assert.equal(siteLines(...site) - before, 1);
      assert.deepEqual(logWatch.findings.slice(findings), []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a stored deadline that no longer validates: logged with its problems', async function () {
    const dir = await mkdtemp(join(tmpdir(), 'eca-log-sites-'));
    const db = await openDatabase(`pglite:${dir}`);
    try {
      await db.query('INSERT INTO deadline_policies (csid, policy) VALUES ($1, $2::jsonb)', [
        'FIRM-LOGS',
        JSON.stringify({ blocked: { deadline: person.email, reminders: [], escalation: 'none' } }),
      ]);
      const before = siteLines('activities/deadline-policies.ts', /^a stored deadline is not valid/);
      const findings = logWatch.findings.length;
      const { readDeadlinePolicy } = createDeadlinePolicyActivities(new DeadlinePolicies(db));
      await watchedActivityEnvironment().run(readDeadlinePolicy, { csid: 'FIRM-LOGS' });
      assert.equal(siteLines('activities/deadline-policies.ts', /^a stored deadline is not valid/) - before, 1);
      assert.deepEqual(logWatch.findings.slice(findings), []);
    } finally {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
