/**
 * The brokerage as the engine asks of it, whichever protocol a firm is on: one interface, one adapter per
 * protocol (brokerage/xml/ for the XML service, brokerage/webapi/ for the Web API), and one place that
 * picks a firm's (runtime/firm-brokerages.ts `brokerageFor`). A caller never asks which protocol it holds.
 * Its failures are its protocol's `BrokerageError`s (domain/brokerage-errors.ts), classified by their kind.
 * What a method reads is given in the engine's terms (domain/account.ts), never in a protocol's.
 */
import type { EcaClient } from '../eca/index.js';
import type { AccountSnapshot } from '../domain/account.js';
import type { ReportedForm } from '../domain/documents.js';
import type { Protocol } from '../domain/protocols.js';

/** An SSO link's request and answer: checked before anything is sent and after (eca/sso.ts), on either protocol. */
export type SsoCreate = EcaClient['ssoCreate'];

/** Passes a brokerage call through, counting it. */
export type Counted = <T>(call: Promise<T>) => Promise<T>;

/** One slot of the status sweep's reads of the firm's accounts (activities/sweep.ts). */
export interface SlotReads {
  /** The accounts the slot's first reads listed as in progress. */
  pending: ReadonlySet<string>;
  /** The snapshots of these accounts: the listed ones, the others read by id; unknown ones missing or errors. */
  snapshotsOf(accountIds: string[]): Promise<ReadonlyMap<string, AccountSnapshot | Error>>;
}

/** A PDF of the day's submission, with its bytes. */
export interface DailyFile {
  formNumber: string;
  fileName: string;
  data: Uint8Array;
}

/** The brokerage's answer to the day's submission: processed, with what its report says of each form, or not. */
export type DailySubmission =
  { processed: true; reportFile?: string; documents: ReportedForm[] } | { processed: false; error: string };

export interface Brokerage {
  /** The protocol of the adapter: for logs and metrics, never for a caller to branch on. */
  readonly protocol: Protocol;
  /**
   * Whether the brokerage lists `accountId` among the firm's accounts. Throws when it cannot be asked now
   * (a `put-off` error with its wait, a transport failure): never "no" for a question not answered.
   */
  ownsAccount(accountId: string): Promise<boolean>;
  /** A single sign-on link for an account holder. */
  ssoCreate: SsoCreate;
  /**
   * One slot of the status sweep: the firm's accounts in progress read in bulk, each call through `counted`;
   * the others by id, at most `maxAccountsPerCall` a call where the protocol reads many ids in one.
   */
  sweepReads(options: { counted: Counted; maxAccountsPerCall: number }): Promise<SlotReads>;
  /**
   * The day's agreements and disclosures, signed at `signedAt`: one write, which the caller sends only when no
   * earlier attempt may have been processed (activities/write-attempt.ts). A refusal is an answer, not a failure.
   */
  submitDailyDocuments(files: DailyFile[], signedAt: Date): Promise<DailySubmission>;
}
