/**
 * The firm's other resources: SSO links and language preferences of account holders (calls to the
 * brokerage with the firm's keys), maintenance requests and daily document submissions (workflows).
 */
import { z } from 'zod';
import { createSsoUrl, setLanguages } from '../client/brokerage.js';
import { listRuns, runStatus, startMaintenance } from '../client/index.js';
import { existingMaintenance } from '../client/maintenance.js';
import { LANDING_PAGES, LANGUAGE_CODE_PATTERN } from '../eca/index.js';
import type { RunKind } from '../client/index.js';
import type { EcaClient } from '../eca/index.js';
import { BrokerageError } from '../domain/brokerage-errors.js';
import { xmlBrokerage } from '../brokerage/xml/index.js';
import type { Brokerage } from '../brokerage/port.js';
import type { Protocol } from '../domain/protocols.js';
import { FIRM_TYPES } from '../workflows/maintenance/functions.js';
import { ONBOARDING, principalOf, READERS } from './auth.js';
import type { ActiveFirms } from './auth.js';
import type { Api, ContextOf, EngineBase } from './applications.js';
import { contextOf, documentsOf } from './applications.js';
import { FirmNotConfiguredError } from '../client/errors.js';
import { ApiProblem } from './problems.js';
import { IdempotencyHeaders } from './idempotency.js';
import type { FirmBrokerages } from '../runtime/firm-brokerages.js';
import { DocumentUpload, isoTime, problems, queryBoolean } from './schemas.js';

/** The brokerage client of one firm: a service that serves that firm alone (tests, embedding). */
export interface FirmBrokerage {
  csid: string;
  eca: EcaClient;
}

/**
 * The firms the service serves: each firm's brokerage client (SSO links, languages), and whether a firm
 * may take new work. Both throw FirmNotConfiguredError or FirmDisabledError, answered as problems.
 */
export interface ApiFirms extends ActiveFirms {
  /** The firm's XML client, for what only the XML service offers (an account holder's preferred languages). */
  brokerageOf(csid: string): Promise<EcaClient>;
  /** The firm's brokerage, on its protocol (brokerage/port.ts): SSO links, whether an account is the firm's. */
  brokerageFor(csid: string): Promise<Brokerage>;
  /** Resolves when the brokerage lists `accountId` among the firm's accounts; a NOT_FOUND problem otherwise. */
  requireOwnAccount(csid: string, accountId: string): Promise<void>;
  /** The protocol the firm is on now: its maintenance requests are sent on it. */
  protocolOf(csid: string): Promise<Protocol>;
  /** The firm's types for update functions (runtime/firms.ts); empty: not set, any type the caller names. */
  firmTypesOf(csid: string): Promise<readonly string[]>;
}

/**
 * Resolves when the brokerage lists `accountId` among the firm's accounts (brokerage/port.ts `ownsAccount`); a
 * NOT_FOUND problem when it does not, an UNAVAILABLE one with its wait when the question is put off.
 */
async function requireOwn(brokerage: Brokerage, accountId: string): Promise<void> {
  let owned: boolean;
  try {
    owned = await brokerage.ownsAccount(accountId);
  } catch (error) {
    throw deferred(accountId, error);
  }
  if (!owned) throw notTheFirms(accountId);
}

/** The question put off for `waitMs`: the caller is told when to ask again. */
function putOff(accountId: string, error: Error, waitMs: number): ApiProblem {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new ApiProblem(
    'UNAVAILABLE',
    `the brokerage cannot be asked whether account ${accountId} is the firm's now (${error.message}); retry in ${seconds} s`,
    undefined,
    { 'Retry-After': String(seconds) },
  );
}

function notTheFirms(accountId: string): ApiProblem {
  return new ApiProblem('NOT_FOUND', `the brokerage lists no account ${accountId} of this firm`, 'accountId');
}

/** The firm's call budget, or the brokerage's 429 or 503, puts the question off: so does the caller. */
function deferred(accountId: string, error: unknown): unknown {
  const wait = error instanceof BrokerageError ? error.retryAfterMs : undefined;
  return wait === undefined ? error : putOff(accountId, error as Error, wait);
}

