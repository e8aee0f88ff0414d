/**
 * Workflow interceptor of strict codec mode (codec/plaintext.ts): a start, update, query or signal
 * whose arguments a client sent unencrypted reaches the workflow as a refusal value, never as data.
 * A start fails (type PlaintextRefused), an update or query is refused to its sender, and a signal,
 * which cannot be refused, is dropped with a warning in the worker's log. Nothing else changes: a
 * workflow whose every payload is encrypted runs as without this interceptor.
 */
import { ApplicationFailure, log } from '@temporalio/workflow';
import type {
  Next,
  QueryInput,
  SignalInput,
  UpdateInput,
  WorkflowExecuteInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptorsFactory,
} from '@temporalio/workflow';
import { isPlaintextRefusal, PLAINTEXT_REFUSED_MESSAGE, PLAINTEXT_REFUSED_TYPE } from '../codec/plaintext.js';

function refused(args: readonly unknown[]): boolean {
  return args.some(isPlaintextRefusal);
}

function refusal(what: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: PLAINTEXT_REFUSED_TYPE,
    message: `${what}: ${PLAINTEXT_REFUSED_MESSAGE}`,
    nonRetryable: true,
  });
}

class PlaintextGuard implements WorkflowInboundCallsInterceptor {
  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    if (refused(input.args)) throw refusal('the workflow input');
    return next(input);
  }

  validateUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>): void {
    if (refused(input.args)) throw refusal(`update ${input.name}`);
    next(input);
  }

  async handleUpdate(
    input: UpdateInput,
    next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>,
  ): Promise<unknown> {
    if (refused(input.args)) throw refusal(`update ${input.name}`);
    return next(input);
  }

  async handleQuery(input: QueryInput, next: Next<WorkflowInboundCallsInterceptor, 'handleQuery'>): Promise<unknown> {
    if (refused(input.args)) throw refusal(`query ${input.queryName}`);
    return next(input);
  }

  async handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>): Promise<void> {
    if (refused(input.args)) {
      log.warn(`signal ${input.signalName} dropped: ${PLAINTEXT_REFUSED_MESSAGE}`, { signal: input.signalName });
      return;
    }
    return next(input);
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => ({ inbound: [new PlaintextGuard()] });
