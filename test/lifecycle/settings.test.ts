import assert from 'node:assert/strict';
import { nextBusinessDayCheck, nextPollAt, nextSlot, resolveSettings } from '../../workflows/application/settings.js';

const at = (iso: string) => Date.parse(iso);

describe('poll scheduling', function () {
  it('aligns polls to shared wall-clock slots', function () {
    assert.equal(nextSlot(at('2026-03-02T10:07:31Z'), '15 minutes'), at('2026-03-02T10:15:00Z'));
    assert.equal(nextSlot(at('2026-03-02T10:15:00Z'), '15 minutes'), at('2026-03-02T10:30:00Z'));
    // two workflows a few seconds apart wake on the same slot
    assert.equal(nextSlot(at('2026-03-02T10:00:01Z'), '1 hour'), nextSlot(at('2026-03-02T10:59:58Z'), '1 hour'));
    assert.throws(() => nextSlot(0, 0), RangeError);
  });

  it('checks the approval queue at the set time of the next business day', function () {
    // Wednesday → Thursday 06:00
    assert.equal(nextBusinessDayCheck(at('2026-03-04T15:00:00Z'), '06:00'), at('2026-03-05T06:00:00Z'));
    // Friday → Monday, whatever the hour
    assert.equal(nextBusinessDayCheck(at('2026-03-06T01:00:00Z'), '06:00'), at('2026-03-09T06:00:00Z'));
    // Saturday → Monday
    assert.equal(nextBusinessDayCheck(at('2026-03-07T12:00:00Z'), '07:30'), at('2026-03-09T07:30:00Z'));
    assert.throws(() => nextBusinessDayCheck(0, '6am'), /HH:MM/);
  });

  it('uses an approval interval instead when one is set (compressed time)', function () {
    const settings = resolveSettings({ pollIntervals: { approval: '1 second' } });
    assert.equal(settings.pollIntervals.tracking, '15 minutes', 'other intervals keep their defaults');
    assert.equal(nextPollAt(at('2026-03-06T01:00:00.400Z'), 'approval', settings), at('2026-03-06T01:00:01Z'));
    assert.equal(
      nextPollAt(at('2026-03-06T01:00:00Z'), 'approval', resolveSettings(undefined)),
      at('2026-03-09T06:00:00Z'),
    );
  });
});
