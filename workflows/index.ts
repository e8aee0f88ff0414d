export { engineSmokeCheck } from './smoke.js';
export type { SmokeCheckInput, SmokeCheckResult } from './smoke.js';
