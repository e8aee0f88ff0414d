/**
 * The update functions of the spec's tables, with their availability per firm type. The spec names
 * some functions only by usage (e.g. "Add trade permissions"); those cannot be called until the
 * brokerage gives their names. Pure: the workflow checks a request here before anything is sent,
 * and the client can check it before starting a workflow.
 */

import { FIRM_TYPES } from '../../domain/firm-types.js';
import type { FirmType } from '../../domain/firm-types.js';

export { FIRM_TYPES };
export type { FirmType };

export interface UpdateFunctionRule {
  usage: string;
  /** Available to fully disclosed and advisor clients. */
  disclosed: boolean;
  /** Available to non-disclosed clients. */
  nonDisclosed: boolean;
  /** Open accounts, or pending applications. */
  target: 'open' | 'pending';
  /** Functions the application workflow sends itself (abandon, reset, documents): not for maintenance. */
  ownedByApplication?: boolean;
}

export const UPDATE_FUNCTIONS = {
  AccountConfiguration: { usage: 'Update account configuration', disclosed: false, nonDisclosed: true, target: 'open' },
  AddAdditionalAcct: {
    usage: "Create an additional account linked to the individual's existing user name",
    disclosed: true,
    nonDisclosed: true,
    target: 'open',
  },
  ChangeAccountHolderDetail: {
    usage: 'Change account information',
    disclosed: true,
    nonDisclosed: true,
    target: 'open',
  },
  ChangeBaseCurrency: { usage: 'Change base currency', disclosed: true, nonDisclosed: true, target: 'open' },
  CompleteLoginMessage: {
    usage: 'Complete a login message through the account-management channel',
    disclosed: true,
    nonDisclosed: false,
    target: 'open',
  },
  SecurityQuestions: { usage: 'Process security questions', disclosed: true, nonDisclosed: true, target: 'open' },
  UpdateBCAN: { usage: 'Generate BCAN', disclosed: false, nonDisclosed: true, target: 'open' },
  UpdateCredentials: {
    usage: 'Update the e-mail address associated with the user',
    disclosed: true,
    nonDisclosed: true,
    target: 'open',
  },
  UpdateExternalId: {
    usage: 'Update the ExternalId of an account',
    disclosed: true,
    nonDisclosed: true,
    target: 'open',
  },
  UpdateWithholdingStatement: {
    usage: 'Update withholding statement',
    disclosed: false,
    nonDisclosed: true,
    target: 'open',
  },
  UpdateTaxForm: { usage: 'Update tax form', disclosed: true, nonDisclosed: true, target: 'open' },
  ProhibitedCountryQuestionnaire: {
    usage: 'Complete the prohibited-country questionnaire of a pending account',
    disclosed: true,
    nonDisclosed: true,
    target: 'pending',
  },
  Questionnaires: {
    usage: 'Complete questionnaires required for approval',
    disclosed: true,
    nonDisclosed: false,
    target: 'pending',
  },
  QuizQuestionnaires: {
    usage: 'Complete knowledge-assessment questionnaires required for approval',
    disclosed: true,
    nonDisclosed: false,
    target: 'pending',
  },
  AbandonAccount: {
    usage: 'Delete a pending application',
    disclosed: true,
    nonDisclosed: true,
    target: 'pending',
    ownedByApplication: true,
  },
  DocumentSubmission: {
    usage: 'Submit documents required for approval',
    disclosed: true,
    nonDisclosed: true,
    target: 'pending',
    ownedByApplication: true,
  },
  ResetAbandonedAccount: {
    usage: 'Reset an application previously deleted',
    disclosed: true,
    nonDisclosed: true,
    target: 'pending',
    ownedByApplication: true,
  },
} as const satisfies Record<string, UpdateFunctionRule>;

export type UpdateFunctionName = keyof typeof UPDATE_FUNCTIONS;

/** Why a function cannot be sent for a firm of this type, with the failure type to raise; undefined when it can. */
export function refuseFunction(
  functionName: string,
  firmType: string,
): { type: 'UnknownUpdateFunction' | 'FunctionNotAvailable' | 'InvalidArgument'; message: string } | undefined {
  if (!(FIRM_TYPES as readonly string[]).includes(firmType)) {
    return { type: 'InvalidArgument', message: `firmType must be one of ${FIRM_TYPES.join(', ')}, got "${firmType}"` };
  }
  const rule: UpdateFunctionRule | undefined = Object.hasOwn(UPDATE_FUNCTIONS, functionName)
    ? UPDATE_FUNCTIONS[functionName as UpdateFunctionName]
    : undefined;
  if (!rule) {
    return {
      type: 'UnknownUpdateFunction',
      message: `${functionName} is not an update function of the service (known: ${Object.keys(UPDATE_FUNCTIONS).join(', ')})`,
    };
  }
  if (rule.ownedByApplication) {
    return {
      type: 'FunctionNotAvailable',
      message: `${functionName} is sent by the accountApplication workflow (abandon, reset, provideDocuments), not by maintenance`,
    };
  }
  const available = firmType === 'non-disclosed' ? rule.nonDisclosed : rule.disclosed;
  if (!available) {
    return {
      type: 'FunctionNotAvailable',
      message: `${functionName} (${rule.usage}) is not available to ${firmType} firms`,
    };
  }
  return undefined;
}
