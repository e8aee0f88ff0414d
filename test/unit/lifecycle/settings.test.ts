import assert from 'node:assert/strict';
import { nextSafetyPollAt, nextSlot, resolveSettings } from '../../../workflows/application/settings.js';

const at = (iso: string) => Date.parse(iso);

describe('poll scheduling', function () {
  it('aligns polls to shared wall-clock slots', function () {
    assert.equal(nextSlot(at('2026-03-02T10:07:31Z'), '15 minutes'), at('2026-03-02T10:15:00Z'));
    assert.equal(nextSlot(at('2026-03-02T10:15:00Z'), '15 minutes'), at('2026-03-02T10:30:00Z'));
    // two workflows a few seconds apart wake on the same slot
    assert.equal(nextSlot(at('2026-03-02T10:00:01Z'), '1 hour'), nextSlot(at('2026-03-02T10:59:58Z'), '1 hour'));
    assert.throws(() => nextSlot(0, 0), RangeError);
  });

  it("reads an application's own account on the slot of its safety interval", function () {
    const settings = resolveSettings({ safetyPollInterval: '1 hour' });
    assert.equal(settings.pollIntervals.tracking, '15 minutes', 'the other settings keep their defaults');
    assert.equal(nextSafetyPollAt(at('2026-03-06T01:20:00Z'), settings), at('2026-03-06T02:00:00Z'));
    assert.equal(nextSafetyPollAt(at('2026-03-06T01:20:00Z'), resolveSettings(undefined)), at('2026-03-07T00:00:00Z'));
  });
});
