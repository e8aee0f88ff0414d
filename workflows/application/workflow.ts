/**
 * `accountApplication`: one durable workflow per account application. It interprets the lifecycle
 * statechart: runs the effect of the current state as an activity or a durable wait, feeds the result
 * back as an event, and keeps search attributes, current details and the `state` query in step
 * (run.ts). See docs/architecture.md for the walk of one application.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  isCancellation,
  log,
  workflowInfo,
} from '@temporalio/workflow';
import { durationMs } from '../../domain/durations.js';
import { effectOf, lifecycleState } from '../lifecycle/index.js';
import type { LifecycleEffect, UpdateFunction } from '../lifecycle/index.js';
import { installHandlers } from './handlers.js';
import type { ApplicationInput, ApplicationResult } from './messages.js';
import { ApplicationRun } from './run.js';
import { service } from './service.js';
import { resolveSettings, settingsProblems } from './settings.js';
import { blockOrThrow, createEvent, finish, runCreate } from './steps.js';
import { runUpdate, updateEvent } from './updates.js';
import { awaitChange } from './waits.js';
import { watchDeadlines } from './deadlines.js';

const UPDATE_FUNCTIONS: Record<'submitDocuments' | 'abandon' | 'reset', UpdateFunction> = {
  submitDocuments: 'DocumentSubmission',
  abandon: 'AbandonAccount',
  reset: 'ResetAbandonedAccount',
};

export async function accountApplication(input: ApplicationInput): Promise<ApplicationResult> {
  // A start from a client that does not check them: refused in the first task, nothing sent.
  const problems = settingsProblems(input.settings);
  if (problems.length) {
    throw ApplicationFailure.create({ type: 'InvalidArgument', message: problems.join('; '), nonRetryable: true });
  }
  const settings = resolveSettings(input.settings);
  const run = new ApplicationRun(input, settings);
  installHandlers(run);
  run.publish();
  run.outbox.writeAlone().catch((error: unknown) => {
    // Only a cancelled workflow gets here (the write is retried without end): the events stay unwritten.
    if (!isCancellation(error)) log.warn('events not written', { error: (error as Error).message });
  });
  watchDeadlines(run).catch((error: unknown) => {
    // A cancelled application's watch ends with it: nothing to say (the cancellation is in its history).
    if (isCancellation(error)) return;
    // A policy the activity let through and the domain refused: the application goes on without deadlines.
    log.error('deadlines not watched', { error: (error as Error).message });
  });
  return lifecycleLoop(run);
}

/**
 * Runs the effect of each state until the lifecycle is done, continuing as new when the history grows.
 * The steps' awaits sit in this loop itself, as recorded histories have them: the order of commands
 * within one activation (a staff update's completion, the next step's first command) depends on how
 * many microtask turns lie between them, and a step moved into an async function of its own adds one.
 */
async function lifecycleLoop(run: ApplicationRun): Promise<ApplicationResult> {
  const { settings } = run;
  for (;;) {
    const effect: LifecycleEffect = effectOf(run.snapshot);
    const context = run.snapshot.context;
    const account = run.account();
    const seen = run.messages;
    run.nextPoll = undefined;

    const stateBefore = lifecycleState(run.snapshot);
    try {
      switch (effect.kind) {
        case 'done': {
          const retentionMs = settings.documentRetention === null ? undefined : durationMs(settings.documentRetention);
          await finish(run, retentionMs);
          await condition(() => allHandlersFinished() && run.outbox.written);
          return run.result(effect.outcome);
        }

        case 'validate': {
          const events = run.outbox.ride();
          let result: Awaited<ReturnType<typeof service.validateApplication>> | undefined;
          try {
            result = await service.validateApplication.executeWithOptions({ summary: 'validateXML' }, [
              {
                csid: run.csid,
                externalId: run.externalId,
                application: context.application,
                ...(events && { events }),
              },
            ]);
          } finally {
            run.outbox.rode(events, result?.eventsWritten === true);
          }
          run.apply(result.valid ? { type: 'VALIDATED' } : { type: 'VALIDATION_FAILED', errors: result.errors });
          break;
        }

        case 'create': {
          const created = await runCreate(run);
          run.apply(createEvent(created), created.created ? created.events : undefined);
          break;
        }

        case 'submitDocuments':
        case 'abandon':
        case 'reset': {
          const functionName = UPDATE_FUNCTIONS[effect.kind];
          const documents = effect.kind === 'submitDocuments' ? effect.documents : [];
          const step = await runUpdate(run, functionName, effect.kind === 'submitDocuments' ? documents : undefined);
          run.updatedAt = Date.now();
          if (!('superseded' in step)) run.apply(updateEvent(functionName, documents, step));
          break;
        }

        case 'poll':
          await awaitChange(run, account, seen);
          break;

        case 'awaitStaff':
          await condition(() => run.messages !== seen);
          break;

        case 'awaitReset': {
          const retentionEnds = run.retentionEnds(settings);
          const woken = await condition(() => run.messages !== seen, Math.max(retentionEnds - Date.now(), 0), {
            summary: `abandoned: retention ends ${new Date(retentionEnds).toISOString()}`,
          });
          if (!woken) run.apply({ type: 'RETENTION_EXPIRED' });
          break;
        }
      }
    } catch (error) {
      blockOrThrow(run, effect, stateBefore, error);
    }

    if (shouldContinueAsNew(settings.continueAsNewAfterEvents)) {
      await condition(() => allHandlersFinished() && run.outbox.written);
      log.info('continuing as new', { state: lifecycleState(run.snapshot), events: workflowInfo().historyLength });
      await continueAsNew<typeof accountApplication>({
        ...run.input,
        carried: run.carried(),
      });
    }
  }
}

function shouldContinueAsNew(maxEvents: number): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength >= maxEvents;
}
