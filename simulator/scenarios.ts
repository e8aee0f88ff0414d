/**
 * What happens to an application over simulated time. Each external id gets one scenario, chosen
 * (first match wins) by an assignment through the control API, by a `<scenario>-` prefix of the
 * external id (for example `docs-required-42`), or by the simulator's default (`happy`).
 * simulator/README.md tells each story in full.
 */
import type { TaskRecord } from './model.js';

export const SCENARIO_NAMES = [
  'happy',
  'docs-required',
  'doc-rejected',
  'portal-task',
  'compliance-rejected',
  'stalled',
] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

export function isScenarioName(name: string): name is ScenarioName {
  return (SCENARIO_NAMES as readonly string[]).includes(name);
}

/** Simulated durations of the brokerage's own steps. */
export interface Timings {
  /** New account until the client has provided funding details (status N to P). */
  fundingMs: number;
  /** Under review with the brokerage until Pending Approval (or the compliance rejection). */
  underReviewMs: number;
  /** A received document until it is accepted or rejected. */
  documentReviewMs: number;
  /** A `to complete` task until the client completes it in the portal. */
  portalTaskMs: number;
  /** An update request stays PENDING this long before PROCESSED or REJECTED. */
  requestProcessingMs: number;
  /** Hour (UTC) of the next business day at which approved accounts open. */
  openHourUtc: number;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

export const DEFAULT_TIMINGS: Timings = {
  fundingMs: HOUR_MS,
  underReviewMs: 2 * HOUR_MS,
  documentReviewMs: 4 * HOUR_MS,
  portalTaskMs: 6 * HOUR_MS,
  requestProcessingMs: 5 * MINUTE_MS,
  openHourUtc: 6,
};

export const REJECTION_REASON = 'Proof of address is older than three months';

export interface ScenarioDefinition {
  name: ScenarioName;
  summary: string;
  /** Open tasks at the start (or restart after ResetAbandonedAccount) of the application. */
  tasks(at: number, timings: Timings, resets: number): TaskRecord[];
  rejectedByCompliance: boolean;
}

interface TaskTemplate {
  formNumber: string;
  formName: string;
  action: TaskRecord['action'];
  isOnlineTask: boolean;
  state: string;
}

const PROOF_OF_IDENTITY: TaskTemplate = {
  formNumber: '8001',
  formName: 'Proof of Identity',
  action: 'to send',
  isOnlineTask: false,
  state: 'To Be Sent',
};
const PROOF_OF_ADDRESS: TaskTemplate = {
  formNumber: '8002',
  formName: 'Proof of Address',
  action: 'to send',
  isOnlineTask: false,
  state: 'To Be Submitted',
};
const FINANCIAL_QUESTIONNAIRE: TaskTemplate = {
  formNumber: '4100',
  formName: 'Financial Information Questionnaire',
  action: 'to complete',
  isOnlineTask: true,
  state: 'To Be Completed',
};
/** Signed with the application, so registration tasks list it as done from the start. */
const CUSTOMER_AGREEMENT: TaskTemplate = {
  formNumber: '3230',
  formName: 'Customer Agreement',
  action: 'to sign',
  isOnlineTask: false,
  state: 'To Be Signed',
};

function task(template: TaskTemplate, taskNumber: number, extra: Partial<TaskRecord> = {}): TaskRecord {
  return {
    ...template,
    isRequiredForTrading: true,
    isRequiredForApproval: true,
    taskNumber,
    complete: false,
    files: [],
    ...extra,
  };
}

/** The agreement every application carries, complete at `at`. */
export function signedAgreement(at: number): TaskRecord {
  return task(CUSTOMER_AGREEMENT, 1, { complete: true, completedAt: at });
}

const DEFINITIONS: Record<ScenarioName, ScenarioDefinition> = {
  happy: {
    name: 'happy',
    summary: 'No tasks: N, then P under review, Pending Approval, open by the next business day.',
    tasks: () => [],
    rejectedByCompliance: false,
  },
  'docs-required': {
    name: 'docs-required',
    summary: 'Proof of identity and of address to send (P, Documents Required); accepted after review.',
    tasks: () => [task(PROOF_OF_IDENTITY, 2), task(PROOF_OF_ADDRESS, 3)],
    rejectedByCompliance: false,
  },
  'doc-rejected': {
    name: 'doc-rejected',
    summary: 'As docs-required, but the first proof of address is rejected with a reason; a resubmission is accepted.',
    tasks: () => [task(PROOF_OF_IDENTITY, 2), task(PROOF_OF_ADDRESS, 3, { rejectNextWith: REJECTION_REASON })],
    rejectedByCompliance: false,
  },
  'portal-task': {
    name: 'portal-task',
    summary: 'A `to complete` task (N, Incomplete Application) that the client completes in the portal after a delay.',
    tasks: (at, timings) => [task(FINANCIAL_QUESTIONNAIRE, 4, { dueAt: at + timings.portalTaskMs })],
    rejectedByCompliance: false,
  },
  'compliance-rejected': {
    name: 'compliance-rejected',
    summary: 'No tasks; compliance rejects the application at the end of its review (R).',
    tasks: () => [],
    rejectedByCompliance: true,
  },
  stalled: {
    name: 'stalled',
    summary:
      'A `to complete` task the client never does, until the application is abandoned and reset; then it is done after a delay.',
    tasks: (at, timings, resets) => [
      task(FINANCIAL_QUESTIONNAIRE, 4, resets > 0 ? { dueAt: at + timings.portalTaskMs } : {}),
    ],
    rejectedByCompliance: false,
  },
};

export function scenario(name: string): ScenarioDefinition {
  return isScenarioName(name) ? DEFINITIONS[name] : DEFINITIONS.happy;
}

export function scenarioDefinitions(): ScenarioDefinition[] {
  return SCENARIO_NAMES.map((name) => DEFINITIONS[name]);
}

/** The scenario named by an external id's prefix (`docs-required-...`), if any. */
export function scenarioFromExternalId(externalId: string): ScenarioName | undefined {
  const lower = externalId.toLowerCase();
  // Longest names first, so that no name shadows a longer one that starts with it.
  return [...SCENARIO_NAMES].sort((a, b) => b.length - a.length).find((name) => lower.startsWith(`${name}-`));
}
