/**
 * The application's validation and its create, idempotent by external id: before every attempt the
 * service is asked what it holds for the external id (getResponseFile), and a processed file means the
 * application is never created again, only its account looked up. A create is sent again only when the
 * earlier attempt proved it sent nothing (write-attempt.ts); otherwise the workflow keeps looking. The
 * account a create established is registered with the status sweep (sweep-snapshot.ts).
 */
import { randomBytes } from 'node:crypto';
import type { CreateAccountsResponse, CreateResponseApplication, EcaClient } from '../eca/index.js';
import type { DocumentRef, FormDocument } from '../domain/documents.js';
import type { ApplicationActivities, CreateOutcome } from '../workflows/application/activities.js';
import type { DocumentStore } from '../runtime/document-store.js';
import { applicationWorkflowId } from '../domain/workflow-ids.js';
import { EcaCryptoError } from '../eca/index.js';
import { callBrokerage, CreateNotProcessed } from './brokerage-errors.js';
import { referenceRefusal, validateApplicationXml, validateReference } from './reference-probe.js';
import { registerCreated } from './sweep-snapshot.js';
import type { SweepSnapshot } from '../runtime/sweep-snapshot.js';
import { applicationFileName, findCreatedAccount } from './find-account.js';
import { readAttachments, readText } from './stored.js';
import { WriteAttempt } from './write-attempt.js';

export interface CreationOptions {
  eca: EcaClient;
  store: DocumentStore;
  now: () => Date;
  /** The PDFs a create carries, given the caller's (ApplicationActivityOptions.createDocuments). */
  createDocuments?: (input: {
    csid: string;
    applicationXml: string;
    documents: FormDocument[];
    now: Date;
  }) => Promise<FormDocument[]>;
  /** The status sweep's snapshot, where a create registers the account it established (sweep-snapshot.ts). */
  snapshot?: SweepSnapshot;
}

type CreationActivities = Pick<ApplicationActivities, 'validateApplication' | 'createAccount'>;

export function createCreationActivities(options: CreationOptions): CreationActivities {
  const { eca, store, now } = options;
  return {
    async validateApplication({ csid, application }) {
      // The keys' fault or the application's, told apart by a reference application (reference-probe.ts).
      return validateApplicationXml(eca, csid, await readText(store, application));
    },

    async createAccount({ csid, externalId, application, documents, settledFiles, lookOnly }) {
      const outcome = await WriteAttempt.run<CreateOutcome>(
        async (attempt) => {
          // Before every attempt: a processed file for this external id means never create again.
          const settled = new Set(settledFiles ?? []);
          const earlier = await earlierCreate(options, csid, externalId, settled);
          if (earlier) return earlier;
          if (!attempt.maySend) {
            // An earlier create may have been processed and not be listed yet: the workflow looks again.
            return { created: false, unknown: { reason: 'getResponseFile lists no file for the external id yet' } };
          }

          const applicationXml = await readText(store, application);
          const attached = options.createDocuments
            ? await options.createDocuments({ csid, applicationXml, documents, now: now() })
            : documents;
          const attachments = await readAttachments(store, attached);
          const sent = await attempt.send(() =>
            callBrokerage(() =>
              // The XML's name in the archive is the engine's own, one per application (find-account.ts).
              eca.create({
                CSID: csid,
                applicationXml,
                attachments,
                xmlFileName: applicationFileName(csid, externalId),
              }),
            ),
          );
          if ('unknown' in sent) return { created: false, unknown: { reason: sent.unknown, sentAt: now().getTime() } };
          const response = sent.answer;
          if (!response.isProcessed) {
            // The spec's "not processed": the next attempt may send again.
            attempt.answeredNotProcessed();
            throw await notProcessed(eca, csid);
          }
          if (alreadyProcessed(response, externalId)) {
            // The service says an earlier create of this external id was processed: find its account.
            const found = await earlierCreate(options, csid, externalId, settled);
            return (
              found ?? {
                created: false,
                unknown: { reason: 'create answered Already processed; getResponseFile lists no file yet' },
              }
            );
          }
          return settleCreated(options, { csid, externalId, response, attached, settled });
        },
        {
          lookOnly,
          // Sent, or maybe sent by an earlier attempt, and not established: the workflow looks again.
          inDoubt: (reason) => ({ created: false, unknown: { reason } }),
        },
      );
      await registerCreated(options.snapshot, csid, outcome);
      return outcome;
    },
  };
}

/**
 * create's `isProcessed` false: the spec gives "the XML format is invalid, wrong keys were used for
 * encryption or signature, or the server is down", and the answer does not say which. Nothing was
 * processed, so the create may be sent again. The reference application tells the keys apart: refused
 * too, a configuration error (alerted, retried, blocked past the bound); accepted, `CreateNotProcessed`,
 * retried with backoff (an outage passes) and blocked past the bound with the spec's causes, so that staff
 * resubmit corrected XML or retry. Never a correction asked on a guess.
 */
async function notProcessed(eca: EcaClient, csid: string): Promise<Error> {
  const reference = await validateReference(eca, csid);
  if (!reference.accepted) {
    return new EcaCryptoError(
      'signature',
      `create was not processed (isProcessed false); ${referenceRefusal(reference)}: ` +
        "the firm's keys (or the service) are at fault",
    );
  }
  return new CreateNotProcessed(
    'create was not processed (isProcessed false) although validateXML accepted the application and accepts a reference ' +
      'application with the same keys; the spec names three causes: the XML format is invalid, wrong keys, or the ' +
      'service is down. Resubmit corrected XML, or retry once the service takes it',
  );
}

