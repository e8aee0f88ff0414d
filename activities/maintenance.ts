/** The account maintenance activity: one update function, wrapped and sent through eca/. */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { buildUpdateRequestXml, EcaCryptoError, EcaHttpError, EcaRequestError } from '../eca/index.js';
import type { EcaClient, UpdateResponse } from '../eca/index.js';
import { readUpdateResponse } from './application.js';
import type { UpdateOutcome } from './application-contract.js';
import type { DocumentStore } from './document-store.js';
import type { MaintenanceActivities } from './maintenance-contract.js';

export interface MaintenanceActivityOptions {
  eca: EcaClient;
  store: DocumentStore;
}

/** Clock differences between the worker and the service tolerated when a retry looks for its request. */
const LOOKBACK_SLACK_MS = 60_000;

export function createMaintenanceActivities(options: MaintenanceActivityOptions): MaintenanceActivities {
  const { eca, store } = options;

  /** The request of this function an earlier attempt made, when the service lists one. */
  async function earlierRequest(csid: string, accountId: string, functionName: string, since: number) {
    const listed = await eca.getAmRequestStatus({ CSID: csid, accountIds: [accountId] });
    const candidates = listed.requests
      .filter((entry) => entry.requestId !== undefined)
      .filter((entry) => entry.requests.some((group) => group.type === functionName))
      .filter((entry) => (entry.timestamp?.date?.getTime() ?? 0) >= since - LOOKBACK_SLACK_MS)
      .sort((a, b) => (b.timestamp?.date?.getTime() ?? 0) - (a.timestamp?.date?.getTime() ?? 0));
    const found = candidates[0];
    if (!found?.requestId) return undefined;
    const responseFile = found.requests.find((group) => group.type === functionName)?.files[0];
    return { requestId: found.requestId, responseFile };
  }

  return {
    async sendUpdateFunction({ csid, accountId, functionName, body, attributes, attachments }) {
      const info = Context.current().info;
      if (info.attempt > 1) {
        const earlier = await earlierRequest(csid, accountId, functionName, info.scheduledTimestampMs);
        if (earlier) {
          return {
            accepted: true,
            requestIds: [earlier.requestId],
            ...(earlier.responseFile !== undefined && { responseFile: earlier.responseFile }),
            recovered: true,
          };
        }
      }
      let response: UpdateResponse;
      try {
        const bodyXml = body ? new TextDecoder().decode(await store.get(body)) : undefined;
        const xml = buildUpdateRequestXml({ accountId, functionName, bodyXml, attributes });
        const files = await Promise.all(
          attachments.map(async (attachment) => ({ fileName: attachment.fileName, data: await store.get(attachment) })),
        );
        response = await eca.update({ CSID: csid, xml, attachments: files });
      } catch (error) {
        if (error instanceof EcaRequestError || error instanceof EcaCryptoError) {
          throw ApplicationFailure.create({ type: error.name, message: error.message, nonRetryable: true });
        }
        if (error instanceof EcaHttpError && error.status >= 400 && error.status < 500) {
          return { accepted: false, error: `update refused: HTTP ${error.status}` };
        }
        throw error;
      }
      if (!response.fileData) {
        const error = (response.raw as { error?: unknown } | null)?.error;
        return { accepted: false, error: typeof error === 'string' ? error : 'update was not processed' };
      }
      const { requestIds, rejected } = readUpdateResponse(response);
      const outcome: UpdateOutcome =
        rejected.length > 0
          ? { accepted: false, error: rejected.join('; ') }
          : { accepted: true, requestIds, ...(response.fileData.name && { responseFile: response.fileData.name }) };
      return outcome;
    },
  };
}
