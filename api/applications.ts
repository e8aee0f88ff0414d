/**
 * The applications resource: start, read, list, and the messages an onboarding system and staff send.
 * Every route works in the API key's firm: the engine context is built from the key, never the request.
 */
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { IdempotencyHeaders } from './idempotency.js';
import { callSignalOf } from './call-timeout.js';
import { z } from 'zod';
import {
  abandon,
  applicationDocuments,
  getState,
  listApplicationsPage,
  pollNow,
  provideDocuments,
  reset,
  resubmit,
  retry,
  startApplication,
  takeCredentials,
} from '../client/index.js';
import type { DocumentInput, EngineContext } from '../client/index.js';
import { applicationWorkflowId } from '../domain/workflow-ids.js';
import type { ApplicationStateView } from '../workflows/application/messages.js';
import { ONBOARDING, principalOf, READERS, STAFF } from './auth.js';
import {
  AbandonRequest,
  Application,
  ApplicationPage,
  ApplicationParams,
  Credentials,
  ListQuery,
  problems,
  ProvideDocumentsRequest,
  ResubmitRequest,
  StartApplicationRequest,
  StartedApplication,
} from './schemas.js';

/** What the service holds for every firm: Temporal, the document store, lifecycle settings. */
export type EngineBase = Omit<EngineContext, 'csid'>;

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/**
 * The workflow's view as the API shows it: times in ISO 8601, credentials as "waiting to be taken", the
 * documents it waits for (client/application-documents.ts), and the workflow id, which is derived from the
 * firm and the external id (domain/workflow-ids.ts).
 */
export function applicationOf(view: ApplicationStateView): z.output<typeof Application> {
  const {
    credentials,
    lastPollAt,
    nextPollAt,
    inDoubt,
    blocked,
    transitions,
    deadline,
    staffNotices: _,
    ...rest
  } = view;
  return {
    ...rest,
    // The canonical form's digest (client/canonical-xml.ts) stays the engine's: the API shows the file's.
    application: { sha1: view.application.sha1, length: view.application.length },
    workflowId: applicationWorkflowId(view.csid, view.externalId),
    credentialsAvailable: credentials !== undefined,
    documents: applicationDocuments(view),
    lastPollAt: iso(lastPollAt),
    nextPollAt: iso(nextPollAt),
    ...(inDoubt && { inDoubt: { ...inDoubt, since: iso(inDoubt.since) } }),
    ...(blocked && { blocked: { ...blocked, since: new Date(blocked.since).toISOString() } }),
    transitions: transitions.map((t) => ({ ...t, at: new Date(t.at).toISOString() })),
    ...(deadline && {
      deadline: { ...deadline, due: iso(deadline.due)!, nextReminderAt: iso(deadline.nextReminderAt) },
    }),
  };
}

const bytes = (base64: string) => new Uint8Array(Buffer.from(base64, 'base64'));

/** Uploaded PDFs as the client API takes them: always bytes (a string would be read as a path). */
export const documentsOf = (uploads: z.output<typeof ProvideDocumentsRequest>['documents']): DocumentInput[] =>
  uploads.map((upload) => ({
    formNumber: upload.formNumber,
    fileName: upload.fileName,
    data: bytes(upload.contentBase64),
  }));

const xmlBytes = (xml: string) => new TextEncoder().encode(xml);

const tags = ['applications'];

/** Where an application is read: by its external id. */
const applicationPath = (externalId: string) => `/v1/applications/${encodeURIComponent(externalId)}`;
const empty = z.object({}).strict();

const read = async (ctx: EngineContext, reference: string) => applicationOf(await getState(ctx, reference));

export type Api = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;
export type ContextOf = (request: FastifyRequest) => EngineContext;

/** A request's engine context: the service's, in the API key's firm (never one the request names). */
export const contextOf =
  (base: EngineBase): ContextOf =>
  (request) => {
    // A firm's own sweep slot (runtime/firms.ts) over the deployment's, for the sweep its start ensures.
    const sweepInterval = request.firm?.settings.sweepInterval;
    return {
      ...base,
      ...(sweepInterval !== undefined && { sweepInterval }),
      csid: principalOf(request).csid,
      signal: callSignalOf(request),
    };
  };

export function applicationRoutes(app: FastifyInstance, base: EngineBase): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const ctxOf = contextOf(base);
  startAndReadRoutes(api, ctxOf);
  messageRoutes(api, ctxOf);
  pollAndCredentialRoutes(api, ctxOf);
}

