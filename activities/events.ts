/**
 * The application workflow's events, written to the event log (runtime/events.ts) by an activity
 * whose input history holds: idempotent per application and sequence number, so a retry after a lost
 * answer or a worker killed mid-write writes nothing twice and loses nothing (the workflow keeps the
 * events until the write is recorded in its history). Most events ride with the step that follows them
 * (event-riders.ts); these write the rest: alone before a wait, and last, when the application finishes.
 */
import { Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { DOCUMENT_RETENTION_WORKFLOW } from '../domain/workflow-ids.js';
import type { NewEvent } from '../domain/events.js';
import type { EventActivities } from '../workflows/application/activities.js';

/** Where events go: the event log in the engine's database, or a test's own sink. */
export interface EventSink {
  /** Appends events, leaving those already written; answers how many were new. */
  append(events: readonly NewEvent[]): Promise<number>;
  /** The application's event numbered `seq`, as the log holds it (undefined when it holds none). */
  find(application: string, seq: number): Promise<NewEvent | undefined>;
}

export function createEventActivities(sink: EventSink): EventActivities {
  return {
    async recordEvents(input) {
      return { written: await sink.append(input.events) };
    },

    async finishApplication({ events, retention }) {
      const written = await sink.append(events);
      if (!retention) return { written };
      try {
        // The worker's own client (its namespace and payload codec).
        await Context.current().client.workflow.start(DOCUMENT_RETENTION_WORKFLOW, {
          workflowId: retention.workflowId,
          taskQueue: retention.taskQueue,
          args: [retention.input],
        });
        return { written, retention: 'started' };
      } catch (error) {
        // Started by an earlier attempt, or this application was reset to an earlier point and finished again.
        if (error instanceof WorkflowExecutionAlreadyStartedError) return { written, retention: 'already started' };
        throw error;
      }
    },
  };
}
