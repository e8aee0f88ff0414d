/** update: a maintenance request XML (with attachments) packed and sealed, its response file opened. */
import { responseSchemas, validateResponse } from '../schemas/index.js';
import type { ClientContext } from './context.js';
import { packXml } from './envelope.js';
import type { EcaClient, UpdateResponse } from './types.js';

export function requestOperations(ctx: ClientContext): Pick<EcaClient, 'update'> {
  const { transport, envelope } = ctx;
  return {
    async update(request) {
      const zip = await packXml(request, request.xml, 'xml', 'update.xml', 'the update XML text is required');
      const raw = await transport.postJson('update', await ctx.sealedBody(request.CSID, zip), 'once');
      const parsed = validateResponse(responseSchemas.update, raw);
      const result: UpdateResponse = { raw };
      if (parsed.timestamp) result.timestamp = parsed.timestamp;
      // The request was filed under fileData.name: a file that cannot be opened must not hide that.
      let xml: string | undefined;
      try {
        xml = await envelope.openFileData('update', parsed.fileData?.data);
      } catch (error) {
        if (!parsed.fileData?.name) throw error;
        result.responseProblem = error instanceof Error ? error.message : String(error);
      }
      if (xml !== undefined || parsed.fileData?.name) {
        result.fileData = { xml: xml ?? '' };
        if (parsed.fileData?.name) result.fileData.name = parsed.fileData.name;
      }
      return result;
    },
  };
}
