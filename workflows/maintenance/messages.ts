/**
 * Messages of the `accountMaintenance` workflow: one update function for one account, followed to
 * the service's decision. Definitions only, so the client can import them without workflow code.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { DocumentRef } from '../../domain/documents.js';
import type { FirmType } from './functions.js';
import type { EmptyRequest } from '../application/messages.js';
import type { Protocol } from '../../domain/protocols.js';

/** A file sent with the request, from the document store. */
export interface MaintenanceAttachment extends DocumentRef {
  /** Name inside the archive. */
  fileName: string;
}

export interface MaintenanceInput {
  csid: string;
  accountId: string;
  /** Type of the firm (from its configuration): decides which functions are available. */
  firmType: FirmType;
  /** A function of the spec's tables (`ChangeBaseCurrency`...). */
  functionName: string;
  /**
   * The protocol it is sent on, and its reads: `xml` (the default, and every request started before 2.0),
   * or `webapi`, where the body is the JSON of the document's member for the function (webapi/maintenance.ts).
   */
  protocol?: Protocol;
  /** The function element's content (an XML fragment), or the member's JSON, in the document store: never in history. */
  body?: DocumentRef;
  /** Attributes of the function element besides `ib_acct`. */
  attributes?: Record<string, string>;
  attachments?: MaintenanceAttachment[];
  /** The caller's key of this request (part of the workflow id). */
  requestKey: string;
  /** Wait before the first status read (default 1 minute); each next wait doubles. */
  firstPollInterval?: string;
  /** Longest wait between two status reads (default 30 minutes). */
  maxPollInterval?: string;
  /**
   * How long the request may stay unlisted or PENDING before the workflow stops in UNCONFIRMED and
   * waits for staff (`retry`); default 2 days.
   */
  confirmTimeout?: string;
  /**
   * How long a send whose outcome is unknown (its answer lost) is looked for in getAmRequestStatus, never
   * sent again, before the request ends UNCONFIRMED; default 1 hour.
   */
  lostAnswerWindow?: string;
}

export type MaintenanceStatus = 'SENDING' | 'PENDING' | 'UNCONFIRMED' | 'PROCESSED' | 'REJECTED';

export interface MaintenanceResult {
  csid: string;
  accountId: string;
  functionName: string;
  /** UNCONFIRMED: a retried send found more than one new request of the account and could not tell ours. */
  status: 'PROCESSED' | 'REJECTED' | 'UNCONFIRMED';
  /** Name of the update's response file. */
  responseFile?: string;
  /** The reason, when REJECTED. */
  error?: string;
  /** Workflow times, ms since the epoch. */
  sentAt: number;
  decidedAt: number;
  /** Status reads made. */
  polls: number;
}

export interface MaintenanceView {
  csid: string;
  accountId: string;
  functionName: string;
  status: MaintenanceStatus;
  responseFile?: string;
  error?: string;
  polls: number;
  nextPollAt?: number;
}

export const maintenanceStateQuery = defineQuery<MaintenanceView>('maintenanceState');
/** Staff look again at a request whose outcome could not be established (status UNCONFIRMED). */
export const maintenanceRetryUpdate = defineUpdate<MaintenanceView, [EmptyRequest]>('retry');
