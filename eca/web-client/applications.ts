/** validateXML and create: the application XML with its forms packed and sealed, the create response file opened. */
import { responseSchemas, validateResponse } from '../schemas/index.js';
import { SecretString } from '../secret.js';
import { parseCreateResponseXml } from '../xml.js';
import type { ClientContext } from './context.js';
import { packXml, withPath } from './envelope.js';
import type { ApplicationFileRequest, CreateAccountsResponse, EcaClient, ValidateXmlResponse } from './types.js';

function problemText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function applicationOperations(ctx: ClientContext): Pick<EcaClient, 'validateXML' | 'create'> {
  const { transport, envelope } = ctx;
  /** Both operations send the same sealed archive: the application XML with its forms. */
  async function sendApplication(operation: 'validateXML' | 'create', request: ApplicationFileRequest) {
    const xml = request.applicationXml;
    const zip = await packXml(request, xml, 'applicationXml', 'application.xml', 'the XML text is required');
    return transport.postJson(operation, await ctx.sealedBody(request.CSID, zip), 'once');
  }
  return {
    async validateXML(request) {
      const raw = await sendApplication('validateXML', request);
      const parsed = validateResponse(responseSchemas.validateXML, raw);
      const errors = (parsed.errors ?? [])
        .map((entry) => (typeof entry === 'string' ? entry : (entry.error ?? entry.Error ?? '')))
        .filter((text) => text !== '');
      const result: ValidateXmlResponse = { isValid: parsed.isValid, errors, raw };
      if (parsed.batchId !== undefined) result.batchId = parsed.batchId;
      if (parsed.timestamp) result.timestamp = parsed.timestamp;
      return result;
    },

    async create(request) {
      const raw = await sendApplication('create', request);
      const parsed = validateResponse(responseSchemas.create, raw);
      const result: CreateAccountsResponse = { isProcessed: parsed.isProcessed, raw };
      if (parsed.timestamp) result.timestamp = parsed.timestamp;
      if (parsed.batchId !== undefined) result.batchId = parsed.batchId;
      const name = parsed.name ?? parsed.fileData?.name;
      if (name !== undefined) result.name = name;
      // The call was processed: a response file that cannot be opened must not hide that (its name is what counts).
      let responseXml: string | undefined;
      try {
        responseXml = parsed.isProcessed ? await envelope.openFileData('create', parsed.fileData?.data) : undefined;
      } catch (error) {
        result.responseProblem = problemText(error);
      }
      if (responseXml !== undefined) {
        result.responseXml = new SecretString(responseXml);
        try {
          result.response = withPath('fileData.data', () => parseCreateResponseXml(responseXml));
        } catch (error) {
          result.responseProblem = problemText(error);
        }
      }
      return result;
    },
  };
}
