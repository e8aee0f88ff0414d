/**
 * The benchmark's yardstick, never registered by the engine: a workflow that runs one no-op activity.
 * Its rate on the same server and worker settings is the ceiling the engine's figures are set against.
 */
import { proxyActivities } from '@temporalio/workflow';

const { benchNoopActivity } = proxyActivities<{ benchNoopActivity(): Promise<void> }>({
  startToCloseTimeout: '1 minute',
});

export async function benchNoop(): Promise<void> {
  await benchNoopActivity();
}
