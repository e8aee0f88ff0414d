/**
 * The Web API's account reads on the simulator: the same brokerage as the XML service (one store), reached
 * through another door. A client reads only its own firm's accounts.
 *
 * Where the document is silent, the hardest reading (simulator/README.md, "Web API"): an account that is
 * not the client's firm's, or none at all, is answered 200 with `hasError` (the document's account answers
 * carry their errors in the body), never 404, and told apart from nothing; task and form numbers are numbers
 * (the document's int32), and a rejected document's reason is in `documentRejectReason` alone.
 */
import type { FastifyInstance } from 'fastify';
import { statusDescription } from '../lifecycle.js';
import type { AccountRecord, TaskRecord } from '../model.js';
import type { Store } from '../store.js';
import type { RegisteredClient, WebApiAuthority } from './authority.js';
import { answer } from './answer.js';

const REJECTED = /^Rejected (.*)$/s;

function accountOf(store: Store, client: RegisteredClient, accountId: string): AccountRecord | undefined {
  const account = store.account(accountId);
  return account?.csid === client.csid ? account : undefined;
}

const unknownAccount = (accountId: string) => ({
  accountId,
  hasError: true,
  errorDescription: 'Account not found',
});

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

function pendingTask(task: TaskRecord): Record<string, unknown> {
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
    ...(task.files.length > 0 && { startDate: new Date(task.files[0]!.receivedAt).toISOString() }),
  };
}

export function registerAccountReads(app: FastifyInstance, authority: WebApiAuthority, store: Store): void {
  app.get<{ Params: { accountId: string } }>('/gw/api/v1/accounts/:accountId/status', (request, reply) =>
    answer(reply, () => {
      const client = authority.authenticate(request.headers.authorization, 'accounts.read');
      const account = accountOf(store, client, request.params.accountId);
      return account ? { ...statusOf(store, account), hasError: false } : unknownAccount(request.params.accountId);
    }),
  );
  app.get<{ Params: { accountId: string }; Querystring: { type?: string } }>(
    '/gw/api/v1/accounts/:accountId/tasks',
    (request, reply) =>
      answer(reply, () => {
        const client = authority.authenticate(request.headers.authorization, 'accounts.read');
        const account = accountOf(store, client, request.params.accountId);
        if (!account) return unknownAccount(request.params.accountId);
        const { type = 'registration' } = request.query;
        const { accountId, status, state, description } = statusOf(store, account);
        const head = { accountId, status, ...(state !== undefined && { state }), description, hasError: false };
        if (type === 'pending') {
          const open = account.tasks.filter((task) => !task.complete);
          return { ...head, pendingTaskPresent: open.length > 0, pendingTasks: open.map(pendingTask) };
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
