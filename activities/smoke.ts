import { hostname } from 'node:os';
import type { SmokeActivities } from '../workflows/smoke.js';

export interface PingResult {
  /** `<pid>@<host>`, the same form as a Temporal worker's default identity. */
  identity: string;
}

/** Answers with the identity of the worker process running it (used by the smoke check workflow). */
export const pingWorker: SmokeActivities['pingWorker'] = (): Promise<PingResult> => {
  return Promise.resolve({ identity: `${process.pid}@${hostname()}` });
};
