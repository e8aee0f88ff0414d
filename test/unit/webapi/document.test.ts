/**
 * The engine's Web API shapes (webapi/schemas.ts, webapi/application.ts, webapi/oauth.ts) and the operations
 * its client calls, against the brokerage's OpenAPI document ("IB REST API" 2.29.0; the part the checks walk is
 * kept in test/fixtures/webapi/ib-rest-api.subset.json by `npm run webapi:document -- <document.json>`).
 * Every field the engine reads or writes is one of the document's, of its type; every operation is in its
 * paths, with its security policy. What parts from the document is listed below, each with why: a new
 * difference (a new copy of the document, or a shape changed) fails until it is looked at.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { differences, SUBSET_FILE } from '../../../scripts/webapi-document.js';
import type { WebApiDocument } from '../../../scripts/webapi-document.js';

const document = JSON.parse(readFileSync(SUBSET_FILE, 'utf8')) as WebApiDocument;

/** The engine's readings where the document is silent or loose. */
const KNOWN = [
  // The document carries a failure in the body on some answers (PendingTasksResponse, ResponseFileResponse)
  // and not on these; the engine reads one wherever it may come, and the simulator sends it so.
  'missing AccountStatusBulkResponse.accounts[].errorDescription',
  'missing AccountStatusBulkResponse.accounts[].hasError',
  'missing AccountStatusResponse.errorDescription',
  'missing AccountStatusResponse.hasError',
  'missing StatusResponse.errorDescription',
  'missing StatusResponse.hasError',
  // A trust's holders are its trustees (`TrusteeIndividual`, which has no titles): the titles the firm's
  // application gives are carried, as everything the mapping does not name is (activities/application-json.ts).
  'missing ApplicationPayload.application.customer.trust.trustees.individuals[].titles',
  // The document marks no field of its answers required, and the engine reads them so, but for a browser
  // session's URL: a session without one opens nothing (a schema error, never a guess).
  'required BrowserSessionResponse.url',
  'required TokenResponse.access_token',
  'required TokenResponse.expires_in',
  'required TokenResponse.token_type',
];

describe('the Web API shapes against the brokerage’s OpenAPI document', function () {
  it('is the document the engine was written to', function () {
    assert.deepEqual(document.info, { title: 'IB REST API', version: '2.29.0' });
  });

  it('reads and writes only the document’s fields, of its types, on its operations: the differences are the known readings', function () {
    assert.deepEqual(differences(document).findings, [...KNOWN].sort());
  });

  it('finds a field of another type, a field the document lacks, an operation and enumeration types it does not have', function () {
    const changed = structuredClone(document);
    changed.components.schemas.StatusResponse!.properties!.requestId = { type: 'string' };
    delete changed.components.schemas.RequestDetail!.properties!.status;
    delete changed.paths['/gw/api/v1/accounts/documents'];
    changed.paths['/gw/api/v1/accounts']!.patch = { 'x-ib-gateway-security-policy': 'HTTPS' };
    changed.components.schemas.EnumerationType!.enum = ['acats'];
    const found = differences(changed).findings.filter((finding) => !KNOWN.includes(finding));
    assert.equal(found.filter((finding) => finding.startsWith('enumeration type')).length, 14);
    assert.deepEqual(
      found.filter((finding) => !finding.startsWith('enumeration type')),
      [
        'missing RequestDetailsResponse.requestDetails[].status',
        "operation PATCH /gw/api/v1/accounts: the document's policy HTTPS",
        'operation POST /gw/api/v1/accounts/documents: not in the document',
        "type StatusResponse.requestId: the engine's number, the document's string",
      ],
    );
  });
});
