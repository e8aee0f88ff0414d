export { engineSmokeCheck } from './smoke.js';
export type { SmokeCheckInput, SmokeCheckResult } from './smoke.js';
export { accountApplication } from './application/workflow.js';
export { dailyDocuments, dailyDocumentsTrigger } from './documents/workflow.js';
export { accountMaintenance } from './maintenance/workflow.js';
export { firmStatusSweep } from './sweep/workflow.js';
export { documentRetention } from './retention/workflow.js';
export { webhookDelivery } from './webhooks/workflow.js';
