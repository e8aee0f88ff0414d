/** getResponseFile and getAmRequestStatus: reading back what create and update produced. */
import { z } from 'zod';
import { timestamp } from '../formats.js';
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
import { sealFor } from './envelope.js';

const responseFileInput = z.object({ CSID: csidField, externalId: z.string().min(1) });
const amRequestStatusInput = z.object({
  CSID: csidField,
  accountIds: accountIdsField.optional(),
  request_id: z.string().optional(),
});

export const getResponseFile: Operation = async (ctx, request) => {
  const input = parseBody(responseFileInput, request.body);
  const firm = firmOf(ctx, input.CSID);
  const file = ctx.store.responseFile(firm.csid, input.externalId);
  if (!file) {
    const owner = ctx.store.externalIdOwner.get(input.externalId);
    const error =
      owner !== undefined && owner !== firm.csid
        ? `You are not authorized to view the response file for external id ${input.externalId}`
        : `No response file found for external id ${input.externalId}`;
    return ok({ result: [{ name: '', isError: true, error }], timestamp: nowText(ctx) });
  }
  const account = ctx.store.account(file.accountId);
  return ok({
    result: [
      {
        // The spec allows string booleans anywhere; this operation sends them, so clients meet both.
        isProcessed: 'true',
        timestamp: timestamp(file.createdAt),
        name: file.name,
        isError: 'false',
        'Clearing Status': account?.status ?? 'A',
        fileData: { name: file.name, data: await sealFor(ctx, firm, file.xml) },
      },
    ],
    timestamp: nowText(ctx),
  });
};

function requestStatus(record: UpdateRequestRecord, now: number): 'PENDING' | 'PROCESSED' | 'REJECTED' {
  return now < record.decidedAt ? 'PENDING' : record.outcome;
}

/**
 * One entry per request: the request status fields of the spec (`request_id`, `acctId`, `Status`,
 * `timestamp`, `isError` / `Error`) beside the group keyed by the request type, which holds `data`
 * (`RequestDetail`, `status`) and `files`. A REJECTED request carries its reason as the error text.
 */
function requestEntry(ctx: OperationContext, record: UpdateRequestRecord): Record<string, unknown> {
  const status = requestStatus(record, ctx.store.now());
  const entry: Record<string, unknown> = {
    request_id: record.requestId,
    acctId: record.accountId ?? '',
    Status: status,
    timestamp: timestamp(record.submittedAt),
    isError: status === 'REJECTED',
  };
  if (status === 'REJECTED') entry.Error = record.error ?? 'Request rejected';
  entry[record.functionName] = {
    data: [{ RequestDetail: record.functionName, status }],
    files: [record.fileName],
  };
  return entry;
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
      result.push(requestEntry(ctx, record));
    }
  } else if (input.accountIds !== undefined && input.accountIds.length > 0) {
    for (const accountId of input.accountIds) {
      if (!ctx.store.ownAccount(firm.csid, accountId)) {
        result.push({ acctId: accountId, isError: true, Error: notAssociated(accountId, firm) });
        continue;
      }
      for (const id of ctx.store.requestsByAccount.get(accountId) ?? []) {
        const record = ctx.store.requests.get(id);
        if (record && record.csid === firm.csid) result.push(requestEntry(ctx, record));
      }
    }
  } else {
    for (const record of ctx.store.requests.values()) {
      if (record.csid === firm.csid) result.push(requestEntry(ctx, record));
    }
  }
  return ok({ result, timestamp: nowText(ctx) });
};
