/**
 * The onboarding system the demo plays, two ways: over HTTP through the onboarding API (api/), as a
 * partner firm's system in any language does, or in process through the TypeScript client.
 */
import type { Database } from '../runtime/database/index.js';
import type { CodecKeyring } from '../codec/keyring.js';
import type { EngineBase } from '../api/applications.js';
import { abandon, getState, provideDocuments, reset, resubmit, startApplication } from '../client/applications.js';
import type { EngineContext } from '../client/context.js';
import type { TaskView } from '../domain/account.js';
import { startLocalApi } from './local-api.js';

/** What the demo reads of an application. */
export interface FleetApplication {
  lifecycleState: string;
  done: boolean;
  pendingTasks: TaskView[];
}

export interface OnboardingSystem {
  start(applicationXml: string): Promise<void>;
  read(externalId: string): Promise<FleetApplication>;
  provideDocuments(
    externalId: string,
    documents: Array<{ formNumber: string; data: Uint8Array }>,
  ): Promise<FleetApplication>;
  resubmit(externalId: string, applicationXml: string): Promise<FleetApplication>;
  abandon(externalId: string, reason: string): Promise<FleetApplication>;
  reset(externalId: string): Promise<FleetApplication>;
}

/** In process, through the TypeScript client. */
export function clientSystem(ctx: EngineContext): OnboardingSystem {
  return {
    start: async (applicationXml) => void (await startApplication(ctx, { applicationXml })),
    read: (externalId) => getState(ctx, externalId),
    provideDocuments: (externalId, documents) => provideDocuments(ctx, externalId, documents),
    resubmit: (externalId, xml) => resubmit(ctx, externalId, xml),
    abandon: (externalId, reason) => abandon(ctx, externalId, reason),
    reset: (externalId) => reset(ctx, externalId),
  };
}

/** Over HTTP: the onboarding system's key for what it does, a staff key for abandon and reset. */
export function httpSystem(baseUrl: string, keys: { onboarding: string; staff: string }): OnboardingSystem {
  /** One request; answers its JSON body (an Application, or a StartedApplication for a start). */
  const call = async <T = FleetApplication>(key: string, method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await response.json()) as T & { detail?: string };
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${answer.detail ?? ''}`);
    return answer;
  };
  const path = (externalId: string, action = '') =>
    `/v1/applications/${encodeURIComponent(externalId)}${action ? `/${action}` : ''}`;
  return {
    start: async (applicationXml) =>
      void (await call<unknown>(keys.onboarding, 'POST', '/v1/applications', { applicationXml })),
    read: (externalId) => call(keys.onboarding, 'GET', path(externalId)),
    provideDocuments: (externalId, documents) =>
      call(keys.onboarding, 'POST', path(externalId, 'documents'), {
        documents: documents.map(({ formNumber, data }) => ({
          formNumber,
          contentBase64: Buffer.from(data).toString('base64'),
        })),
      }),
    resubmit: (externalId, applicationXml) =>
      call(keys.onboarding, 'POST', path(externalId, 'resubmit'), { applicationXml }),
    abandon: (externalId, reason) => call(keys.staff, 'POST', path(externalId, 'abandon'), { reason }),
    reset: (externalId) => call(keys.staff, 'POST', path(externalId, 'reset'), {}),
  };
}

/** The onboarding API in this process (scripts/local-api.ts), with an onboarding and a staff key of `csid`. */
export async function startDemoApi(
  engine: EngineBase,
  csid: string,
  database: Database,
  keyring?: CodecKeyring,
): Promise<{ url: string; onboardingKey: string; system: OnboardingSystem; close(): Promise<void> }> {
  const api = await startLocalApi(engine, {
    csid,
    roles: ['onboarding', 'staff'],
    rateLimitPerMinute: 1_000_000,
    database,
    keyring,
  });
  return {
    url: api.url,
    onboardingKey: api.keys.onboarding!,
    system: httpSystem(api.url, { onboarding: api.keys.onboarding!, staff: api.keys.staff! }),
    close: api.close,
  };
}
