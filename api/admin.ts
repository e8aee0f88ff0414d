/**
 * The deployment's own administration, for keys of the `admin` role only: the firms it serves
 * (runtime/firms.ts) and the API keys of every firm. No route here reads or changes application data,
 * and no answer carries a firm's keys or an API key's secret (but the new key's, once).
 */
import { z } from 'zod';
import { createApiKey, listApiKeys, revokeApiKey } from '../runtime/api-keys.js';
import type { ApiKeyRecord } from '../runtime/api-keys.js';
import type { Queryable } from '../runtime/database/index.js';
import type { FirmRecord, FirmRegistry } from '../runtime/firms.js';
import { FirmNotConfiguredError } from '../client/errors.js';
import type { ApiRole } from './auth.js';
import type { Api } from './applications.js';
import { ApiProblem } from './problems.js';
import { IdempotencyHeaders } from './idempotency.js';
import { isoTime, problems } from './schemas.js';

const ADMIN: readonly ApiRole[] = ['admin'];
const tags = ['administration'];

const armored = (kind: string) =>
  z
    .string()
    .max(64 * 1024)
    .refine((text) => text.includes(`-----BEGIN PGP ${kind}`), `is not an armored OpenPGP ${kind.toLowerCase()}`);

const FirmKeysInput = z
  .strictObject({
    firmPrivateKey: armored('PRIVATE KEY BLOCK')
      .optional()
      .describe("The firm's OpenPGP private key, armored, for the XML service (none for a firm on the Web API alone)"),
    passphrase: z.string().max(1024).optional(),
    brokeragePublicKey: armored('PUBLIC KEY BLOCK')
      .optional()
      .describe("The brokerage's OpenPGP public key, armored, with firmPrivateKey"),
    webApiPrivateKey: z
      .string()
      .max(64 * 1024)
      .refine((text) => text.includes('-----BEGIN'), 'is not a PEM private key')
      .optional()
      .describe("The RSA private key (PEM) of the firm's Web API client, for a firm on the Web API"),
  })
  .meta({ id: 'FirmKeys', description: 'Stored sealed with the codec keys; never returned by any read.' });

const FirmKeysRotation = FirmKeysInput.extend({
  dropOpenPgpKeys: z
    .boolean()
    .optional()
    .describe(
      "Keys without OpenPGP keys drop the firm's only with this: once its last application on the XML service has ended",
    ),
}).meta({ id: 'FirmKeysRotation', description: "A firm's new keys, replacing all of them." });

const FirmSettingsInput = z
  .record(z.string(), z.unknown())
  .describe(
    'environment (qa, prod), protocol (xml, webapi), webApi (baseUrl, clientId, keyId, assertionAudience, scopes), baseUrl, preferenceUrl, firmTypes, callsPerSecond, callsPerSecondByOperation, maintenanceWindows, maintenanceTimeZone',
  );

const Firm = z
  .object({
    csid: z.string(),
    name: z.string(),
    settings: z.record(z.string(), z.unknown()),
    managedBy: z.enum(['environment', 'database']),
    keys: z.object({
      version: z.number().int(),
      rotatedAt: isoTime,
      stored: z.boolean(),
      openPgp: z.boolean().describe('Whether the keys hold OpenPGP keys (the XML service needs them)'),
    }),
    disabled: z.object({ at: isoTime, reason: z.string() }).optional(),
    createdAt: isoTime,
    updatedAt: isoTime,
  })
  .meta({ id: 'Firm', description: 'A firm this deployment serves: never its keys.' });

const ApiKey = z
  .object({
    id: z.string(),
    csid: z.string(),
    role: z.string(),
    name: z.string(),
    createdAt: isoTime,
    lastUsedAt: isoTime.optional(),
    revokedAt: isoTime.optional(),
  })
  .meta({ id: 'ApiKey' });

const CsidParams = z.object({ csid: z.string().min(1).max(64) });