/** The firms of the engine's database (runtime/firms.ts), with their brokerage clients. */
export function registeredFirms(brokerages: FirmBrokerages): ApiFirms {
  return {
    brokerageOf: (csid) => brokerages.clientFor(csid),
    brokerageFor: (csid) => brokerages.brokerageFor(csid),
    requireActive: (csid) => brokerages.registry.require(csid),
    requireOwnAccount: async (csid, accountId) => requireOwn(await brokerages.brokerageFor(csid), accountId),
    protocolOf: (csid) => brokerages.protocolOf(csid),
    firmTypesOf: async (csid) => (await brokerages.registry.require(csid)).settings.firmTypes,
  };
}

/**
 * One firm's client; every firm may take new work (there is no registry to say otherwise). Without a
 * client, accounts cannot be checked, and are not: a service for tests and embedding only.
 */
export function singleFirm(brokerage: FirmBrokerage | undefined): ApiFirms {
  const brokerageOf = (csid: string) =>
    brokerage?.csid === csid
      ? Promise.resolve(brokerage.eca)
      : Promise.reject(new FirmNotConfiguredError(csid, 'this service holds no brokerage keys for it'));
  const brokerageFor = async (csid: string) => xmlBrokerage(await brokerageOf(csid), csid);
  return {
    brokerageOf,
    brokerageFor,
    requireActive: () => Promise.resolve(),
    requireOwnAccount: async (csid, accountId) => {
      if (brokerage) await requireOwn(await brokerageFor(csid), accountId);
    },
    protocolOf: () => Promise.resolve('xml'),
    firmTypesOf: () => Promise.resolve([]),
  };
}

const id = z.string().min(1).max(200);

/** One IPv4 or IPv6 address, as zod writes each (every one of them is one `net.isIP` takes). */
const IP_ADDRESS = new RegExp(`^(?:${z.regexes.ipv4.source.slice(1, -1)}|${z.regexes.ipv6.source.slice(1, -1)})$`);

const SsoLinkRequest = z
  .strictObject({
    userName: z.string().min(1).max(100),
    ip: z
      .string()
      .min(2)
      .max(45)
      .regex(IP_ADDRESS, 'is not one IPv4 or IPv6 address')
      .describe("The end user's one IPv4 or IPv6 address: the link works from it only"),
    landing: z
      .enum(LANDING_PAGES.map((page) => page.id) as [string, ...string[]])
      .optional()
      .describe("A landing page of the spec's table"),
  })
  .meta({ id: 'SsoLinkRequest', description: 'A single sign-on link for an account holder, valid 60 seconds.' });

const SsoLink = z
  .object({ url: z.string(), expiresAt: isoTime })
  .meta({ id: 'SsoLink', description: 'Hand it to the end user at once: it is a credential, never stored.' });

/** A short lower-case language code: the spec's rule (client/brokerage.ts `setLanguages` checks it too). */
const languageCode = z.string().regex(LANGUAGE_CODE_PATTERN, 'is not a short lower-case language code (en, zh, fra)');

const LanguagesRequest = z
  .strictObject({ lang1: languageCode, lang2: languageCode.optional() })
  .meta({ id: 'LanguagesRequest', description: 'Preferred languages, short lower-case codes (en, zh, fra).' });

/** A maintenance request's body, on either protocol: a few kilobytes, at most 1 MiB. */
const MAX_BODY_CHARACTERS = 1024 * 1024;

