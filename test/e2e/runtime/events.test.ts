/** The event log (runtime/events.ts) on both database backends: idempotent appends, cursors that never skip. */
import assert from 'node:assert/strict';
import { openDatabase } from '../../../runtime/database/index.js';
import type { Database } from '../../../runtime/database/index.js';
import { EventLog, formatCursor, LOG_START, parseCursor } from '../../../runtime/events.js';
import type { EventCursor, NewEvent } from '../../../runtime/events.js';
import { useDatabaseBackends } from '../../support/databases.js';

function event(csid: string, externalId: string, seq: number): NewEvent {
  return {
    application: `application-${csid}-${externalId}/run`,
    seq,
    type: 'application.validated',
    csid,
    externalId,
    from: 'validating',
    to: 'creating',
    at: Date.now(),
    data: {},
  };
}

describe('event log (runtime/events)', function () {
  this.timeout(180_000);
  const backends = useDatabaseBackends();

  it('reads cursors as written, and refuses what is not one', function () {
    const cursor: EventCursor = { tx: '18446744073709551615', position: '42' };
    assert.deepEqual(parseCursor(formatCursor(cursor)), cursor);
    assert.deepEqual(parseCursor(' 007-1 '), { tx: '7', position: '1' });
    assert.deepEqual(parseCursor('1-9223372036854775807'), { tx: '1', position: '9223372036854775807' });
    // Past what the log's columns hold (xid8: unsigned 64-bit, position: bigint): no cursor, never a query error.
    const outOfRange = ['18446744073709551616-1', '1-9223372036854775808', `${'9'.repeat(20)}-1`];
    for (const text of ['', 'now', '1', '1-', '-1', '1-2-3', '1.5-2', `${'9'.repeat(21)}-1`, ...outOfRange]) {
      assert.equal(parseCursor(text), undefined, text);
    }
  });

  for (const backend of backends.all) {
    describe(`on ${backend.kind}`, function () {
      let db: Database;
      let log: EventLog;

      before(async function () {
        db = await openDatabase(await backend.freshUrl());
        log = new EventLog(db);
      });

      after(async function () {
        await db?.close();
      });

      it('appends an event once, however often it is written; each firm reads its own', async function () {
        assert.equal(await log.append([event('F1', 'A', 1), event('F1', 'A', 2)]), 2);
        assert.equal(await log.append([event('F1', 'A', 2), event('F1', 'A', 3)]), 1, 'the repeat is left');
        await log.append([event('F2', 'B', 1)]);
        const read = await log.read({ csid: 'F1', after: LOG_START });
        assert.deepEqual(
          read.map((logged) => logged.event.seq),
          [1, 2, 3],
        );
        assert.equal(read[0]?.event.id, (await log.read({ csid: 'F1', after: LOG_START, limit: 1 }))[0]?.event.id);
        assert.deepEqual(await log.end('F1'), read[2]?.cursor);
        assert.equal(await log.countAfter('F1', read[0]!.cursor), 2);
        assert.deepEqual(
          (await log.read({ csid: 'F2', after: LOG_START })).map((logged) => logged.event.externalId),
          ['B'],
        );
        assert.deepEqual(await log.end('NONE'), LOG_START);
      });

      it("finds an application's event by number, as the first write left it", async function () {
        const first = { ...event('F3', 'A', 1), at: Date.parse('2026-11-01T00:00:00.000Z'), accountId: 'U1' };
        await log.append([first]);
        await log.append([{ ...first, at: Date.now() }]);
        assert.deepEqual(await log.find(first.application, 1), first);
        assert.equal(await log.find(first.application, 2), undefined);
      });

      it("two writes of one application's events under way at once (one riding with a step, one alone) log them in order", async function () {
        const csid = `O${backend.kind}`;
        const rounds = 60;
        const range = (from: number, to: number) =>
          Array.from({ length: to - from + 1 }, (_, i) => event(csid, 'A', from + i));
        for (let round = 0; round < rounds; round++) {
          const base = round * 3;
          // The step carries what was unwritten when it was scheduled; the write alone carries that and what came after.
          const writes = [range(base + 1, base + 2), range(base + 1, base + 3)];
          if (round % 2) writes.reverse();
          await Promise.all(writes.map((events) => log.append(events)));
        }
        const read = await log.read({ csid, after: LOG_START, limit: 1000 });
        assert.deepEqual(
          read.map((logged) => logged.event.seq),
          range(1, rounds * 3).map((logged) => logged.seq),
        );
      });

      it('a reader following the log while writers append concurrently misses nothing, in order per application', async function () {
        const csid = `C${backend.kind}`;
        const writers = 6;
        const perWriter = 250;
        let writing = true;
        const seen: string[] = [];
        const reader = (async () => {
          let cursor = LOG_START;
          // Small pages, as a stream catching up reads them: a page boundary must never skip an event.
          for (;;) {
            const done = !writing;
            const page = await log.read({ csid, after: cursor, limit: 7 });
            for (const logged of page) {
              seen.push(`${logged.event.externalId}#${logged.event.seq}`);
              cursor = logged.cursor;
            }
            if (page.length === 0 && done) return;
          }
        })();
        await Promise.all(
          Array.from({ length: writers }, async (_, w) => {
            // Past the transaction ids where text order and number order part (999 → 1000).
            for (let seq = 1; seq <= perWriter; seq++) await log.append([event(csid, `W${w}`, seq)]);
          }),
        );
        writing = false;
        await reader;
        assert.equal(seen.length, writers * perWriter, 'events missed or read twice');
        for (let w = 0; w < writers; w++) {
          const mine = seen.filter((entry) => entry.startsWith(`W${w}#`)).map((entry) => Number(entry.split('#')[1]));
          assert.deepEqual(
            mine,
            mine.map((_, i) => i + 1),
            `W${w} out of order`,
          );
        }
      });
    });
  }
});
