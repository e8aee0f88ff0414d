/** The brokerage's maintenance windows (domain/maintenance-windows.ts): parsed, and asked about instants. */
import assert from 'node:assert/strict';
import {
  maintenanceEnd,
  MaintenanceWindowError,
  parseMaintenanceWindows,
} from '../../../domain/maintenance-windows.js';
import { fc, fuzzParameters } from '../../support/fuzz.js';

const at = (iso: string) => Date.parse(iso);

describe('maintenance windows (domain/maintenance-windows)', function () {
  it('reads daily and weekly windows, those past midnight included; an empty text is none', function () {
    assert.deepEqual(parseMaintenanceWindows('03:00-03:30; Sun 22:00-02:00, 00:00-24:00'), [
      { startMinute: 180, minutes: 30 },
      { weekday: 0, startMinute: 1320, minutes: 240 },
      { startMinute: 0, minutes: 1440 },
    ]);
    assert.deepEqual(parseMaintenanceWindows(' '), []);
    for (const bad of ['3:00-4:00', '25:00-01:00', 'Foo 01:00-02:00', '01:00-24:30', '01:00']) {
      assert.throws(
        () => parseMaintenanceWindows(`02:00-02:10; ${bad}`),
        (error: unknown) => error instanceof MaintenanceWindowError && error.part === bad,
        bad,
      );
    }
  });

  it('says until when an instant is closed, on the time zone’s clock', function () {
    const windows = parseMaintenanceWindows('03:00-03:30; Sun 22:00-02:00');
    // 29 November 2026 is a Sunday.
    assert.equal(maintenanceEnd(windows, at('2026-11-29T23:00:00Z'), 'UTC'), at('2026-11-30T02:00:00Z'));
    assert.equal(maintenanceEnd(windows, at('2026-11-30T01:59:59.999Z'), 'UTC'), at('2026-11-30T02:00:00Z'));
    assert.equal(maintenanceEnd(windows, at('2026-11-30T02:00:00Z'), 'UTC'), undefined);
    assert.equal(maintenanceEnd(windows, at('2026-11-28T22:30:00Z'), 'UTC'), undefined, 'Saturday is open');
    assert.equal(maintenanceEnd(windows, at('2026-11-27T03:10:00Z'), 'UTC'), at('2026-11-27T03:30:00Z'));
    // 03:10 in New York (EST, UTC−5) is 08:10 UTC.
    assert.equal(maintenanceEnd(windows, at('2026-11-27T08:10:00Z'), 'America/New_York'), at('2026-11-27T08:30:00Z'));
    assert.equal(maintenanceEnd(windows, at('2026-11-27T03:10:00Z'), 'America/New_York'), undefined);
    assert.equal(maintenanceEnd([], at('2026-11-27T03:10:00Z'), 'UTC'), undefined);
  });

  it('closes exactly the minutes of a daily window (property)', function () {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1439 }),
        fc.integer({ min: 1, max: 1440 }),
        fc.integer({ min: at('2020-01-01T00:00:00Z'), max: at('2030-01-01T00:00:00Z') }),
        (startMinute, minutes, epochMs) => {
          const end = maintenanceEnd([{ startMinute, minutes }], epochMs, 'UTC');
          const dayMs = ((epochMs % 86_400_000) + 86_400_000) % 86_400_000;
          const into = (((dayMs - startMinute * 60_000) % 86_400_000) + 86_400_000) % 86_400_000;
          if (into < minutes * 60_000) assert.equal(end, epochMs + minutes * 60_000 - into);
          else assert.equal(end, undefined);
        },
      ),
      fuzzParameters('maintenance windows', 300),
    );
  });
});