const MaintenanceRequest = z
  .strictObject({
    accountId: z.string().regex(/^[A-Za-z0-9]{1,32}$/, 'is not an account number'),
    firmType: z.enum(FIRM_TYPES),
    functionName: z.string().regex(/^[A-Za-z0-9]{1,64}$/, 'is not an update function name'),
    body: z
      .string()
      .max(MAX_BODY_CHARACTERS)
      .regex(/^\s*(?:<[\s\S]*)?$/, 'is not an XML fragment')
      .optional()
      .describe("For a firm on the XML service: the function element's content, an XML fragment"),
    bodyJson: z
      .record(z.string(), z.unknown())
      .refine((json) => JSON.stringify(json).length <= MAX_BODY_CHARACTERS, 'is larger than 1 MiB')
      .optional()
      .describe(
        "For a firm on the Web API: the JSON of the document's AccountManagementRequests member for the function " +
          '(ChangeBaseCurrency: `{ "newBaseCurrency": "EUR" }`); its accountId is the request\'s',
      ),
    attributes: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/), z.string().max(256)).optional(),
    attachments: z.array(DocumentUpload).max(20).optional(),
    requestKey: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/)
      .optional()
      .describe('Idempotency key: the same key never sends the function twice'),
  })
  .meta({ id: 'MaintenanceRequest', description: 'One update function for an account.' });

const StartedRun = z.object({ workflowId: z.string(), existed: z.boolean() }).meta({ id: 'StartedRun' });

const RunSummary = z
  .object({
    workflowId: z.string(),
    status: z.string(),
    startTime: isoTime,
    closeTime: isoTime.optional(),
    accountId: z.string().optional(),
    functionName: z.string().optional(),
    requestStatus: z.string().optional(),
    alert: z.string().optional(),
  })
  .meta({ id: 'RunSummary' });

const RunDetail = z
  .object({
    workflowId: z.string(),
    status: z.string(),
    startTime: isoTime,
    closeTime: isoTime.optional(),
    detail: z.unknown().optional().describe('The run’s state while it runs, its result once completed'),
    note: z.string().optional(),
  })
  .meta({ id: 'RunDetail' });

const RunParams = z.object({ workflowId: id });
const RunListQuery = z.object({
  accountId: z
    .string()
    .regex(/^[A-Za-z0-9]{1,32}$/)
    .optional(),
  running: queryBoolean.optional(),
});

export function firmRoutes(api: Api, base: EngineBase, firms: ApiFirms): void {
  const ctxOf = contextOf(base);
  api.post('/v1/sso-links', {
    // The link signs its holder on: a retry with the same Idempotency-Key is told, never shown it again.
    config: { roles: ONBOARDING, newWork: true, idempotent: 'secret' },
    schema: {
      tags: ['account holders'],
      operationId: 'createSsoLink',
      summary: 'A single sign-on link for an account holder, bound to their IP',
      headers: IdempotencyHeaders,
      body: SsoLinkRequest,
      // 200, not 201: the link is made at the brokerage; the service keeps nothing a Location could name.
      response: { 200: SsoLink, ...problems(409, 422, 502) },
    },
    handler: async (request, reply) => {
      const link = await createSsoUrl(request.body, await firms.brokerageFor(principalOf(request).csid));
      return reply
        .code(200)
        .header('cache-control', 'no-store')
        .send({ url: link.url, expiresAt: link.expiresAt.toISOString() });
    },
  });
  api.put('/v1/account-holders/:userName/languages', {
    config: { roles: ONBOARDING, newWork: true },
    schema: {
      tags: ['account holders'],
      operationId: 'setLanguages',
      summary: "Set an account holder's preferred languages",
      params: z.object({ userName: z.string().min(1).max(100).regex(/^\S+$/, 'has spaces') }),
      body: LanguagesRequest,
      response: { 204: z.null(), ...problems(502) },
    },
    handler: async (request, reply) => {
      const eca = await firms.brokerageOf(principalOf(request).csid);
      // The answer's format is not in the spec: a call the brokerage refused is an error (EcaError).
      await setLanguages({ userName: request.params.userName, ...request.body }, eca);
      return reply.code(204).send(null);
    },
  });
  api.post('/v1/maintenance-requests', {
    config: {
      roles: ONBOARDING,
      newWork: true,
      idempotent: true,
      location: (body: { workflowId: string }) => `/v1/maintenance-requests/${encodeURIComponent(body.workflowId)}`,
    },
    schema: {
      tags: ['maintenance'],
      operationId: 'startMaintenance',
      summary: 'Send an update function for an account (idempotent by requestKey)',
      headers: IdempotencyHeaders,
      body: MaintenanceRequest,
      response: { 200: StartedRun, 201: StartedRun, ...problems(404, 409, 413, 422, 502, 503) },
    },
    handler: async (request, reply) => {
      const { attachments, bodyJson, ...input } = request.body;
      const ctx = ctxOf(request);
      // A request made before (its key) is that request, whatever the brokerage or the firm's protocol says now:
      // its protocol is the one its body was written for.
      const made =
        input.requestKey !== undefined && (await existingMaintenance(ctx, input.accountId, input.requestKey));
      const protocol = made ? (bodyJson === undefined ? 'xml' : 'webapi') : await firms.protocolOf(ctx.csid);
      bodyFits(protocol, request.body);
      const types = await firms.firmTypesOf(ctx.csid);
      if (types.length > 0 && !types.includes(input.firmType)) {
        throw new ApiProblem(
          'INVALID_INPUT',
          `the firm is of type ${types.join(', ')}, not ${input.firmType}`,
          'firmType',
        );
      }
      // Another firm's account (or none) is refused before any workflow starts: nothing is sent for it.
      if (!made) await firms.requireOwnAccount(ctx.csid, input.accountId);
      const started = await startMaintenance(ctx, {
        ...input,
        protocol,
        ...(protocol === 'webapi' && { body: JSON.stringify(bodyJson ?? {}) }),
        attachments: documentsOf(attachments ?? []),
      });
      return reply.code(started.existed ? 200 : 201).send({ workflowId: started.workflowId, existed: started.existed });
    },
  });
  runRoutes(api, ctxOf, 'maintenance', '/v1/maintenance-requests', 'MaintenanceRequest', 'MaintenanceRequests');
  runRoutes(api, ctxOf, 'documents', '/v1/daily-documents', 'DailyDocuments', 'DailyDocuments');
}

