/** Maintenance of open accounts (and questionnaires of pending ones): one `accountMaintenance` workflow per request. */
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { shielded, within } from './abort.js';
import type { WorkflowHandle } from '@temporalio/client';
import { xmlWellFormednessError } from '../eca/index.js';
import { maintenanceRequest, WebApiRequestError } from '../webapi/index.js';
import type { Protocol } from '../domain/protocols.js';
import { FIRM_TYPES, refuseFunction } from '../workflows/maintenance/functions.js';
import type { FirmType } from '../workflows/maintenance/functions.js';
import { ACCOUNT_MAINTENANCE_WORKFLOW, maintenanceWorkflowId } from '../domain/workflow-ids.js';
import type { accountMaintenance } from '../workflows/maintenance/workflow.js';
import type { EngineContext } from './context.js';
import { readInput, storeDocuments } from './documents.js';
import type { DocumentInput } from './documents.js';
import { EngineError, InvalidInputError } from './errors.js';
import { startOnce } from './start-once.js';
import { EcaAccountId, EcaCsid, EcaUpdateFunction } from '../domain/search-attributes.js';

export interface StartMaintenanceInput {
  accountId: string;
  /** The firm's type (fully disclosed / advisor vs non-disclosed): decides which functions it may send. */
  firmType: string;
  /** A function of the service's tables, e.g. `ChangeBaseCurrency`. */
  functionName: string;
  /**
   * The protocol it is sent on (the firm's; default `xml`). On `webapi` the body is the JSON of the
   * document's member for the function (`{ "newBaseCurrency": "EUR" }`), its `accountId` set by the engine, and
   * there are no attributes or attachments (documents go inside the JSON).
   */
  protocol?: Protocol;
  /**
   * The function element's content: an XML fragment (or on the Web API the member's JSON), as text or a file
   * path; empty for functions without one.
   */
  body?: string;
  attributes?: Record<string, string>;
  attachments?: DocumentInput[];
  /** The caller's key of this request: the same key never sends the function twice. Random by default. */
  requestKey?: string;
}

export interface StartedMaintenance {
  handle: WorkflowHandle<typeof accountMaintenance>;
  workflowId: string;
  existed: boolean;
}

/** An update body XML larger than this is refused before it is read (a body is a few kilobytes). */
const MAX_BODY_BYTES = 1024 * 1024;

async function readBody(body: string | undefined, what: string): Promise<string> {
  if (body === undefined) return '';
  if (/^\s*[<{]/.test(body) || body.trim() === '') {
    if (Buffer.byteLength(body) > MAX_BODY_BYTES) throw new InvalidInputError('body', `${what} is larger than 1 MiB`);
    return body;
  }
  return new TextDecoder().decode((await readInput(body, what, MAX_BODY_BYTES)).bytes);
}

/** The body as it is stored: the XML fragment checked for well-formedness, or the Web API member's JSON checked. */
async function checkedBody(input: StartMaintenanceInput): Promise<string> {
  if (input.protocol !== 'webapi') {
    const bodyXml = await readBody(input.body, 'body XML');
    if (bodyXml.trim() !== '') {
      const problem = xmlWellFormednessError(`<fragment>${bodyXml}</fragment>`);
      if (problem) throw new InvalidInputError('body', `malformed XML: ${problem}`);
    }
    return bodyXml;
  }
  if (input.attributes && Object.keys(input.attributes).length > 0) {
    throw new InvalidInputError('attributes', 'on the Web API, the fields go in the body (the JSON of its member)');
  }
  if (input.attachments && input.attachments.length > 0) {
    throw new InvalidInputError(
      'attachments',
      "on the Web API, documents go inside the body (the document's Document objects)",
    );
  }
  const text = await readBody(input.body, 'body JSON');
  let body: unknown = {};
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text);
    } catch (error) {
      throw new InvalidInputError('body', `is not JSON: ${(error as Error).message}`);
    }
  }
  try {
    maintenanceRequest(input.functionName, input.accountId, body);
  } catch (error) {
    if (error instanceof WebApiRequestError) {
      throw new InvalidInputError(error.parameter, error.message.replace(`${error.parameter}: `, ''));
    }
    throw error;
  }
  return JSON.stringify(body);
}

/** Starts one update function for an account; refused here, before anything is stored or sent, when the firm may not use it. */
export async function startMaintenance(ctx: EngineContext, input: StartMaintenanceInput): Promise<StartedMaintenance> {
  return within(ctx, async () => {
    const refusal = refuseFunction(input.functionName, input.firmType);
    if (refusal) {
      throw refusal.type === 'InvalidArgument'
        ? new InvalidInputError('firmType', refusal.message)
        : new EngineError('NOT_ALLOWED_IN_STATE', refusal.message);
    }
    if (!/^[A-Za-z0-9]+$/.test(input.accountId)) {
      throw new InvalidInputError('accountId', `"${input.accountId}" is not an account number`);
    }
    const bodyText = await checkedBody(input);
    const requestKey = input.requestKey ?? randomUUID();
    // Once its body is stored, the start runs to its end even when the caller's signal aborts.
    return shielded(ctx, () => storeAndStart(ctx, input, bodyText, requestKey));
  });
}

async function storeAndStart(
  ctx: EngineContext,
  input: StartMaintenanceInput,
  bodyText: string,
  requestKey: string,
): Promise<StartedMaintenance> {
  const workflowId = maintenanceWorkflowId(ctx.csid, input.accountId, requestKey);
  // The body and attachments (security answers, tax forms) are the request's: released once its
  // workflow has closed (activities/retention.ts), recorded before they are stored.
  await ctx.store.releaseWhenClosed(workflowId);
  const owner = { owner: workflowId };
  const body = bodyText.trim() === '' ? undefined : await ctx.store.put(new TextEncoder().encode(bodyText), owner);
  const attachments = (await storeDocuments(ctx.store, input.attachments ?? [], workflowId)).map(
    ({ formNumber: _formNumber, ...attachment }) => attachment,
  );
  const { handle, existed } = await startOnce<typeof accountMaintenance>(ctx, ACCOUNT_MAINTENANCE_WORKFLOW, {
    workflowId,
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    // Set at start too (the workflow upserts the same): a read right after the start finds it in its firm.
    typedSearchAttributes: [
      { key: EcaCsid, value: ctx.csid },
      { key: EcaAccountId, value: input.accountId },
      { key: EcaUpdateFunction, value: input.functionName },
    ],
    args: [
      {
        csid: ctx.csid,
        accountId: input.accountId,
        firmType: input.firmType as FirmType,
        functionName: input.functionName,
        ...(input.protocol === 'webapi' && { protocol: 'webapi' as const }),
        body,
        attributes: input.attributes,
        attachments,
        requestKey,
        ...(ctx.pollIntervalMs === undefined
          ? {}
          : { firstPollInterval: `${ctx.pollIntervalMs}ms`, maxPollInterval: `${ctx.pollIntervalMs}ms` }),
      },
    ],
  });
  return { handle, workflowId, existed };
}

/**
 * Whether the firm already made the request of this account and key: a start of it answers with that one,
 * so nothing about the account needs asking again.
 */
export async function existingMaintenance(ctx: EngineContext, accountId: string, requestKey: string): Promise<boolean> {
  return within(ctx, async () => {
    try {
      const attributes = (
        await ctx.client.workflow.getHandle(maintenanceWorkflowId(ctx.csid, accountId, requestKey)).describe()
      ).typedSearchAttributes;
      return attributes.get(EcaCsid) === ctx.csid;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
  });
}

export { FIRM_TYPES };
