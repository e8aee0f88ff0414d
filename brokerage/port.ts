/**
 * The brokerage as the engine asks of it, whichever protocol a firm is on: one interface, one adapter per
 * protocol (brokerage/xml.ts for the XML service, brokerage/webapi.ts for the Web API), and one place that
 * picks a firm's (runtime/firm-brokerages.ts `brokerageFor`). A caller never asks which protocol it holds.
 * Its failures are its protocol's `BrokerageError`s (domain/brokerage-errors.ts), classified by their kind.
 */
import type { EcaClient } from '../eca/index.js';
import type { Protocol } from '../domain/protocols.js';

/** An SSO link's request and answer: checked before anything is sent and after (eca/sso.ts), on either protocol. */
export type SsoCreate = EcaClient['ssoCreate'];

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
}
