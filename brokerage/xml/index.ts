/** The brokerage port (brokerage/port.ts) on the XML service: its client, for one firm. */
import type { EcaClient } from '../../eca/index.js';
import type { Brokerage } from '../port.js';
import { xmlSlotReads } from './sweep-reads.js';
import { submitDailyDocuments } from './documents.js';

export function xmlBrokerage(eca: EcaClient, csid: string): Brokerage {
  return {
    protocol: 'xml',
    /**
     * The account's status asked with the firm's CSID: the spec answers an account that is not the firm's with a
     * per-account error entry (or none).
     */
    async ownsAccount(accountId) {
      const answer = await eca.getAccountStatus({ CSID: csid, accountIds: [accountId] });
      const entry = answer.accounts.find((account) => account.accountId === accountId);
      return entry !== undefined && !entry.isError;
    },
    ssoCreate: (request) => eca.ssoCreate(request),
    sweepReads: ({ counted, maxAccountsPerCall }) => xmlSlotReads(eca, csid, maxAccountsPerCall, counted),
    submitDailyDocuments: (files, signedAt) => submitDailyDocuments(eca, csid, files, signedAt),
  };
}

/** Every firm's port through one XML client that calls for the CSID each request names: where no resolver is given. */
export function xmlBrokerages(eca: EcaClient): (csid: string) => Promise<Brokerage> {
  return (csid) => Promise.resolve(xmlBrokerage(eca, csid));
}
