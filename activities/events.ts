/**
 * The application workflow's events, written to the event log (runtime/events.ts) by a local
 * activity: idempotent per application and sequence number, so a retry after a lost answer, a replay
 * or a worker killed mid-write writes nothing twice and loses nothing (the workflow keeps the events
 * until the write is recorded in its history).
 */
import type { NewEvent } from '../runtime/events.js';

/** Where events go: the event log in the engine's database, or a test's own sink. */
export interface EventSink {
  /** Appends events, leaving those already written; answers how many were new. */
  append(events: readonly NewEvent[]): Promise<number>;
}

export interface RecordEventsInput {
  events: NewEvent[];
}

export function createEventActivities(sink: EventSink) {
  return {
    async recordEvents(input: RecordEventsInput): Promise<{ written: number }> {
      return { written: await sink.append(input.events) };
    },
  };
}

export type EventActivities = ReturnType<typeof createEventActivities>;