/** The create response file answers `Already processed` for this external id (a repeated External_ID). */
function alreadyProcessed(response: CreateAccountsResponse, externalId: string): boolean {
  return (
    response.response?.applications.some(
      (candidate) => candidate.externalId === externalId && candidate.status.status === 'Already processed',
    ) ?? false
  );
}

/**
 * What the service holds for this external id (getResponseFile), settled files aside: the account a
 * processed file made (matched through getAccountStatus + getFileDetails), the failure entries, or a
 * processed file whose account cannot be matched yet. Undefined when there is no file: create may run.
 */
async function earlierCreate(
  { eca, now }: CreationOptions,
  csid: string,
  externalId: string,
  settled: ReadonlySet<string>,
): Promise<CreateOutcome | undefined> {
  const lookup = await eca.getResponseFile({ CSID: csid, externalId });
  const files = lookup.files.filter((file) => file.name !== undefined && !settled.has(file.name));
  const processed = files.filter((file) => !file.isError);
  // The newest processed file decides: its account, or unconfirmed (never a create beside it).
  processed.sort((a, b) => (b.timestamp?.date?.getTime() ?? 0) - (a.timestamp?.date?.getTime() ?? 0));
  const file = processed[0];
  if (file) {
    const name = file.name ?? '';
    const found = await findCreatedAccount(eca, {
      csid,
      responseFile: name,
      requestFile: applicationFileName(csid, externalId),
      around: file.timestamp?.date ?? now(),
    });
    if (found.accountId !== undefined) {
      return { created: true, accountId: found.accountId, recovered: true, responseFile: name };
    }
    return { created: false, unconfirmed: { responseFile: name, reason: found.reason } };
  }
  const failed = files.filter((file) => file.isError);
  if (failed.length === 0) return undefined;
  return {
    created: false,
    errors: failed.map((file) => `response file ${file.name ?? ''}: ${file.error ?? 'not processed'}`),
    settledFiles: failed.map((file) => file.name ?? ''),
  };
}

interface Created {
  csid: string;
  externalId: string;
  response: CreateAccountsResponse;
  attached: FormDocument[];
  settled: ReadonlySet<string>;
}

/** The account a create call just made, matched on its file names (find-account.ts); the file's content is only a hint. */
async function settleCreated(options: CreationOptions, created: Created): Promise<CreateOutcome> {
  const { eca, now } = options;
  const { csid, externalId, response, attached, settled } = created;
  const name = response.name;
  if (name === undefined) {
    // Processed without a file name: nothing to match on, and the application must not be created again.
    const again = await earlierCreate(options, csid, externalId, settled);
    return (
      again ?? {
        created: false,
        unconfirmed: { responseFile: '', reason: 'create was processed but named no response file' },
      }
    );
  }
  const hinted = response.response?.applications.find((candidate) => candidate.externalId === externalId);
  const responseRef = await keepResponseFile(options.store, created, name, hinted);
  const found = await findCreatedAccount(eca, {
    csid,
    responseFile: name,
    requestFile: applicationFileName(csid, externalId),
    around: response.timestamp?.date ?? now(),
    hint: hinted?.accountId,
  });
  if (found.accountId === undefined) {
    // A failure entry for this file is the service saying no account was made.
    const lookup = await eca.getResponseFile({ CSID: csid, externalId });
    const failure = lookup.files.find((file) => file.name === name && file.isError);
    if (failure) {
      return {
        created: false,
        errors: [failure.error ?? hinted?.errors.join('; ') ?? 'the application was not processed'],
        settledFiles: [name],
      };
    }
    // The report's own word: this application in Error, no account named, is no account made either.
    const refused = refusedInReport(hinted);
    if (refused) return { created: false, errors: refused, settledFiles: [name] };
    return { created: false, unconfirmed: { responseFile: name, reason: found.reason } };
  }
  return {
    created: true,
    accountId: found.accountId,
    ...(hinted?.userName !== undefined && { userName: hinted.userName }),
    recovered: false,
    responseFile: name,
    responseRef,
    attachedFiles: attached.map((document) => document.fileName),
  };
}

/**
 * The errors of an application the create's report refused: its `Status` is `Error` (the status field, never
 * the text) and it names no account and no user, so the service made nothing for it. An external id another
 * firm already used at the brokerage is refused so: its files are that firm's, which getResponseFile shows to
 * no other firm, so no failure entry is ever listed here. The texts are the service's, for staff.
 */
function refusedInReport(hinted: CreateResponseApplication | undefined): string[] | undefined {
  if (!hinted?.status.known || hinted.status.status !== 'Error') return undefined;
  if (hinted.accountIds.length > 0 || hinted.users.length > 0) return undefined;
  return hinted.errors.length > 0 ? hinted.errors : ['the create report gives Status Error, with no error text'];
}

/**
 * The response file goes to the document store first (it may hold a temporary password), never to history:
 * the users read from it, or the file as sent when this library cannot read it. A random salt goes with
 * it, so that the reference's SHA-1 (in history, and in `eca status -o json`) cannot be matched against
 * guesses of a short password and the account's fields.
 */
function keepResponseFile(
  store: DocumentStore,
  { csid, externalId, response }: Created,
  responseFile: string,
  hinted: CreateResponseApplication | undefined,
): Promise<DocumentRef> {
  const salt = randomBytes(16).toString('base64url');
  const kept = hinted
    ? {
        salt,
        externalId,
        responseFile,
        users: hinted.users.map((user) => ({
          userName: user.userName,
          temporaryPassword: user.temporaryPassword?.reveal(),
        })),
      }
    : { salt, externalId, responseFile, responseXml: response.responseXml?.reveal() };
  return store.put(new TextEncoder().encode(JSON.stringify(kept)), { owner: applicationWorkflowId(csid, externalId) });
}