/** A request written for the other protocol is refused, naming the field, before anything is stored or sent. */
function bodyFits(protocol: Protocol, body: z.infer<typeof MaintenanceRequest>): void {
  if (protocol === 'webapi') {
    for (const field of ['body', 'attributes', 'attachments'] as const) {
      if (body[field] !== undefined) {
        throw new ApiProblem(
          'INVALID_INPUT',
          `the firm is on the Web API: the request is its member's JSON in bodyJson (documents inside it), not ${field}`,
          field,
        );
      }
    }
  } else if (body.bodyJson !== undefined) {
    throw new ApiProblem(
      'INVALID_INPUT',
      'the firm is on the XML service: the body is an XML fragment (body)',
      'bodyJson',
    );
  }
}

/** Listing and reading the firm's runs of one kind. */
function runRoutes(api: Api, ctxOf: ContextOf, kind: RunKind, path: string, name: string, plural: string): void {
  const tags = [kind === 'maintenance' ? 'maintenance' : 'daily documents'];
  const iso = (date: Date | undefined) => date?.toISOString();
  api.get(path, {
    config: { roles: READERS },
    schema: {
      tags,
      operationId: `list${plural}`,
      summary: `The firm's ${kind === 'maintenance' ? 'maintenance requests' : 'daily document submissions'}, newest first (200 at most)`,
      querystring: RunListQuery,
      response: { 200: z.object({ runs: z.array(RunSummary) }), ...problems() },
    },
    handler: async (request) => {
      const runs = await listRuns(ctxOf(request), kind, {
        ...request.query,
        running: request.query.running === 'true',
      });
      return {
        runs: runs.map((run) => ({ ...run, startTime: run.startTime.toISOString(), closeTime: iso(run.closeTime) })),
      };
    },
  });
  api.get(`${path}/:workflowId`, {
    config: { roles: READERS },
    schema: {
      tags,
      operationId: `get${name}`,
      summary: 'One run: its status and what it answers',
      params: RunParams,
      response: { 200: RunDetail, ...problems(404) },
    },
    handler: async (request) => {
      const run = await runStatus(ctxOf(request), kind, request.params.workflowId);
      return { ...run, startTime: run.startTime.toISOString(), closeTime: iso(run.closeTime) };
    },
  });
}
