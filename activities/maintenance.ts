/** The account maintenance activity: one update function, wrapped and sent through eca/. */
import { Context } from '@temporalio/activity';
import { buildUpdateRequestXml } from '../eca/index.js';
import type { EcaClient } from '../eca/index.js';
import { accountRequestFiles, earlierRequest, updateCall } from './application.js';
import type { UpdateOutcome } from '../workflows/application/activities.js';
import type { DocumentStore } from '../runtime/document-store.js';
import { withinDeadline } from './deadline.js';
import type { MaintenanceActivities, UpdateFunctionRequest } from '../workflows/maintenance/activities.js';

export interface MaintenanceActivityOptions {
  eca: EcaClient;
  store: DocumentStore;
}

export function createMaintenanceActivities(options: MaintenanceActivityOptions): MaintenanceActivities {
  const { eca, store } = options;

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
      const earlier = await earlierRequest(() => accountRequestFiles(eca, csid, accountId), known);
      if (earlier) return earlier;
    }
    return updateCall(eca, async () => {
      const bodyXml = body ? new TextDecoder().decode(await store.get(body)) : undefined;
      const xml = buildUpdateRequestXml({ accountId, functionName, bodyXml, attributes });
      const files = await Promise.all(
        attachments.map(async (attachment) => ({ fileName: attachment.fileName, data: await store.get(attachment) })),
      );
      return { CSID: csid, xml, attachments: files };
    });
  }
}
