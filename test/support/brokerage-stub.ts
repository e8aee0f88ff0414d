/**
 * The application workflow's activities over a brokerage kept in memory, for tests about the workflow's
 * own logic (staff messages, validators, retention, deadlines), as the Temporal samples test workflows
 * with stubbed activities: no simulator, no HTTP, no OpenPGP, no document store. Every call is recorded,
 * so that a test says what the workflow asked for and what it sent. Tests about the wire (lost answers,
 * listings, the brokerage's formats) drive the real activities against the simulator instead
 * (test/support/engine.ts).
 */
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowHandle } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { AccountSnapshot, TaskView } from '../../domain/account.js';
import { effectivePolicy } from '../../domain/deadlines.js';
import type { DeadlinePolicy } from '../../domain/deadlines.js';
import { applicationWorkflowId } from '../../domain/workflow-ids.js';
import type {
  ApplicationActivities,
  ApplicationUpdateFunction,
  DeadlineActivities,
  EventActivities,
} from '../../workflows/application/activities.js';
import type { ApplicationInput } from '../../workflows/application/messages.js';
import { accountApplication } from '../../workflows/index.js';
import { createEngineWorker } from '../../workers/engine-worker.js';
import { RecordedEvents } from './events.js';
import { createEventActivities } from '../../activities/events.js';
import type { RetentionActivities } from '../../workflows/retention/activities.js';
import { withRidingEvents } from '../../activities/event-riders.js';
import { endTestWorkflows, timeSkippingEnv } from './servers.js';

/** An account of the stub brokerage: what readAccount answers for it. */
export interface StubAccount extends AccountSnapshot {
  accountId: string;
  externalId: string;
}

/** How an account the stub creates starts: waiting for a portal task, for a document, or open at once. */
export type StubScenario = 'portal-task' | 'docs-required' | 'happy';

const SCENARIO_TASKS: Record<StubScenario, TaskView[]> = {
  'portal-task': [{ formNumber: '3203', formName: 'Online agreement', action: 'to complete', isOnlineTask: true }],
  'docs-required': [{ formNumber: '8001', formName: 'Proof of identity', action: 'to send' }],
  happy: [],
};

/** One activity call: its name and its input, as the workflow sent it. */
export interface StubCall {
  name: string;
  input: Record<string, unknown>;
}

export class BrokerageStub {
  readonly calls: StubCall[] = [];
  readonly accounts = new Map<string, StubAccount>();
  readonly events = new RecordedEvents();
  /** The firm's deadline policy as stored (the defaults where it has no entry); a test may change it. */
  policy: DeadlinePolicy | undefined;
  private requests = 0;

  /** The update functions sent, in order. */
  sent(): ApplicationUpdateFunction[] {
    return this.calls
      .filter((call) => call.name === 'sendApplicationUpdate')
      .map((call) => call.input.functionName as ApplicationUpdateFunction);
  }

