/**
 * A test's own event sink: the events the application workflows wrote, in the order their writes
 * arrived, each id kept once as the event log keeps it (runtime/events.ts). Tests that need the log
 * itself (cursors, SSE, webhooks) open a real database instead.
 */
import type { EventSink } from '../../activities/events.js';
import { eventId, fromRecord, toRecord } from '../../runtime/events.js';
import type { NewEvent } from '../../runtime/events.js';
import type { EventType, LifecycleEventRecord } from '../../domain/events.js';

export class RecordedEvents implements EventSink {
  readonly all: LifecycleEventRecord[] = [];
  private readonly ids = new Set<string>();
  /** How many events were written more than once (a write repeated after its answer was lost). */
  repeated = 0;

  append(events: readonly NewEvent[]): Promise<number> {
    let written = 0;
    for (const record of events.map(toRecord)) {
      if (this.ids.has(record.id)) {
        this.repeated++;
        continue;
      }
      this.ids.add(record.id);
      this.all.push(record);
      written++;
    }
    return Promise.resolve(written);
  }

  find(application: string, seq: number): Promise<NewEvent | undefined> {
    const id = eventId(application, seq);
    const record = this.all.find((event) => event.id === id);
    return Promise.resolve(record && fromRecord(application, record));
  }

  /** One application's events, in order. */
  of(externalId: string): LifecycleEventRecord[] {
    return this.all.filter((event) => event.externalId === externalId);
  }

  /** One application's event types, in order. */
  typesOf(externalId: string): EventType[] {
    return this.of(externalId).map((event) => event.type);
  }
}
