export { engineSmokeCheck } from './smoke.js';
export type { SmokeCheckInput, SmokeCheckResult } from './smoke.js';
export { accountApplication } from './application/workflow.js';