function firmOf({ disabled, ...record }: FirmRecord): z.output<typeof Firm> {
  return {
    ...record,
    keys: { ...record.keys, rotatedAt: record.keys.rotatedAt.toISOString() },
    ...(disabled && { disabled: { ...disabled, at: disabled.at.toISOString() } }),
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}

function keyOf(record: ApiKeyRecord): z.output<typeof ApiKey> {
  return {
    ...record,
    createdAt: record.createdAt.toISOString(),
    lastUsedAt: record.lastUsedAt?.toISOString(),
    revokedAt: record.revokedAt?.toISOString(),
  };
}

/** An unknown firm is a resource that is not there (404), not a refusal of work (403). */
async function known<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof FirmNotConfiguredError) throw new ApiProblem('NOT_FOUND', error.message, 'csid');
    throw error;
  }
}

export function adminRoutes(api: Api, registry: FirmRegistry, database: Queryable): void {
  firmRoutes(api, registry);
  firmChangeRoutes(api, registry);
  apiKeyRoutes(api, database);
}

const firmRoute = { config: { roles: ADMIN } } as const;

function firmRoutes(api: Api, registry: FirmRegistry): void {
  api.get('/v1/firms', {
    ...firmRoute,
    schema: {
      tags,
      operationId: 'listFirms',
      summary: 'The firms this deployment serves (admin)',
      response: { 200: z.object({ firms: z.array(Firm) }), ...problems() },
    },
    handler: async () => ({ firms: (await registry.list()).map(firmOf) }),
  });
  api.post('/v1/firms', {
    config: {
      ...firmRoute.config,
      idempotent: true,
      location: (body: { csid: string }) => `/v1/firms/${encodeURIComponent(body.csid)}`,
    },
    schema: {
      tags,
      operationId: 'addFirm',
      summary: 'Add a firm with its keys and settings (admin)',
      headers: IdempotencyHeaders,
      body: z.strictObject({
        csid: z.string().min(1).max(64),
        name: z.string().min(1).max(200).optional(),
        settings: FirmSettingsInput.optional(),
        keys: FirmKeysInput,
      }),
      response: { 201: Firm, ...problems(409, 422) },
    },
    handler: async (request, reply) => {
      const { csid, name, settings, keys } = request.body;
      const record = await registry.add({ csid, name: name ?? csid, settings, keys });
      return reply
        .code(201)
        .header('location', `/v1/firms/${encodeURIComponent(csid)}`)
        .send(firmOf(record));
    },
  });
  api.get('/v1/firms/:csid', {
    ...firmRoute,
    schema: {
      tags,
      operationId: 'getFirm',
      summary: "A firm's settings and key version (admin)",
      params: CsidParams,
      response: { 200: Firm, ...problems(404) },
    },
    handler: async (request) => {
      const record = await registry.get(request.params.csid);
      if (!record) throw new ApiProblem('NOT_FOUND', `no firm ${request.params.csid}`, 'csid');
      return firmOf(record);
    },
  });
}