function startAndReadRoutes(api: Api, ctxOf: ContextOf): void {
  api.post('/v1/applications', {
    config: {
      roles: ONBOARDING,
      newWork: true,
      idempotent: true,
      location: (body: { application: { externalId: string } }) => applicationPath(body.application.externalId),
    },
    schema: {
      tags,
      operationId: 'startApplication',
      summary: 'Start an application (idempotent by external id)',
      headers: IdempotencyHeaders,
      body: StartApplicationRequest,
      response: { 200: StartedApplication, 201: StartedApplication, ...problems(409, 413, 422) },
    },
    handler: async (request, reply) => {
      const ctx = ctxOf(request);
      const { documents, applicationXml } = request.body;
      const started = await startApplication(ctx, {
        applicationXml: xmlBytes(applicationXml),
        documents: documentsOf(documents ?? []),
      });
      // Answered from what the start knows: no query of a workflow that has not run its first task yet.
      const application = applicationOf(started.state);
      return reply.code(started.existed ? 200 : 201).send({ existed: started.existed, application });
    },
  });

  api.get('/v1/applications', {
    config: { roles: READERS },
    schema: {
      tags,
      operationId: 'listApplications',
      summary: "List the firm's applications, newest first, a page at a time",
      querystring: ListQuery,
      response: { 200: ApplicationPage, ...problems() },
    },
    handler: async (request) => {
      const { pageSize, cursor, running, ...filter } = request.query;
      const page = await listApplicationsPage(
        ctxOf(request),
        { ...filter, running: running === 'true' },
        { pageSize, cursor },
      );
      return {
        applications: page.applications.map(({ csid: _, startTime, closeTime, ...entry }) => ({
          ...entry,
          startTime: startTime.toISOString(),
          closeTime: closeTime?.toISOString(),
        })),
        ...(page.cursor === undefined ? {} : { cursor: page.cursor }),
      };
    },
  });

  api.get('/v1/applications/:reference', {
    config: { roles: READERS },
    schema: {
      tags,
      operationId: 'getApplication',
      summary: 'Read an application',
      params: ApplicationParams,
      response: { 200: Application, ...problems(404) },
    },
    handler: async (request) => read(ctxOf(request), request.params.reference),
  });
}

function messageRoutes(api: Api, ctxOf: ContextOf): void {
  /** A message to one application that answers its new state (`refusals`: its own problems, described). */
  const action = <B extends z.ZodType>(
    path: string,
    operationId: string,
    summary: string,
    roles: typeof STAFF,
    body: B,
    send: (ctx: EngineContext, reference: string, body: z.output<B>) => Promise<ApplicationStateView>,
    refusals: { statuses: number[]; description: string } = { statuses: [], description: '' },
  ) =>
    api.post(`/v1/applications/:reference/${path}`, {
      config: { roles },
      schema: {
        tags,
        operationId,
        summary,
        ...(refusals.description && { description: refusals.description }),
        params: ApplicationParams,
        body,
        response: { 200: Application, ...problems(404, 409, 413, ...refusals.statuses) },
      },
      handler: async (request) =>
        applicationOf(await send(ctxOf(request), request.params.reference, request.body as z.output<B>)),
    });

  action(
    'documents',
    'provideDocuments',
    'Provide the PDFs the application asks for',
    ONBOARDING,
    ProvideDocumentsRequest,
    (ctx, ref, body) => provideDocuments(ctx, ref, documentsOf(body.documents)),
    {
      statuses: [422],
      description:
        'A PDF that is the very file the brokerage rejected for its form (the one last sent for it) is refused with `422` `DOCUMENT_REJECTED`, whose `detail` names the form and the rejection: nothing is taken, and the form stays `provided: false` until a different file arrives.',
    },
  );
  action(
    'resubmit',
    'resubmitApplication',
    'Send a corrected application XML',
    ONBOARDING,
    ResubmitRequest,
    (ctx, ref, body) => resubmit(ctx, ref, xmlBytes(body.applicationXml)),
  );
  action('abandon', 'abandonApplication', 'Abandon the application (staff)', STAFF, AbandonRequest, (ctx, ref, body) =>
    abandon(ctx, ref, body.reason),
  );
  action('reset', 'resetApplication', 'Reset the application to start over (staff)', STAFF, empty, (ctx, ref) =>
    reset(ctx, ref),
  );
  action('retry', 'retryApplication', 'Retry a blocked or unconfirmed step (staff)', STAFF, empty, (ctx, ref) =>
    retry(ctx, ref),
  );
}

function pollAndCredentialRoutes(api: Api, ctxOf: ContextOf): void {
  api.post('/v1/applications/:reference/poll-now', {
    config: { roles: ONBOARDING },
    schema: {
      tags,
      operationId: 'pollApplicationNow',
      summary: "Read the account's status now instead of at the next poll",
      params: ApplicationParams,
      body: empty.optional(),
      response: { 202: z.null(), ...problems(404, 409) },
    },
    handler: async (request, reply) => {
      await pollNow(ctxOf(request), request.params.reference);
      return reply.code(202).send(null);
    },
  });

  api.post('/v1/applications/:reference/credentials', {
    config: { roles: STAFF },
    schema: {
      tags,
      operationId: 'takeCredentials',
      summary: 'Take the temporary credentials, once (staff)',
      params: ApplicationParams,
      body: empty.optional(),
      response: { 200: Credentials, ...problems(404) },
    },
    handler: async (request, reply) => {
      const taken = await takeCredentials(ctxOf(request), request.params.reference);
      return reply.header('cache-control', 'no-store').send(taken);
    },
  });
}