  /** The activities a worker registers: the application's, its event writes and its deadline policy. */
  activities(): ApplicationActivities & EventActivities & DeadlineActivities {
    /** Records the call, then answers what `answer` gives (or fails with what it throws). */
    const call =
      <I extends object, O>(name: string, answer: (input: I) => O) =>
      (input: I): Promise<O> => {
        this.calls.push({ name, input: { ...input } as Record<string, unknown> });
        try {
          return Promise.resolve(answer(input));
        } catch (error) {
          return Promise.reject(error instanceof Error ? error : new Error(String(error)));
        }
      };
    const written = createEventActivities(this.events);
    return withRidingEvents(
      {
        validateApplication: call('validateApplication', () => ({ valid: true as const })),
        createAccount: call('createAccount', (input: { externalId: string }) => {
          const scenario = (Object.keys(SCENARIO_TASKS) as StubScenario[]).find((name) =>
            input.externalId.startsWith(`${name}-`),
          );
          if (!scenario) throw new Error(`no stub scenario for external id ${input.externalId}`);
          const accountId = `U${1_000_000 + this.accounts.size}`;
          this.accounts.set(accountId, {
            accountId,
            externalId: input.externalId,
            status: scenario === 'happy' ? 'O' : 'P',
            stateText: 'Incomplete Application',
            tasks: SCENARIO_TASKS[scenario].map((task) => ({ ...task })),
          });
          return { created: true as const, accountId, recovered: false };
        }),
        readAccount: call('readAccount', (input: { accountId: string }) => {
          const { status, stateText, tasks } = this.account(input.accountId);
          return { status, stateText, tasks: tasks.map((task) => ({ ...task })) };
        }),
        listAccountRequests: call('listAccountRequests', (): string[] => []),
        sendApplicationUpdate: call(
          'sendApplicationUpdate',
          (input: { accountId: string; functionName: ApplicationUpdateFunction }) => {
            const account = this.account(input.accountId);
            if (input.functionName === 'AbandonAccount') account.status = 'A';
            if (input.functionName === 'ResetAbandonedAccount') account.status = 'P';
            if (input.functionName === 'DocumentSubmission') account.tasks = [];
            return { accepted: true as const, responseFile: `request-${++this.requests}.xml` };
          },
        ),
        readRequestByFile: call('readRequestByFile', () => ({ decided: true as const, processed: true as const })),
        recordEvents: written.recordEvents,
        finishApplication: written.finishApplication,
        readDeadlinePolicy: () => Promise.resolve(effectivePolicy(this.policy)),
      },
      this.events,
    );
  }

  /** The account `accountId`; a read of an account never created is a test's mistake. */
  account(accountId: string): StubAccount {
    const account = this.accounts.get(accountId);
    if (!account) throw new Error(`no stub account ${accountId}`);
    return account;
  }
}

export interface StubbedEngine {
  env: TestWorkflowEnvironment;
  brokerage: BrokerageStub;
  worker: Worker;
  /** Starts an application whose account follows `scenario`, on the worker's task queue. */
  start(scenario: StubScenario, input?: Partial<ApplicationInput>): Promise<WorkflowHandle<typeof accountApplication>>;
}

const CSID = 'CSID-STUB';
const APPLICATION = { sha1: '0'.repeat(40), length: 1, ref: `sha1/00/${'0'.repeat(40)}` };

/**
 * A describe's engine over the stub brokerage, on the shared time-skipping server: `setUp()` in a test
 * gives a new worker on a task queue of its own; after the test, what it left open there is ended.
 */
export function stubbedEngine(): {
  /** `replace`: activities of the test's own, given the stub's (to wrap or stand in for them). */
  setUp(options?: {
    replace?: (
      stub: ReturnType<BrokerageStub['activities']>,
    ) => Partial<ReturnType<BrokerageStub['activities']> & RetentionActivities>;
  }): Promise<StubbedEngine>;
} {
  let current: { env: TestWorkflowEnvironment; taskQueue: string; worker: Worker } | undefined;
  afterEach(async function () {
    if (current) await endTestWorkflows(current.env, current.taskQueue, current.worker);
    current = undefined;
  });
  return {
    async setUp(options = {}) {
      const env = await timeSkippingEnv();
      const brokerage = new BrokerageStub();
      const taskQueue = `stub-${randomUUID()}`;
      const activities = brokerage.activities();
      const worker = await createEngineWorker({
        connection: env.nativeConnection,
        taskQueue,
        activities: { ...activities, ...options.replace?.(activities) },
      });
      current = { env, taskQueue, worker };
      return {
        env,
        brokerage,
        worker,
        start(scenario, input = {}) {
          const externalId = `${scenario}-${randomUUID().slice(0, 8)}`;
          return env.client.workflow.start(accountApplication, {
            taskQueue,
            workflowId: applicationWorkflowId(CSID, externalId),
            args: [
              {
                csid: CSID,
                externalId,
                application: APPLICATION,
                ...input,
                // Nothing in a store to delete: no retention workflow holds the server's time skipping.
                settings: { safetyPollInterval: '15 minutes', documentRetention: null, ...input.settings },
              },
            ],
          });
        },
      };
    },
  };
}
