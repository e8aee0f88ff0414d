/**
 * The Web API's account reads on the simulator: the same brokerage as the XML service (one store), reached
 * through another protocol. A client reads only its own firm's accounts.
 *
 * Where the document is silent, the hardest reading (simulator/README.md, "Web API"): an account that is
 * not the client's firm's, or none at all, is answered 200 with `hasError` (the document's account answers
 * carry their errors in the body), never 404, and told apart from nothing; task and form numbers are numbers
 * (the document's int32), and a rejected document's reason is in `documentRejectReason` alone.
 */
import type { FastifyInstance } from 'fastify';
import { statusDescription } from '../lifecycle.js';
import { isCalendarDate } from '../operations/context.js';
import type { AccountRecord, TaskRecord } from '../model.js';
import type { Store } from '../store.js';
import type { PortalSessions } from './sso.js';
import { WebApiRefusal } from './authority.js';
import type { RegisteredClient, WebApiAuthority } from './authority.js';
import { answer } from './answer.js';

const REJECTED = /^Rejected (.*)$/s;

function accountOf(store: Store, client: RegisteredClient, accountId: string): AccountRecord | undefined {
  return store.ownAccount(client.csid, accountId);
}

/**
 * The answer for an account that is not the client's firm's: `hasError` in the body; under `webapi-wrong-id-500`
 * an id the brokerage holds for no firm is the document's `InternalServerError` instead.
 */
function unknownAccount(store: Store, accountId: string): Record<string, unknown> {
  refuseWrongId(store, accountId);
  return { accountId, hasError: true, errorDescription: 'Account not found' };
}

/** Under `webapi-wrong-id-500`, an account id the brokerage holds for no firm answers HTTP 500. */
export function refuseWrongId(store: Store, accountId: string | undefined): void {
  if (!store.unpromised.has('webapi-wrong-id-500') || accountId === undefined || store.account(accountId)) return;
  throw new WebApiRefusal(500, 'Internal Server Error');
}

/**
 * Under `webapi-formless-task`, the identity verification an account not yet decided carries: no form number,
 * its page for the account holder and its dates, as the document allows; it does not hold approval.
 */
function identityVerification(account: AccountRecord, portalUrl: string, now: number): Record<string, unknown> {
  return {
    taskNumber: 9000,
    formName: 'Identity Verification',
    action: 'to complete',
    state: 'To Be Completed',
    requiredForApproval: false,
    requiredForTrading: true,
    onlineTask: true,
    url: `${portalUrl}/identity/${account.accountId}`,
    au10tixCreatedDate: new Date(account.createdAt).toISOString(),
    au10tixExpiryDate: new Date(now + 86_400_000).toISOString(),
    entityId: Number(account.accountId.replace(/\D/g, '').slice(-9) || '0'),
    questionIds: [],
  };
}

const UNDECIDED = new Set(['N', 'P']);

function statusOf(store: Store, account: AccountRecord): Record<string, unknown> {
  return {
    accountId: account.accountId,
    masterAccountId: store.firms.get(account.csid)?.masterAccount,
    status: account.status,
    ...(account.stateText !== undefined && { state: account.stateText }),
    description: statusDescription(account.status),
    dateStarted: new Date(account.createdAt).toISOString(),
    ...(account.openedAt !== undefined && { dateOpened: new Date(account.openedAt).toISOString() }),
  };
}

/**
 * A pending task as the document shapes it; an online task carries its page in the hosted portal (`url`),
 * which asks for the user's session as every portal page does.
 */
function pendingTask(task: TaskRecord, portalUrl: string): Record<string, unknown> {
  const rejected = REJECTED.exec(task.state);
  return {
    taskNumber: task.taskNumber,
    formNumber: Number(task.formNumber),
    formName: task.formName,
    action: task.action,
    state: rejected ? 'Rejected' : task.state,
    requiredForApproval: task.isRequiredForApproval,
    requiredForTrading: task.isRequiredForTrading,
    onlineTask: task.isOnlineTask,
    ...(rejected && { documentRejectReason: [rejected[1]!] }),
    ...(task.isOnlineTask && { url: `${portalUrl}/tasks/${task.taskNumber}` }),
    ...(task.files.length > 0 && { startDate: new Date(task.files[0]!.receivedAt).toISOString() }),
  };
}

