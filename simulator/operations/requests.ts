/** getResponseFile and getAmRequestStatus: reading back what create and update produced. */
import { z } from 'zod';
import { importedRequestFileName, serviceTimeZones, timestamp } from '../formats/wire-text.js';
import type { UpdateRequestRecord } from '../model.js';
import {
  accountIdsField,
  csidField,
  firmOf,
  notAssociated,
  nowText,
  ok,
  parseBody,
  type Operation,
  type OperationContext,
} from './context.js';
import { refuseLongAccountList } from './account-list-limit.js';

const responseFileInput = z.object({ CSID: csidField, externalId: z.string().min(1) });
const amRequestStatusInput = z.object({
  CSID: csidField,
  accountIds: accountIdsField.optional(),
  request_id: z.string().optional(),
});

/**
 * One entry per response file of the external id, with the spec's fields only (`isProcessed`,
 * `timestamp`, `name`, `isError`, `error`, `Clearing Status`): no file content and no account id. A
 * file whose application made no account is the spec's failure entry (`name`, `isError` true, `error`).
 */
export const getResponseFile: Operation = (ctx, request) => {
  const input = parseBody(responseFileInput, request.body);
  const firm = firmOf(ctx, input.CSID);
  // A file not listed yet (listing lag) is answered as if the create had not been processed.
  const files = ctx.store
    .responseFilesOf(firm.csid, input.externalId)
    .filter((file) => ctx.store.listing.listed('getResponseFile', file.name));
  if (files.length === 0) {
    const owner = ctx.store.externalIdOwner.get(input.externalId);
    const error =
      owner !== undefined && owner !== firm.csid
        ? `You are not authorized to view the response file for external id ${input.externalId}`
        : `No response file found for external id ${input.externalId}`;
    return ok({ result: [{ name: '', isError: true, error }], timestamp: nowText(ctx) });
  }
  const result = files.map((file) => {
    if (file.accountId === undefined) {
      return { name: file.name, isError: true, error: file.error ?? 'The application was not processed' };
    }
    return {
      // The spec allows string booleans anywhere; this operation sends them, so clients meet both.
      isProcessed: 'true',
      timestamp: timestamp(file.createdAt, serviceTimeZones(ctx.store.unpromised).timestampOffsetMs),
      name: file.name,
      isError: 'false',
      'Clearing Status': ctx.store.account(file.accountId)?.status ?? 'A',
    };
  });
  return ok({ result, timestamp: nowText(ctx) });
};

function requestStatus(record: UpdateRequestRecord, now: number): 'PENDING' | 'PROCESSED' | 'REJECTED' {
  return now < record.decidedAt ? 'PENDING' : record.outcome;
}

/**
 * One entry per request, as the spec's getAmRequestStatus section shows it: an object keyed by the
 * request type, holding `data` (`RequestDetail`, `status`) and `files` (the update's response file
 * name). The request id, account and reason the spec's resource table also names are not sent: the
 * engine must not need them (the hardest reading). The request type and RequestDetail codes are not
 * shown by the spec; the simulator uses the function name and an `AM` code.
 */
function requestEntry(ctx: OperationContext, record: UpdateRequestRecord): Record<string, unknown> | undefined {
  // A request not listed yet (listing lag) is left out, as if it had not been received.
  if (!ctx.store.listing.listed('getAmRequestStatus', record.requestId)) return undefined;
  const status = requestStatus(record, ctx.store.now());
  return {
    [record.functionName]: {
      data: [{ RequestDetail: `AM${record.requestId}`, status }],
      // The update's response file, then the names of the files the firm sent in its archive: the spec
      // says only "files (list of file names)", and a firm that reuses a name (update.xml) repeats it.
      // Under `update-file-unlisted` the service's own name for the request file takes the response file's
      // place: unique to the request, in the spec's request file pattern, and never shown to the caller.
      files: [
        ctx.store.unpromised.has('update-file-unlisted') ? importedRequestFileName(record.fileName) : record.fileName,
        ...(record.archiveFiles ?? []),
      ],
    },
  };
}

export const getAmRequestStatus: Operation = (ctx, request) => {
  const input = parseBody(amRequestStatusInput, request.body);
  const firm = firmOf(ctx, input.CSID);
  const result: unknown[] = [];
  if (input.request_id !== undefined) {
    const record = ctx.store.requests.get(input.request_id);
    if (!record || record.csid !== firm.csid) {
      result.push({
        request_id: input.request_id,
        isError: true,
        Error: `Request ${input.request_id} was not found for this client service id`,
      });
    } else {
      const entry = requestEntry(ctx, record);
      result.push(
        entry ?? {
          request_id: input.request_id,
          isError: true,
          Error: `Request ${input.request_id} was not found for this client service id`,
        },
      );
    }
  } else if (input.accountIds !== undefined && input.accountIds.length > 0) {
    refuseLongAccountList(ctx, input.accountIds);
    for (const accountId of input.accountIds) {
      if (!ctx.store.ownAccount(firm.csid, accountId)) {
        result.push({ acctId: accountId, isError: true, Error: notAssociated(accountId, firm) });
        continue;
      }
      for (const id of ctx.store.requestsByAccount.get(accountId) ?? []) {
        const record = ctx.store.requests.get(id);
        const entry = record && record.csid === firm.csid ? requestEntry(ctx, record) : undefined;
        if (entry) result.push(entry);
      }
    }
  } else {
    for (const record of ctx.store.requests.values()) {
      const entry = record.csid === firm.csid ? requestEntry(ctx, record) : undefined;
      if (entry) result.push(entry);
    }
  }
  return ok({ result, timestamp: nowText(ctx) });
};
