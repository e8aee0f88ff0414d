/** The account maintenance activity: one update function, wrapped and sent through eca/. */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { buildUpdateRequestXml, EcaCryptoError, EcaHttpError, EcaRequestError } from '../eca/index.js';
import type { EcaClient, UpdateResponse } from '../eca/index.js';
import { earlierRequest, readUpdateResponse } from './application.js';
import type { UpdateOutcome } from './application-contract.js';
import type { DocumentStore } from './document-store.js';
import { withinDeadline } from './deadline.js';
import type { MaintenanceActivities, UpdateFunctionRequest } from './maintenance-contract.js';

export interface MaintenanceActivityOptions {
  eca: EcaClient;
  store: DocumentStore;
}

export function createMaintenanceActivities(options: MaintenanceActivityOptions): MaintenanceActivities {
  const { eca, store } = options;

  /** Every file name getAmRequestStatus lists for the account (an error entry throws: it would hide requests). */
  async function requestFiles(csid: string, accountId: string): Promise<string[]> {
    const listed = await eca.getAmRequestStatus({ CSID: csid, accountIds: [accountId] });
    const failing = listed.requests.find((entry) => entry.isError);
    if (failing) throw new Error(`getAmRequestStatus for account ${accountId}: ${failing.error ?? 'error entry'}`);
    return listed.requests.flatMap((entry) => entry.requests.flatMap((group) => group.files));
  }

  return {
    sendUpdateFunction(input) {
      return withinDeadline(() => send(input));
    },
  };

  async function send({
    csid,
    accountId,
    functionName,
    body,
    attributes,
    attachments,
    known,
  }: UpdateFunctionRequest): Promise<UpdateOutcome> {
    if (Context.current().info.attempt > 1 && known !== undefined) {
      const earlier = await earlierRequest(() => requestFiles(csid, accountId), known);
      if (earlier) return earlier;
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
    if (!response.fileData?.name) {
      const error = (response.raw as { error?: unknown } | null)?.error;
      return {
        accepted: false,
        error: typeof error === 'string' ? error : 'update was not processed (no response file)',
      };
    }
    const { requestIds } = readUpdateResponse(response);
    return { accepted: true, requestIds, responseFile: response.fileData.name };
  }
}