function firmChangeRoutes(api: Api, registry: FirmRegistry): void {
  api.patch('/v1/firms/:csid', {
    ...firmRoute,
    schema: {
      tags,
      operationId: 'updateFirm',
      summary: "Change a firm's name or settings; settings not given stay (admin)",
      params: CsidParams,
      body: z.strictObject({ name: z.string().min(1).max(200).optional(), settings: FirmSettingsInput.optional() }),
      response: { 200: Firm, ...problems(404) },
    },
    handler: (request) => known(async () => firmOf(await registry.update(request.params.csid, request.body))),
  });
  api.put('/v1/firms/:csid/keys', {
    ...firmRoute,
    schema: {
      tags,
      operationId: 'rotateFirmKeys',
      summary: "Replace a firm's keys: every worker uses them within seconds (admin)",
      params: CsidParams,
      body: FirmKeysRotation,
      response: { 200: Firm, ...problems(404) },
    },
    handler: (request) =>
      known(async () => {
        const { dropOpenPgpKeys, ...keys } = request.body;
        return firmOf(await registry.rotateKeys(request.params.csid, keys, { dropOpenPgpKeys }));
      }),
  });
  api.post('/v1/firms/:csid/disable', {
    ...firmRoute,
    schema: {
      tags,
      operationId: 'disableFirm',
      summary: 'Disable a firm: no new work, its running applications stop in blocked (admin)',
      params: CsidParams,
      body: z.strictObject({ reason: z.string().min(1).max(500) }),
      response: { 200: Firm, ...problems(404) },
    },
    handler: (request) => known(async () => firmOf(await registry.disable(request.params.csid, request.body.reason))),
  });
  api.post('/v1/firms/:csid/enable', {
    ...firmRoute,
    schema: {
      tags,
      operationId: 'enableFirm',
      summary: 'Let a disabled firm work again (admin)',
      params: CsidParams,
      response: { 200: Firm, ...problems(404) },
    },
    handler: (request) => known(async () => firmOf(await registry.enable(request.params.csid))),
  });
}

function apiKeyRoutes(api: Api, database: Queryable): void {
  api.get('/v1/api-keys', {
    config: { roles: ADMIN },
    schema: {
      tags,
      operationId: 'listApiKeys',
      summary: 'API keys, of one firm (csid) or all: never their secrets (admin)',
      querystring: z.object({ csid: z.string().min(1).max(64).optional() }),
      response: { 200: z.object({ keys: z.array(ApiKey) }), ...problems() },
    },
    handler: async (request) => ({ keys: (await listApiKeys(database, request.query)).map(keyOf) }),
  });
  api.post('/v1/api-keys', {
    config: {
      roles: ADMIN,
      // Its answer holds the key: a retry with the same Idempotency-Key is told, never shown it again.
      idempotent: 'secret',
      location: (body: { record: { id: string } }) => `/v1/api-keys/${body.record.id}`,
    },
    schema: {
      tags,
      operationId: 'createApiKey',
      summary: 'A new API key: its secret is in this answer only (admin)',
      headers: IdempotencyHeaders,
      body: z.strictObject({
        csid: z.string().min(1).max(64).optional().describe('The firm; none for an admin key'),
        role: z.enum(['onboarding', 'staff', 'ops', 'admin']),
        name: z.string().min(1).max(200),
      }),
      response: { 201: z.object({ key: z.string(), record: ApiKey }), ...problems(409, 422) },
    },
    handler: async (request, reply) => {
      const { key, record } = await createApiKey(database, request.body);
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ key, record: keyOf(record) });
    },
  });
  api.get('/v1/api-keys/:id', {
    config: { roles: ADMIN },
    schema: {
      tags,
      operationId: 'getApiKey',
      summary: 'One API key: never its secret (admin)',
      params: z.object({ id: z.string().min(1).max(64) }),
      response: { 200: ApiKey, ...problems(404) },
    },
    handler: async (request) => {
      // A deployment holds few keys: read from the list, as `eca api-keys list` does.
      const found = (await listApiKeys(database)).find((record) => record.id === request.params.id);
      if (!found) throw new ApiProblem('NOT_FOUND', `no API key ${request.params.id}`, 'id');
      return keyOf(found);
    },
  });
  api.delete('/v1/api-keys/:id', {
    config: { roles: ADMIN },
    schema: {
      tags,
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key for good (admin)',
      params: z.object({ id: z.string().min(1).max(64) }),
      response: { 204: z.null(), ...problems(404) },
    },
    handler: async (request, reply) => {
      if (!(await revokeApiKey(database, request.params.id))) {
        throw new ApiProblem('NOT_FOUND', `no API key ${request.params.id}`, 'id');
      }
      return reply.code(204).send(null);
    },
  });
}
