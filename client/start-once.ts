/**
 * Starting a workflow whose id names the request it carries: a workflow already under that id (running,
 * or closed where the reuse policy keeps the id) is handed back instead of a second one, so a request
 * sent twice starts one workflow.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Client, WorkflowHandle, WorkflowStartOptions } from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import { DEFAULT_TASK_QUEUE } from '../domain/workflow-ids.js';

export interface StartedOnce<T extends Workflow> {
  handle: WorkflowHandle<T>;
  /** The id was taken already: nothing new was started. */
  existed: boolean;
}

export async function startOnce<T extends Workflow>(
  ctx: { client: Client; taskQueue?: string },
  workflowType: string,
  options: Omit<WorkflowStartOptions<T>, 'taskQueue' | 'workflowIdConflictPolicy'>,
): Promise<StartedOnce<T>> {
  try {
    // TypeScript cannot resolve the SDK's conditional `args` type for a generic T: the cast only restores it.
    const handle = await ctx.client.workflow.start<T>(workflowType, {
      ...options,
      taskQueue: ctx.taskQueue ?? DEFAULT_TASK_QUEUE,
      workflowIdConflictPolicy: 'FAIL',
    } as WorkflowStartOptions<T>);
    return { handle, existed: false };
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return { handle: ctx.client.workflow.getHandle<T>(options.workflowId), existed: true };
  }
}
