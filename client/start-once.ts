/**
 * Starting a workflow whose id names the request it carries: a workflow already under that id (running,
 * or closed where the reuse policy keeps the id) is handed back instead of a second one, so a request
 * sent twice starts one workflow, but only when it is the caller's firm's.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Client, WorkflowHandle, WorkflowStartOptions } from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import { DEFAULT_TASK_QUEUE } from '../domain/workflow-ids.js';
import { EcaCsid } from '../domain/search-attributes.js';
import { EngineError } from './errors.js';

export interface StartedOnce<T extends Workflow> {
  handle: WorkflowHandle<T>;
  /** The id was taken already: nothing new was started. */
  existed: boolean;
}

/**
 * Hands back a workflow found under the caller's id only when its `EcaCsid` is the caller's firm: the ids
 * cannot collide across firms (domain/workflow-ids.ts), and this keeps it so should one ever be started
 * by hand. Another firm's is a CONFLICT, which names neither that firm nor anything of its workflow.
 */
export async function checkFirmOf(handle: WorkflowHandle, csid: string): Promise<void> {
  const description = await handle.describe();
  if (description.typedSearchAttributes.get(EcaCsid) !== csid) {
    throw new EngineError(
      'CONFLICT',
      `workflow id ${handle.workflowId} is taken by another firm's workflow: nothing was started`,
    );
  }
}

export async function startOnce<T extends Workflow>(
  ctx: { client: Client; csid: string; taskQueue?: string },
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
    const handle = ctx.client.workflow.getHandle<T>(options.workflowId);
    await checkFirmOf(handle, ctx.csid);
    return { handle, existed: true };
  }
}
