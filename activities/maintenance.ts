/** The account maintenance activity: one update function, wrapped and sent through eca/. */
import { buildUpdateRequestXml } from '../eca/index.js';
import type { EcaClient } from '../eca/index.js';
import type { DocumentStore } from '../runtime/document-store.js';
import type { MaintenanceActivities } from '../workflows/maintenance/activities.js';
import { currentAttempt, withinDeadline } from './deadline.js';
import { readText } from './stored.js';
import { createUpdateSender } from './update-sender.js';

export interface MaintenanceActivityOptions {
  eca: EcaClient;
  store: DocumentStore;
}

export function createMaintenanceActivities(options: MaintenanceActivityOptions): MaintenanceActivities {
  const { store } = options;
  const updates = createUpdateSender(options.eca, store);

  return {
    sendUpdateFunction({ csid, accountId, functionName, body, attributes, attachments, known }) {
      return withinDeadline(async () => {
        // Histories recorded before `known` have nothing to compare with: such a retry sends again.
        if (currentAttempt() > 1 && known !== undefined) {
          const earlier = await updates.earlier(csid, accountId, known);
          if (earlier) return earlier;
        }
        // The body is read and wrapped inside the call: a request eca/ refuses there fails at once.
        const xml = async () =>
          buildUpdateRequestXml({
            accountId,
            functionName,
            bodyXml: body ? await readText(store, body) : undefined,
            attributes,
          });
        return updates.send(csid, xml, attachments);
      });
    },
  };
}
