/**
 * Account maintenance on the Web API: each update function of the XML service's tables is one member of the
 * document's `AccountManagementRequests` (`ChangeBaseCurrency` is `changeBaseCurrency`...), sent with
 * `PATCH /gw/api/v1/accounts`. The firm writes the member's JSON, as it writes the function's XML fragment for
 * the XML service; here it is checked against the document's types and given its account.
 */
import type { z } from 'zod';
import { MAINTENANCE_MEMBER_SCHEMAS } from './application.js';
import type { AccountManagementRequests, MaintenanceMember } from './application.js';
import { WebApiRequestError } from './errors.js';

/** The member of `AccountManagementRequests` for each update function that maintenance sends. */
export const MAINTENANCE_MEMBERS = {
  AccountConfiguration: 'accountConfiguration',
  AddAdditionalAcct: 'addAdditionalAccount',
  ChangeAccountHolderDetail: 'changeAccountHolderDetail',
  ChangeBaseCurrency: 'changeBaseCurrency',
  CompleteLoginMessage: 'completeLoginMessage',
  SecurityQuestions: 'securityQuestions',
  UpdateBCAN: 'updateBcan',
  UpdateCredentials: 'updateCredentials',
  UpdateExternalId: 'updateExternalId',
  UpdateWithholdingStatement: 'updateWithholdingStatement',
  UpdateTaxForm: 'updateTaxForm',
  ProhibitedCountryQuestionnaire: 'prohibitedCountryQuestionnaire',
  Questionnaires: 'questionnaires',
  QuizQuestionnaires: 'quizQuestionnaires',
} as const satisfies Record<string, MaintenanceMember>;

/** The members whose object names no account (the document gives them none): their user names it. */
const WITHOUT_ACCOUNT: ReadonlySet<MaintenanceMember> = new Set(['securityQuestions']);

/** The update function a member stands for; undefined for the lifecycle's own and unknown members. */
export function functionOfMember(member: string): string | undefined {
  return Object.entries(MAINTENANCE_MEMBERS).find(([, name]) => name === member)?.[0];
}

function issuePath(issue: z.core.$ZodIssue): string {
  return issue.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('');
}

/**
 * The request that sends `functionName` for the account with the firm's JSON `body`: the member, checked
 * against the document's types, its `accountId` the account's. Throws a {@link WebApiRequestError} naming the
 * field when the function has no member, the body is not the member's, or it names another account.
 */
export function maintenanceRequest(functionName: string, accountId: string, body: unknown): AccountManagementRequests {
  const member = Object.hasOwn(MAINTENANCE_MEMBERS, functionName)
    ? MAINTENANCE_MEMBERS[functionName as keyof typeof MAINTENANCE_MEMBERS]
    : undefined;
  if (member === undefined) {
    throw new WebApiRequestError(
      'functionName',
      `${functionName} has no account management request on the Web API (it has: ${Object.keys(MAINTENANCE_MEMBERS).join(', ')})`,
    );
  }
  const parsed = MAINTENANCE_MEMBER_SCHEMAS[member].safeParse(body ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new WebApiRequestError(`body${issuePath(issue)}`, `${issue.message} (the document's ${member})`);
  }
  const value: Record<string, unknown> = { ...parsed.data };
  if (WITHOUT_ACCOUNT.has(member)) return { [member]: value };
  if (value.accountId !== undefined && value.accountId !== accountId) {
    throw new WebApiRequestError(
      'body.accountId',
      `names account ${JSON.stringify(value.accountId)}, not ${accountId}`,
    );
  }
  return { [member]: { ...value, accountId } };
}
