/**
 * Update requests as the application's steps and maintenance send them: the answer read on spec
 * fields, a refusal as an outcome, and a request eca/ refuses while building it failing at once.
 */
import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/common';
import { createMaintenanceActivities } from '../../../activities/maintenance.js';
import { createUpdateSender } from '../../../activities/update-sender.js';
import { EcaHttpError, EcaRequestError } from '../../../eca/index.js';
import type { EcaClient, UpdateRequest, UpdateResponse } from '../../../eca/index.js';
import type { DocumentRef } from '../../../domain/documents.js';
import { inActivity } from '../../support/activity-context.js';
import type { DocumentStore } from '../../../runtime/document-store.js';

const pdf: DocumentRef & { fileName: string } = { sha1: 'a'.repeat(40), length: 3, ref: 'pdf', fileName: 'a.pdf' };

function store(): DocumentStore & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    put: () => Promise.reject(new Error('not used')),
    get: (ref) => {
      reads.push(ref.ref);
      return Promise.resolve(new TextEncoder().encode(ref.ref === 'body' ? '<Reason>moved</Reason>' : 'PDF'));
    },
    delete: () => Promise.resolve(),
    take: () => Promise.reject(new Error('not used')),
    releaseWhenClosed: () => Promise.reject(new Error('not used')),
  };
}

function eca(answer: () => Promise<UpdateResponse>, sent: UpdateRequest[] = []): EcaClient {
  return {
    update: (request: UpdateRequest) => {
      sent.push(request);
      return answer();
    },
  } as unknown as EcaClient;
}

describe('update sender', function () {
  it('reads the answer on spec fields: filed under its response file, not processed, or refused (any 4xx)', async function () {
    const sent: UpdateRequest[] = [];
    const documents = store();
    const filed = createUpdateSender(
      eca(
        () => Promise.resolve({ fileData: { name: 'u1.xml', xml: '<R><Request request_id="7"/></R>' }, raw: {} }),
        sent,
      ),
      documents,
    );
    assert.deepEqual(await filed.send('F1', '<Update/>', [pdf]), {
      accepted: true,
      responseFile: 'u1.xml',
    });
    assert.equal(sent[0]?.xml, '<Update/>');
    assert.deepEqual(sent[0]?.attachments, [{ fileName: 'a.pdf', data: new TextEncoder().encode('PDF') }]);

    // An answer without fileData says nothing the spec defines: an `error` text (not in the spec) is quoted, never
    // read as a refusal, and whether the request was filed is looked up (never sent again on its strength).
    const unprocessed = createUpdateSender(
      eca(() => Promise.resolve({ raw: { error: 'bad account' } })),
      documents,
    );
    assert.deepEqual(await unprocessed.send('F1', '<Update/>', []), {
      accepted: false,
      unknown:
        'update answered without fileData (its error text: «bad account»), so whether the request was filed is unknown',
    });
    // Words about encryption decide nothing either; a reference application validateXML refuses with the same
    // keys points staff at the keys.
    const encryptionWorded = createUpdateSender(
      {
        ...eca(() => Promise.resolve({ raw: { error: 'Encryption error: the payload cannot be decrypted' } })),
        validateXML: () => Promise.resolve({ isValid: false, errors: ['Request could not be processed'], raw: {} }),
      },
      documents,
    );
    const wrongKeys = await encryptionWorded.send('F1', '<Update/>', []);
    assert.ok(!wrongKeys.accepted && 'unknown' in wrongKeys, JSON.stringify(wrongKeys));
    assert.match(
      wrongKeys.unknown,
      /«Encryption error: the payload cannot be decrypted»\), so whether the request was filed is unknown; validateXML refuses a reference application sealed with the same keys \(«Request could not be processed»\): the firm's keys may be at fault$/,
    );
    const silent = createUpdateSender(
      eca(() => Promise.resolve({ raw: null })),
      documents,
    );
    assert.deepEqual(await silent.send('F1', '<Update/>', []), {
      accepted: false,
      unknown: 'update answered without fileData, so whether the request was filed is unknown',
    });
    const refused = createUpdateSender(
      eca(() => Promise.reject(new EcaHttpError('update', 429, ''))),
      documents,
    );
    assert.deepEqual(await refused.send('F1', '<Update/>', []), { accepted: false, error: 'update refused: HTTP 429' });
    const down = new EcaHttpError('update', 503, '');
    const unavailable = createUpdateSender(
      eca(() => Promise.reject(down)),
      documents,
    );
    await assert.rejects(unavailable.send('F1', '<Update/>', []), (error: unknown) => error === down);
  });

  it('maintenance reads the body, then the attachments, and a function name eca/ refuses fails at once', async function () {
    const sent: UpdateRequest[] = [];
    const documents = store();
    const answer = () => Promise.resolve({ fileData: { name: 'm1.xml', xml: '' }, raw: {} });
    const maintenance = inActivity(createMaintenanceActivities({ eca: eca(answer, sent), store: documents }));
    const input = {
      csid: 'F1',
      accountId: 'U1234567',
      functionName: 'ChangeAddress',
      body: { sha1: 'b'.repeat(40), length: 22, ref: 'body' },
      attachments: [pdf],
      known: [],
    };
    assert.deepEqual(await maintenance.sendUpdateFunction(input), {
      accepted: true,
      responseFile: 'm1.xml',
    });
    assert.deepEqual(documents.reads, ['body', 'pdf']);
    assert.match(sent[0]?.xml ?? '', /<ChangeAddress ib_acct="U1234567"><Reason>moved<\/Reason><\/ChangeAddress>/);
    await assert.rejects(
      maintenance.sendUpdateFunction({ ...input, functionName: 'not a name' }),
      (error: unknown) =>
        error instanceof ApplicationFailure && error.type === EcaRequestError.name && error.nonRetryable,
    );
    assert.equal(sent.length, 1, 'a refused request is never sent');
  });
});
