import assert from 'node:assert/strict';
import {
  formatCompactTimestamp,
  isIsoDate,
  parseAccountStatus,
  parseApplicationState,
  parseRegistrationTaskState,
  parseRequestStatus,
  parseTaskAction,
  parseTaskState,
  parseTimestamp,
} from '../../../eca/types.js';

describe('eca/types: timestamps and enums', function () {
  it('parses every timestamp form the spec names, keeping the raw text', function () {
    const cases: Array<[string, string]> = [
      ['2024-05-01 10:11:12', '2024-05-01T10:11:12.000Z'],
      ['2024-05-01 10:11:12.3', '2024-05-01T10:11:12.300Z'],
      ['2024/05/01 10:11:12', '2024-05-01T10:11:12.000Z'],
      ['20240501101112', '2024-05-01T10:11:12.000Z'],
      ['2024-05-01', '2024-05-01T00:00:00.000Z'],
    ];
    for (const [raw, iso] of cases) {
      const parsed = parseTimestamp(raw);
      assert.equal(parsed.raw, raw);
      assert.equal(parsed.date?.toISOString(), iso, raw);
    }
  });

  it('keeps unparseable or impossible timestamps with an undefined date', function () {
    assert.deepEqual(parseTimestamp('yesterday'), { raw: 'yesterday', date: undefined });
    assert.equal(parseTimestamp('2024-02-30 00:00:00').date, undefined);
    assert.equal(parseTimestamp('20241301000000').date, undefined);
  });

  it('checks yyyy-mm-dd dates and writes compact UTC timestamps', function () {
    assert.ok(isIsoDate('2024-02-29'));
    assert.ok(!isIsoDate('2023-02-29'));
    assert.ok(!isIsoDate('2024-5-1'));
    assert.equal(formatCompactTimestamp(new Date('2024-05-01T23:59:58Z')), '20240501235958');
  });

  it('types account status codes and flags unknown ones', function () {
    assert.deepEqual(parseAccountStatus('O'), {
      raw: 'O',
      known: true,
      code: 'O',
      meaning: 'Open: an active account',
    });
    assert.deepEqual(parseAccountStatus('X'), { raw: 'X', known: false, code: 'X' });
  });

  it('reads task actions and states, with the rejection reason split off', function () {
    assert.deepEqual(parseTaskAction('to sign'), { raw: 'to sign', known: true, action: 'to sign' });
    assert.equal(parseTaskAction('to fax').known, false);
    assert.deepEqual(parseTaskState('Received- Being Processed'), {
      raw: 'Received- Being Processed',
      known: true,
      state: 'Received- Being Processed',
    });
    assert.deepEqual(parseTaskState('Rejected Document expired'), {
      raw: 'Rejected Document expired',
      known: true,
      state: 'Rejected',
      reason: 'Document expired',
    });
    assert.deepEqual(parseTaskState('Rejected: blurry'), {
      raw: 'Rejected: blurry',
      known: true,
      state: 'Rejected',
      reason: 'blurry',
    });
    assert.deepEqual(parseTaskState('Rejected'), { raw: 'Rejected', known: true, state: 'Rejected', reason: '' });
    assert.deepEqual(parseTaskState('Escalated'), { raw: 'Escalated', known: false, state: 'Escalated' });
    assert.deepEqual(parseRegistrationTaskState('Pending'), { raw: 'Pending', known: true, state: 'Pending' });
  });

  it('recognises Under Review whatever the reviewer, and the other application states', function () {
    assert.deepEqual(parseApplicationState('Under Review with IBKR-side staff'), {
      raw: 'Under Review with IBKR-side staff',
      known: true,
      state: 'Under Review',
      reviewer: 'IBKR-side staff',
    });
    const other = parseApplicationState('Under Review with Some Other Brokerage');
    assert.ok(other.known && other.state === 'Under Review' && other.reviewer === 'Some Other Brokerage');
    assert.deepEqual(parseApplicationState('Documents Required'), {
      raw: 'Documents Required',
      known: true,
      state: 'Documents Required',
    });
    assert.equal(parseApplicationState('Frozen').known, false);
  });

  it('types request statuses', function () {
    assert.deepEqual(parseRequestStatus('REJECTED'), { raw: 'REJECTED', known: true, status: 'REJECTED' });
    assert.deepEqual(parseRequestStatus('QUEUED'), { raw: 'QUEUED', known: false, status: 'QUEUED' });
  });
});
