/**
 * `POST /gw/api/v1/accounts/documents`: the day's agreements and disclosures, decided as submitDocuments
 * decides them (operations/documents.ts): each PDF checked against the length and SHA-1 it declares, then
 * against the brokerage's archived original of its form; the day's accepted forms recorded for the firm, so
 * the day's creates may leave them out. The body is the document's `ProcessDocumentsPayload`, signed.
 *
 * Where the document is silent, the hardest reading (simulator/README.md, "Web API"): the answer is a
 * `StatusResponse` whose `fileData.data` holds only a status word, never which forms were accepted; a refusal
 * (a non-disclosed firm, a PDF that is not what it declares) is `hasError` in a 200 answer.
 */
import type { FastifyInstance } from 'fastify';
import { ProcessDocuments } from '../../webapi/index.js';
import { decideSubmission } from '../operations/documents.js';
import type { Store } from '../store.js';
import { answer } from './answer.js';
import type { WebApiAuthority } from './authority.js';
import { carriedFiles, firmOf, parsed, parsedDocuments } from './writes.js';

export function registerAgreements(app: FastifyInstance, authority: WebApiAuthority, store: Store): void {
  app.post('/gw/api/v1/accounts/documents', (request, reply) =>
    answer(reply, () => {
      const client = authority.authenticate(request.headers.authorization, 'accounts.write');
      const claims = authority.signedBody(request.body, client);
      const { documents } = parsed(ProcessDocuments, claims.processDocuments, 'processDocuments');
      const firm = firmOf(store, client);
      const now = store.now();
      const requestId = Number(store.nextRequestId());
      const dateSubmitted = new Date(now).toISOString();
      const refused = (errorDescription: string) => ({ requestId, dateSubmitted, hasError: true, errorDescription });
      // submitDocuments rule 4: "Applies to fully disclosed clients (individual, joint, retirement) and advisor clients".
      if (firm.firmType === 'non-disclosed') return refused('Agreements apply to fully disclosed and advisor clients');
      const { files, problems } = carriedFiles(documents);
      if (problems.length > 0) return refused(problems[0]!);
      const { report, name } = decideSubmission(store, firm, parsedDocuments(documents), files, now);
      const mismatch = report.find((document) => document.status !== 'Accepted');
      return {
        requestId,
        dateSubmitted,
        fileData: { name, data: { status: mismatch ? 'Processed with errors' : 'Processed' } },
      };
    }),
  );
}
