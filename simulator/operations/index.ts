/** Operation name (as in the spec) → handler. */
import { create, validateXML } from './applications.js';
import type { Operation } from './context.js';
import { submitDocuments } from './documents.js';
import { getEnumerations } from './enumerations.js';
import { setPreference } from './preference.js';
import { getAccountStatus, getBatchDetails, getFileDetails, getPendingTasks, getRegistrationTasks } from './queries.js';
import { getAmRequestStatus, getResponseFile } from './requests.js';
import { createSso } from './sso.js';
import { update } from './update.js';

export const OPERATIONS: Record<string, Operation> = {
  getPendingTasks,
  getRegistrationTasks,
  getAccountStatus,
  getEnumerations,
  getAmRequestStatus,
  submitDocuments,
  validateXML,
  create,
  'sso/create': createSso,
  update,
  'preference/set': setPreference,
  getResponseFile,
  getBatchDetails,
  getFileDetails,
};
