/**
 * The account maintenance activity: one update function, wrapped and sent through eca/, or for a request on
 * the Web API sent as its member of the account management requests (webapi-maintenance.ts).
 */
import { buildUpdateRequestXml } from '../eca/index.js';
import type { EcaClient } from '../eca/index.js';
import type { DocumentStore } from '../runtime/document-store.js';
import type { MaintenanceActivities } from '../workflows/maintenance/activities.js';
import { WriteAttempt } from './write-attempt.js';
import { readText } from './stored.js';
import { createUpdateSender, updateInDoubt } from './update-sender.js';
import { createWebApiMaintenance } from './webapi-maintenance.js';
import type { WebApiMaintenanceOptions } from './webapi-maintenance.js';

export interface MaintenanceActivityOptions {
  eca: EcaClient;
  store: DocumentStore;
  /** The firms' Web API clients, for requests on the Web API; without them, such a request is not sent. */
  webApi?: Pick<WebApiMaintenanceOptions, 'clientFor'>;
  now?: () => Date;
}

export function createMaintenanceActivities(options: MaintenanceActivityOptions): MaintenanceActivities {
  const { store } = options;
  const updates = createUpdateSender(options.eca, store);
  const webApi = options.webApi && createWebApiMaintenance({ ...options.webApi, store, now: options.now });

  return {
    async sendUpdateFunction(input) {
      if (input.protocol === 'webapi') {
        if (!webApi) {
          // An attempt that only looks must not end the request: another worker may have sent it.
          const why = 'this worker serves no firm on the Web API';
          return input.lookOnly ? { accepted: false, unknown: why } : { accepted: false, error: `not sent: ${why}` };
        }
        return webApi(input);
      }
      const { csid, accountId, functionName, body, attributes, attachments, known, lookOnly } = input;
      return WriteAttempt.run(async (attempt) => {
        // An earlier attempt may have sent it (write-attempt.ts): the request it made, if listed now.
        if (!attempt.maySend) {
          const earlier = await updates.earlier(csid, accountId, known);
          if (earlier) return earlier;
        }
        if (!attempt.maySend)
          return { accepted: false, unknown: 'an earlier attempt may have sent it; no new request file listed' };
        // The body is read and wrapped before the call: a request eca/ refuses there fails at once.
        const xml = async () =>
          buildUpdateRequestXml({
            accountId,
            functionName,
            bodyXml: body ? await readText(store, body) : undefined,
            attributes,
          });
        return updates.send(csid, xml, attachments, attempt);
      }, updateInDoubt(lookOnly));
    },
  };
}
