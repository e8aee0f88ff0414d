/** The service's operations: each one's path, under the base address (`/preference/set` under the preference one). */
export const OPERATION_PATHS = {
  getPendingTasks: '/ws/eca/getPendingTasks',
  getRegistrationTasks: '/ws/eca/getRegistrationTasks',
  getAccountStatus: '/ws/eca/getAccountStatus',
  getEnumerations: '/ws/eca/getEnumerations',
  getAmRequestStatus: '/ws/eca/getAmRequestStatus',
  submitDocuments: '/ws/eca/submitDocuments',
  validateXML: '/ws/eca/validateXML',
  create: '/ws/eca/create',
  ssoCreate: '/ws/sso/create',
  update: '/ws/eca/update',
  preferenceSet: '/preference/set',
  getResponseFile: '/ws/eca/getResponseFile',
  getBatchDetails: '/ws/eca/getBatchDetails',
  getFileDetails: '/ws/eca/getFileDetails',
} as const;
export type EcaOperation = keyof typeof OPERATION_PATHS;

/** Every operation's name, as a non-empty tuple for schemas that enumerate them. */
export const OPERATIONS = Object.keys(OPERATION_PATHS) as [EcaOperation, ...EcaOperation[]];