export function registerAccountReads(
  app: FastifyInstance,
  authority: WebApiAuthority,
  store: Store,
  portal: Pick<PortalSessions, 'portalUrl'>,
): void {
  app.get<{ Params: { accountId: string } }>('/gw/api/v1/accounts/:accountId/status', (request, reply) =>
    answer(reply, () => {
      const client = authority.authenticate(request.headers.authorization, 'accounts.read');
      const account = accountOf(store, client, request.params.accountId);
      return account
        ? { ...statusOf(store, account), hasError: false }
        : unknownAccount(store, request.params.accountId);
    }),
  );
  app.get<{ Params: { accountId: string }; Querystring: { type?: string } }>(
    '/gw/api/v1/accounts/:accountId/tasks',
    (request, reply) =>
      answer(reply, () => {
        const client = authority.authenticate(request.headers.authorization, 'accounts.read');
        const account = accountOf(store, client, request.params.accountId);
        if (!account) return unknownAccount(store, request.params.accountId);
        const { type = 'registration' } = request.query;
        const { accountId, status, state, description } = statusOf(store, account);
        const head = { accountId, status, ...(state !== undefined && { state }), description, hasError: false };
        if (type === 'pending') {
          const open = account.tasks
            .filter((task) => !task.complete)
            .map((task) => pendingTask(task, portal.portalUrl()));
          if (store.unpromised.has('webapi-formless-task') && UNDECIDED.has(account.status)) {
            open.push(identityVerification(account, portal.portalUrl(), store.now()));
          }
          return { ...head, pendingTaskPresent: open.length > 0, pendingTasks: open };
        }
        if (type !== 'registration')
          return { ...head, hasError: true, errorDescription: 'type: pending or registration' };
        return {
          ...head,
          registrationTaskPresent: account.tasks.length > 0,
          registrationTasks: account.tasks.map((task) => ({
            formNumber: Number(task.formNumber),
            formName: task.formName,
            action: task.action,
            state: task.complete ? 'Completed' : 'Pending',
            isCompleted: task.complete,
            isRequiredForApproval: task.isRequiredForApproval,
            ...(task.completedAt !== undefined && { dateCompleted: new Date(task.completedAt).toISOString() }),
          })),
        };
      }),
  );
}

/** `AccountStatusRequest`'s statuses (the document lists them and says what none means). */
const STATUS_LETTERS = new Set('NOPCAEFIJLMRWQ'.split(''));
const MAX_RANGE_DAYS = 366;

/**
 * `accountStatusRequest`, as the document serializes an object query parameter (`style: form`, `explode:
 * false`): `startDate,2025-01-01,endDate,2025-01-31,limit,100`. Answers the request or what is wrong.
 */
export function parseStatusRequest(
  raw: unknown,
  name = 'accountStatusRequest',
): { startDate: string; endDate: string; offset: number; limit: number; status?: string } | string {
  const parsed = parseObjectParameter(raw);
  return typeof parsed === 'string' ? `${name}${parsed}` : parsed;
}

function parseObjectParameter(
  raw: unknown,
): { startDate: string; endDate: string; offset: number; limit: number; status?: string } | string {
  if (typeof raw !== 'string' || raw === '') return ' is required';
  const parts = raw.split(',');
  if (parts.length % 2 !== 0) return ': name,value pairs expected';
  const fields = new Map<string, string>();
  for (let i = 0; i < parts.length; i += 2) fields.set(parts[i]!, parts[i + 1]!);
  const unknown = [...fields.keys()].find(
    (name) => !['startDate', 'endDate', 'offset', 'limit', 'status'].includes(name),
  );
  if (unknown !== undefined) return `.${unknown}: not a field`;
  const date = (name: string) => {
    const value = fields.get(name);
    return value !== undefined && isCalendarDate(value) ? value : undefined;
  };
  const startDate = date('startDate');
  const endDate = date('endDate');
  if (!startDate || !endDate) return '.startDate and endDate: dates (YYYY-MM-DD) required';
  const days = (Date.parse(endDate) - Date.parse(startDate)) / 86_400_000;
  if (days < 0) return '.endDate: before startDate';
  if (days > MAX_RANGE_DAYS) return `: at most ${MAX_RANGE_DAYS} days`;
  const integer = (name: string, fallback: number, min: number, max: number) => {
    const value = fields.get(name);
    if (value === undefined) return fallback;
    const n = /^\d+$/.test(value) ? Number(value) : NaN;
    return n >= min && n <= max ? n : undefined;
  };
  const offset = integer('offset', 0, 0, 2 ** 31 - 1);
  const limit = integer('limit', 100, 1, 1000);
  if (offset === undefined) return '.offset: an integer from 0';
  if (limit === undefined) return '.limit: an integer from 1 to 1000';
  const status = fields.get('status');
  if (status !== undefined && !STATUS_LETTERS.has(status)) return '.status: one of N O P C A E F I J L M R W Q';
  return { startDate, endDate, offset, limit, ...(status !== undefined && { status }) };
}

/** `GET /gw/api/v1/accounts/status`: the firm's accounts started within the dates, a page at a time. */
export function registerStatusBulk(app: FastifyInstance, authority: WebApiAuthority, store: Store): void {
  app.get<{ Querystring: { accountStatusRequest?: string } }>('/gw/api/v1/accounts/status', (request, reply) =>
    answer(reply, () => {
      const client = authority.authenticate(request.headers.authorization, 'accounts.read');
      const parsed = parseStatusRequest(request.query.accountStatusRequest);
      if (typeof parsed === 'string') throw new WebApiRefusal(400, parsed);
      const from = Date.parse(parsed.startDate);
      const to = Date.parse(parsed.endDate) + 86_400_000;
      const matching = store
        .firmAccounts(client.csid)
        .filter((account) => account.createdAt >= from && account.createdAt < to)
        .filter((account) => parsed.status === undefined || account.status === parsed.status)
        .sort((a, b) => a.accountId.localeCompare(b.accountId));
      return {
        accounts: matching
          .slice(parsed.offset, parsed.offset + parsed.limit)
          .map((account) => statusOf(store, account)),
        offset: parsed.offset,
        limit: parsed.limit,
        total: matching.length,
      };
    }),
  );
}
