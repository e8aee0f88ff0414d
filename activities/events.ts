/**
 * The application workflow's events, written to the event log (runtime/events.ts) by an activity
 * whose input history holds: idempotent per application and sequence number, so a retry after a lost
 * answer or a worker killed mid-write writes nothing twice and loses nothing (the workflow keeps the
 * events until the write is recorded in its history).
 */
import type { NewEvent } from '../domain/events.js';
import type { EventActivities } from '../workflows/application/activities.js';

/** Where events go: the event log in the engine's database, or a test's own sink. */
export interface EventSink {
  /** Appends events, leaving those already written; answers how many were new. */
  append(events: readonly NewEvent[]): Promise<number>;
}

export function createEventActivities(sink: EventSink): EventActivities {
  return {
    async recordEvents(input) {
      return { written: await sink.append(input.events) };
    },
  };
}
