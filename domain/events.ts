/**
 * Lifecycle events: what an application tells its firm, one event per thing that happened, in the
 * order it happened. The application workflow makes them (workflows/application/events.ts), the event
 * log keeps them (runtime/events.ts), the API streams them (SSE) and webhooks deliver them.
 *
 * An event carries ids, states, form numbers and texts the brokerage sent: nothing the firm does not
 * already have, and no personal data of the applicant.
 */
import type { ApplicationState } from './application-states.js';

/** An event's type: `application.` and what happened. */
export const EVENT_TYPES = [
  // the application entered a state (named after it)
  'application.validating',
  'application.validated',
  'application.needs_correction',
  'application.created',
  'application.tracking',
  'application.submitting_documents',
  'application.documents_submitted',
  'application.needs_documents',
  'application.awaiting_client',
  'application.awaiting_approval',
  'application.unconfirmed',
  'application.blocked',
  'application.abandoning',
  'application.abandoned',
  'application.resetting',
  'application.reset',
  'application.open',
  'application.rejected',
  'application.closed',
  'application.closed_as_abandoned',
  // things that happened within a state
  'application.document_rejected',
  'application.staff_action',
  'application.reminder',
  'application.overdue',
  'application.escalated',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** What an event says besides who and when; each field only where it applies. */
export interface EventData {
  /** Form numbers the brokerage waits for (`needs_documents`, `awaiting_client`). */
  tasks?: string[];
  /** The form a `document_rejected` is about. */
  formNumber?: string;
  /** The brokerage's text: a rejected document's reason, a refusal, the reason of `blocked` or `unconfirmed`. */
  reason?: string;
  /** Validation errors or a create refusal, as the brokerage sent them (`needs_correction`). */
  errors?: string[];
  /** The account's status code at the brokerage (A N O C P R). */
  status?: string;
  /** `staff_action`: which message staff sent (`abandon`, `reset`, `resubmit`, `provideDocuments`, `retry`). */
  action?: string;
  /** `reminder`, `overdue`, `escalated`: the waiting state the deadline is about and when it falls. */
  deadline?: { state: ApplicationState; due: string; reminder?: number; escalation?: string };
}

/** One event as the log keeps it and every consumer receives it (the webhook body, the SSE data). */
export interface LifecycleEventRecord {
  /** Stable across retries and replays: the webhook-id. */
  id: string;
  type: EventType;
  /** The firm. */
  csid: string;
  externalId: string;
  accountId?: string;
  /** The application's state before and after (equal for events within a state). */
  from: ApplicationState;
  to: ApplicationState;
  /** Workflow time the event happened, ISO 8601. */
  at: string;
  /** Its place among the application's events, from 1. */
  seq: number;
  data: EventData;
}

/** Event type of an application entering `state` (`needsDocuments` → `application.needs_documents`). */
export function stateEventType(state: ApplicationState): EventType {
  return `application.${state.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)}` as EventType;
}

/** An event as the workflow gives it: its id is made from the application's key and its sequence number. */
export interface NewEvent extends Omit<LifecycleEventRecord, 'id' | 'at'> {
  /** The application's workflow id and first run id: unique per application, stable across continue-as-new. */
  application: string;
  /** Workflow time, ms since the epoch. */
  at: number;
}

/** An event before it is numbered and addressed: what a step of the lifecycle makes. */
export interface EventDraft {
  type: EventType;
  from: ApplicationState;
  to: ApplicationState;
  data: EventData;
}
