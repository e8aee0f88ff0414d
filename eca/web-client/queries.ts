/** The read-only account queries: tasks, statuses, requests, response files, batch and file details. */
import { EcaRequestError } from '../errors.js';
import { ACCOUNT_STATUS_CODES } from '../types.js';
import type { ClientContext } from './context.js';
import { checkNumericString, normaliseAccountIds, selectionBody, withTimestamp } from './rules.js';
import type { AccountsRequest, EcaClient } from './types.js';

type TaskQueries = Pick<
  EcaClient,
  'getPendingTasks' | 'getRegistrationTasks' | 'getAccountStatus' | 'getAmRequestStatus'
>;

export function taskQueries(ctx: ClientContext): TaskQueries {
  const { transport } = ctx;
  const csid = ctx.options.csid;
  return {
    async getPendingTasks(request = {}) {
      const body = selectionBody(request, csid);
      if (request.formNumber !== undefined) body.formNumber = checkNumericString(request.formNumber, 'formNumber');
      const { parsed, raw } = await transport.query('getPendingTasks', body);
      return withTimestamp({ accounts: parsed.result, raw }, parsed.timestamp);
    },

    async getRegistrationTasks(request = {}) {
      const body = selectionBody(request, csid);
      if (request.formNumber !== undefined) body.formNumber = checkNumericString(request.formNumber, 'formNumber');
      if (request.getDocs !== undefined) {
        if (request.getDocs !== 'T' && request.getDocs !== 'F') throw new EcaRequestError('getDocs', 'expected T or F');
        body.getDocs = request.getDocs;
      }
      const { parsed, raw } = await transport.query('getRegistrationTasks', body);
      return withTimestamp({ accounts: parsed.result, raw }, parsed.timestamp);
    },

    async getAccountStatus(request = {}) {
      const body = selectionBody(request, csid);
      if (request.status !== undefined) {
        if (!(ACCOUNT_STATUS_CODES as readonly string[]).includes(request.status)) {
          throw new EcaRequestError('status', `expected one of ${ACCOUNT_STATUS_CODES.join(' ')}`);
        }
        body.status = request.status;
      }
      const { parsed, raw } = await transport.query('getAccountStatus', body);
      return withTimestamp({ accounts: parsed.status ?? parsed.result ?? [], raw }, parsed.timestamp);
    },

    async getAmRequestStatus(request = {}) {
      const body: Record<string, unknown> = { CSID: ctx.csidOf(request.CSID) };
      if (request.accountIds !== undefined) body.accountIds = normaliseAccountIds(request.accountIds);
      if (request.request_id !== undefined) {
        const id: unknown = request.request_id;
        if (Array.isArray(id)) throw new EcaRequestError('request_id', 'one request_id per call');
        if (typeof id !== 'string' || id.trim() === '')
          throw new EcaRequestError('request_id', 'expected a request id');
        if (/[\s,;]/.test(id.trim())) throw new EcaRequestError('request_id', 'one request_id per call');
        body.request_id = id.trim();
      }
      const { parsed, raw } = await transport.query('getAmRequestStatus', body);
      return withTimestamp({ requests: parsed.result, raw }, parsed.timestamp);
    },
  };
}

type FileQueries = Pick<EcaClient, 'getResponseFile' | 'getBatchDetails' | 'getFileDetails'>;

export function fileQueries(ctx: ClientContext): FileQueries {
  const { transport } = ctx;
  /** getBatchDetails and getFileDetails: the listed accounts (required), one entry each. */
  const byAccounts =
    <S extends 'getBatchDetails' | 'getFileDetails'>(operation: S) =>
    async (request: AccountsRequest) => {
      if (request?.accountIds === undefined) throw new EcaRequestError('accountIds', `required for ${operation}`);
      const body = { CSID: ctx.csidOf(request.CSID), accountIds: normaliseAccountIds(request.accountIds) };
      const { parsed, raw } = await transport.query(operation, body);
      return withTimestamp({ accounts: parsed.result, raw }, parsed.timestamp);
    };
  return {
    async getResponseFile(request) {
      if (typeof request.externalId !== 'string' || request.externalId.trim() === '') {
        throw new EcaRequestError('externalId', 'the external_id of the application is required');
      }
      const body = { CSID: ctx.csidOf(request.CSID), externalId: request.externalId.trim() };
      const { parsed, raw } = await transport.query('getResponseFile', body);
      return withTimestamp({ files: parsed.result, raw }, parsed.timestamp);
    },

    getBatchDetails: byAccounts('getBatchDetails'),
    getFileDetails: byAccounts('getFileDetails'),
  };
}
