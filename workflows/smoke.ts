import { log, proxyActivities, setWorkflowOptions, sleep } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';

/** The activity the smoke check calls (activities/smoke.ts). */
export interface SmokeActivities {
  /** Answers with the identity (`<pid>@<host>`) of the worker process running it. */
  pingWorker(): Promise<{ identity: string }>;
}

const { pingWorker } = proxyActivities<SmokeActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

export interface SmokeCheckInput {
  /** How long the workflow sleeps on a durable timer between its two activity calls. */
  sleep: Duration;
}

export interface SmokeCheckResult {
  /** Identity of the worker process that ran the activities. */
  workerIdentity: string;
  /** Workflow time (ms since the epoch) before and after the timer. */
  workflowStartedAt: number;
  workflowFinishedAt: number;
}

// Seconds long: pinned to the build that started it (Worker Versioning; ignored by an unversioned worker).
setWorkflowOptions({ versioningBehavior: 'PINNED' }, engineSmokeCheck);

/**
 * Proves that a deployment is wired end to end: a worker polls the task queue, runs activities and
 * fires a durable timer. Used by the demo and by operators after a deployment.
 */
export async function engineSmokeCheck(input: SmokeCheckInput): Promise<SmokeCheckResult> {
  const workflowStartedAt = Date.now();
  const { identity } = await pingWorker();
  log.info('smoke check: worker answered, sleeping', { sleep: input.sleep });
  await sleep(input.sleep);
  await pingWorker();
  return { workerIdentity: identity, workflowStartedAt, workflowFinishedAt: Date.now() };
}
