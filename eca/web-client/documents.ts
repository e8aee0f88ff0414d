/** submitDocuments: the PDFs and their request XML packed and sealed, the opened report read back. */
import { buildArchive, checkFileName, sha1Hex } from '../archive.js';
import type { ArchiveAttachment } from '../archive.js';
import { EcaRequestError } from '../errors.js';
import { responseSchemas, validateResponse } from '../schemas/index.js';
import { buildSubmitDocumentsXml, parseDocumentsReport } from '../xml.js';
import type { ClientContext } from './context.js';
import { withPath } from './envelope.js';
import type { EcaClient, SubmitDocumentsResponse } from './types.js';

export function documentOperations(ctx: ClientContext): Pick<EcaClient, 'submitDocuments'> {
  const { transport, envelope, namespace } = ctx;
  return {
    async submitDocuments(request) {
      if (!Array.isArray(request.documents) || request.documents.length === 0) {
        throw new EcaRequestError('documents', 'at least one document is required');
      }
      const attachments: ArchiveAttachment[] = [];
      const documents = request.documents.map((document, index) => {
        if (!Array.isArray(document.files) || document.files.length === 0) {
          throw new EcaRequestError(`documents[${index}].files`, 'each document needs at least one PDF');
        }
        return {
          formNumber: document.formNumber,
          execTs: document.execTs,
          execLoginTs: document.execLoginTs,
          files: document.files.map((file, fileIndex) => {
            const parameter = `documents[${index}].files[${fileIndex}]`;
            checkFileName(file.fileName, `${parameter}.fileName`);
            if (!(file.data instanceof Uint8Array)) throw new EcaRequestError(`${parameter}.data`, 'expected bytes');
            attachments.push(file);
            return { fileName: file.fileName, sha1: sha1Hex(file.data), length: file.data.byteLength };
          }),
        };
      });
      const sent = documents.flatMap((document) =>
        document.files.map((file) => ({ formNumber: document.formNumber, ...file })),
      );
      const xml = buildSubmitDocumentsXml({ namespace, documents });
      const { zip } = await buildArchive({
        xml: { fileName: request.xmlFileName ?? 'documents.xml', content: xml },
        attachments,
      });
      const raw = await transport.postJson('submitDocuments', await ctx.sealedBody(request.CSID, zip), 'once');
      const parsed = validateResponse(responseSchemas.submitDocuments, raw);
      const result: SubmitDocumentsResponse = { isProcessed: parsed.isProcessed, sent, raw };
      if (parsed.timestamp) result.timestamp = parsed.timestamp;
      const reportXml = parsed.isProcessed
        ? await envelope.openFileData('submitDocuments', parsed.fileData?.data)
        : undefined;
      if (reportXml !== undefined) {
        const report = withPath('fileData.data', () => parseDocumentsReport(reportXml, sent));
        result.fileData = { report, xml: reportXml };
        if (parsed.fileData?.name) result.fileData.name = parsed.fileData.name;
      }
      return result;
    },
  };
}
