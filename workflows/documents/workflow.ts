/**
 * `dailyDocumentsTrigger`: what the firm's Temporal Schedule starts. It names the firm's day in the
 * schedule's time zone and runs that day's `dailyDocuments` as a child with the id
 * `documents:<CSID>:<day>` and a reuse policy that refuses a second run: the service takes one
 * submission a day, so a second firing (a manual trigger, a catch-up) finds the day done.
 *
 * `dailyDocuments`: gathers the firm's forms, submits the agreements and disclosures once, records
 * per form `Accepted` or the reason, raises an alert (search attributes, current details) for forms
 * whose SHA-1 the brokerage no longer accepts, with the grace period's end, and keeps the day's
 * record where the create step of the day's applications reads it.
 */
import { FORMS_MANIFEST_INVALID, NON_RETRYABLE_ERROR_TYPES } from '../../domain/error-types.js';
import {
  ApplicationFailure,
  executeChild,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { DocumentsActivities, SubmissionOutcome } from './activities.js';
import { EcaCsid, EcaDocumentsAlert, EcaReplaceFormsBy } from '../../domain/search-attributes.js';
import { dayIn, isDay, isTimeZone } from '../../domain/days.js';
import { renderDocumentsDetails } from './details.js';
import { earliestReplaceBy, evaluateSubmission } from './evaluate.js';
import { dailyDocumentsStateQuery } from './messages.js';
import { documentsWorkflowId } from '../../domain/workflow-ids.js';
import type {
  DailyDocumentsInput,
  DailyDocumentsResult,
  DailyDocumentsTriggerResult,
  DailyDocumentsView,
} from './messages.js';

// Key and document-store errors are retried until the configuration is fixed (activities/configuration-errors.ts).
const NON_RETRYABLE = [FORMS_MANIFEST_INVALID, ...NON_RETRYABLE_ERROR_TYPES];

const files = proxyActivities<DocumentsActivities>({
  startToCloseTimeout: '5 minutes',
  retry: {
    initialInterval: '5 seconds',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    maximumAttempts: 10,
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
});

/** The submission is sent by the first attempt only; a retry reports the day as unconfirmed (see the activity). */
const service = proxyActivities<DocumentsActivities>({
  startToCloseTimeout: '5 minutes',
  retry: {
    initialInterval: '10 seconds',
    backoffCoefficient: 2,
    maximumAttempts: 3,
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
});

function checkInput(input: DailyDocumentsInput): void {
  const problems = [
    typeof input?.csid === 'string' && input.csid !== '' ? undefined : 'csid is required',
    typeof input?.formsDir === 'string' && input.formsDir !== '' ? undefined : 'formsDir is required',
    input?.timeZone === undefined || isTimeZone(input.timeZone)
      ? undefined
      : `unknown time zone "${String(input.timeZone)}"`,
    input?.day === undefined || isDay(input.day) ? undefined : `day must be yyyy-mm-dd, got "${String(input.day)}"`,
  ].filter((problem) => problem !== undefined);
  if (problems.length > 0) {
    throw ApplicationFailure.create({ type: 'InvalidArgument', message: problems.join('; '), nonRetryable: true });
  }
}

export async function dailyDocumentsTrigger(input: DailyDocumentsInput): Promise<DailyDocumentsTriggerResult> {
  checkInput(input);
  const day = input.day ?? dayIn(Date.now(), input.timeZone ?? 'UTC');
  const workflowId = documentsWorkflowId(input.csid, day);
  try {
    const result = await executeChild(dailyDocuments, {
      workflowId,
      args: [{ ...input, day }],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [{ key: EcaCsid, value: input.csid }],
      staticSummary: `daily documents of ${input.csid} for ${day}`,
    });
    return { day, workflowId, ran: true, result };
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return { day, workflowId, ran: false };
    throw error;
  }
}

export async function dailyDocuments(input: DailyDocumentsInput): Promise<DailyDocumentsResult> {
  checkInput(input);
  const { csid, formsDir } = input;
  const timeZone = input.timeZone ?? 'UTC';
  const day = input.day ?? dayIn(workflowInfo().startTime.getTime(), timeZone);
  const view: DailyDocumentsView = { csid, day, step: 'gathering' };
  setHandler(dailyDocumentsStateQuery, () => view);
  const publish = () => {
    const replaceBy = view.result ? earliestReplaceBy(view.result) : undefined;
    upsertSearchAttributes([
      { key: EcaCsid, value: csid },
      ...(view.result ? [{ key: EcaDocumentsAlert, value: view.result.alert }] : []),
      ...(replaceBy ? [{ key: EcaReplaceFormsBy, value: new Date(`${replaceBy}T00:00:00Z`) }] : []),
    ]);
    setCurrentDetails(renderDocumentsDetails(view));
  };
  publish();

  const gathered = await files.gatherForms.executeWithOptions({ summary: `read forms.json of ${day}` }, [
    { csid, formsDir, day },
  ]);
  // Tax forms go with every application; the Chinese variants go with zh-Hans applications.
  const sent = gathered.forms
    .filter((form) => !form.taxForm && form.language === undefined)
    .map(({ formNumber, fileName, sha1, length, ref }) => ({ formNumber, fileName, sha1, length, ref }));

  view.step = 'submitting';
  publish();
  let outcome: SubmissionOutcome;
  if (sent.length === 0) {
    outcome = { processed: false, error: 'the forms manifest lists no agreement or disclosure' };
  } else {
    outcome = await service.submitDailyDocuments.executeWithOptions(
      { summary: `submitDocuments: forms ${sent.map((form) => form.formNumber).join(', ')}` },
      [{ csid, documents: sent }],
    );
  }

  const result = evaluateSubmission({ csid, day, timeZone, sent, outcome, previous: gathered.previous });
  view.step = 'recording';
  view.result = result;
  publish();
  await files.recordDailyDocuments.executeWithOptions({ summary: `record ${day}: ${result.alert}` }, [
    { result, catalogue: gathered.forms },
  ]);
  view.step = 'done';
  publish();
  return result;
}
