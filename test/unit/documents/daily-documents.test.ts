import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FileDailyDocumentsLedger,
  FormsManifestInvalid,
  planCreateDocuments,
  readFormsManifest,
} from '../../../activities/forms.js';
import type { CatalogueForm } from '../../../workflows/documents/activities.js';
import { addDays, dayIn } from '../../../domain/days.js';
import { evaluateSubmission } from '../../../workflows/documents/evaluate.js';
import type { DailyDocumentsResult } from '../../../workflows/documents/messages.js';
import { refuseFunction } from '../../../workflows/maintenance/functions.js';
import type { FormDocument } from '../../../domain/documents.js';
import { applicationXml } from '../../support/engine.js';

const sha = (c: string) => c.repeat(40);
const doc = (formNumber: string, c: string): FormDocument => ({
  formNumber,
  fileName: `${formNumber}.pdf`,
  sha1: sha(c),
  length: 10,
  ref: `sha1/${c}${c}/${sha(c)}`,
});

describe('daily documents: days, evaluation, create plan, manifest', function () {
  it('names the day in the firm’s time zone and adds calendar days across month ends', function () {
    const instant = Date.parse('2025-01-31T23:30:00Z');
    assert.equal(dayIn(instant, 'UTC'), '2025-01-31');
    assert.equal(dayIn(instant, 'Asia/Tokyo'), '2025-02-01');
    assert.equal(dayIn(instant, 'America/New_York'), '2025-01-31');
    assert.equal(addDays('2025-02-25', 7), '2025-03-04');
  });

  it('carries the grace period from the first day a mismatch was reported; an accepted form clears it', function () {
    const sent = [doc('3230', 'a'), doc('3024', 'b')];
    const mismatch = {
      processed: true as const,
      documents: [
        {
          formNumber: '3230',
          fileName: '3230.pdf',
          status: 'different SHA-1',
          accepted: false,
          checksumMismatch: { stored: sha('c'), received: sha('a') },
        },
        { formNumber: '3024', fileName: '3024.pdf', status: 'Accepted', accepted: true },
      ],
    };
    const day1 = evaluateSubmission({ csid: 'C', day: '2025-03-01', timeZone: 'UTC', sent, outcome: mismatch });
    assert.equal(day1.alert, 'checksum-mismatch');
    assert.deepEqual(
      day1.replacements.map((r) => [r.formNumber, r.since, r.replaceBy]),
      [['3230', '2025-03-01', '2025-03-08']],
    );
    const day2 = evaluateSubmission({
      csid: 'C',
      day: '2025-03-02',
      timeZone: 'UTC',
      sent,
      outcome: mismatch,
      previous: day1,
    });
    assert.equal(day2.replacements[0]?.replaceBy, '2025-03-08');
    const refused = evaluateSubmission({
      csid: 'C',
      day: '2025-03-03',
      timeZone: 'UTC',
      sent,
      outcome: { processed: false, error: 'down' },
      previous: day2,
    });
    assert.equal(refused.alert, 'refused');
    assert.equal(refused.accepted, false);
    assert.equal(refused.replacements[0]?.replaceBy, '2025-03-08', 'nothing checked today: still due');
    const replaced = [doc('3230', 'd'), doc('3024', 'b')];
    const accepted = evaluateSubmission({
      csid: 'C',
      day: '2025-03-04',
      timeZone: 'UTC',
      sent: replaced,
      outcome: {
        processed: true,
        documents: replaced.map((d) => ({
          formNumber: d.formNumber,
          fileName: d.fileName,
          status: 'Accepted',
          accepted: true,
        })),
      },
      previous: refused,
    });
    assert.equal(accepted.alert, 'none');
    assert.deepEqual(accepted.replacements, []);
    assert.equal(accepted.forms[0]?.changedFrom, sha('a'));
  });

  it('plans the create archive from the latest day record', async function () {
    const dir = await mkdtemp(join(tmpdir(), 'eca-ledger-'));
    try {
      const ledger = new FileDailyDocumentsLedger(dir);
      const xml = applicationXml('EXT-9');
      const own = [doc('5002', 'f')];
      const input = { csid: 'C', applicationXml: xml, documents: own, now: new Date('2025-03-04T10:00:00Z') };
      assert.deepEqual(await planCreateDocuments(ledger, input), own, 'no record: the caller’s list as is');

      const catalogue: CatalogueForm[] = [
        { ...doc('3230', 'a'), taxForm: false },
        { ...doc('3230', 'z'), fileName: '3230.zh.pdf', taxForm: false, language: 'zh-Hans' },
        { ...doc('3024', 'b'), taxForm: false },
        { ...doc('5002', 'e'), taxForm: true },
      ];
      const result: DailyDocumentsResult = {
        csid: 'C',
        day: '2025-03-04',
        timeZone: 'UTC',
        submitted: true,
        accepted: true,
        alert: 'none',
        forms: ['3230', '3024'].map((formNumber) => ({
          formNumber,
          fileName: `${formNumber}.pdf`,
          sha1: sha('a'),
          status: 'Accepted',
          accepted: true,
        })),
        replacements: [],
      };
      await ledger.write({ result, catalogue, recordedAt: '2025-03-04T07:00:00Z' });
      const names = async (overrides: Partial<typeof input>) =>
        (await planCreateDocuments(ledger, { ...input, ...overrides }))
          .map((d) => `${d.formNumber}:${d.sha1[0]}`)
          .sort();
      assert.deepEqual(await names({}), ['5002:f'], 'accepted today: the application’s own tax form only');
      assert.deepEqual(await names({ documents: [] }), ['5002:e'], 'the firm’s tax form when the application has none');
      assert.deepEqual(
        await names({ documents: [doc('3230', 'a'), ...own] }),
        ['5002:f'],
        'accepted agreements are dropped',
      );
      assert.deepEqual(
        await names({ applicationXml: xml.replace('input_language="en"', 'input_language="zh-Hans"') }),
        ['3230:z', '5002:f'],
      );
      assert.deepEqual(
        await names({ now: new Date('2025-03-05T10:00:00Z') }),
        ['3024:b', '3230:a', '5002:f'],
        'a missed day',
      );
      for (const type of ['ORG', 'TRUST', 'SOMETHING-NEW']) {
        assert.deepEqual(
          await names({ applicationXml: xml.replace('type="INDIVIDUAL"', `type="${type}"`) }),
          ['3024:b', '3230:a', '5002:f'],
          `customer type ${type}: the daily submission does not apply (rule 4), the archive carries every form`,
        );
      }
      assert.deepEqual(
        await names({ applicationXml: xml.replace('type="INDIVIDUAL"', 'type="JOINT"') }),
        ['5002:f'],
        'joint holders: covered like an individual',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a manifest with a path, a duplicate form or a missing list', async function () {
    const dir = await mkdtemp(join(tmpdir(), 'eca-forms-'));
    try {
      const write = (value: unknown) => writeFile(join(dir, 'forms.json'), JSON.stringify(value));
      await write({ forms: [{ formNumber: '3230', file: '../secret.pdf' }] });
      await assert.rejects(readFormsManifest(dir), FormsManifestInvalid);
      await write({
        forms: [
          { formNumber: '3230', file: 'a.pdf' },
          { formNumber: '3230', file: 'b.pdf' },
        ],
      });
      await assert.rejects(readFormsManifest(dir), /lists form 3230 twice/);
      await write({});
      await assert.rejects(readFormsManifest(dir), FormsManifestInvalid);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('checks update functions against the firm type', function () {
    assert.equal(refuseFunction('ChangeBaseCurrency', 'non-disclosed'), undefined);
    assert.equal(refuseFunction('UpdateBCAN', 'non-disclosed'), undefined);
    assert.equal(refuseFunction('UpdateBCAN', 'fully-disclosed')?.type, 'FunctionNotAvailable');
    assert.equal(refuseFunction('Questionnaires', 'non-disclosed')?.type, 'FunctionNotAvailable');
    assert.equal(refuseFunction('AbandonAccount', 'advisor')?.type, 'FunctionNotAvailable');
    assert.equal(refuseFunction('toString', 'advisor')?.type, 'UnknownUpdateFunction');
    assert.equal(refuseFunction('ChangeBaseCurrency', 'retail')?.type, 'InvalidArgument');
  });
});
