/**
 * One brokerage client per firm, built from the firm's record (runtime/firms.ts) and rebuilt when its keys
 * or settings change: what every worker's activities and the API's SSO links use. `dispatcher()` is one
 * EcaClient for all firms: each call goes out on the client of the firm its request names (`CSID`), which
 * the activities take from the workflow that calls them.
 */
import { createEcaClient } from '../eca/index.js';
import type { EcaClient, EcaClientOptions, EcaOperation } from '../eca/index.js';
import { callBudgetOf, createCallBudget, pacesCalls } from './call-budget.js';
import type { Database } from './database/index.js';
import type { ActiveFirm, EnvironmentFirm, FirmRegistry } from './firms.js';
import { armoredKeyText, checkFirmSettings, holdsOpenPgpKeys, refusedBrokerageUrl } from './firm-settings.js';
import type { FirmSettings } from './firm-settings.js';
import { brokerageFetch, checkedFetch } from './checked-fetch.js';
import type { Resolver } from './checked-fetch.js';
import { ConfigurationError } from './config-error.js';
import { FirmInputError, FirmLookupError, FirmNotConfiguredError, isFirmError } from './firm-errors.js';
import { WebApiClient } from '../webapi/index.js';
import type { WebApiClientOptions } from '../webapi/index.js';
import type { Protocol } from './firm-settings.js';
import type { WorkerConfig } from './config.js';
import { webApiBrokerage } from '../brokerage/webapi/index.js';
import { WebApiSweepReads } from '../brokerage/webapi/sweep-reads.js';
import { xmlBrokerage } from '../brokerage/xml/index.js';
import type { Brokerage } from '../brokerage/port.js';

export interface FirmBrokerageOptions {
  /** Each call's abort signal (the worker's activity attempt's, activities/attempt-signal.ts). */
  signal?: () => AbortSignal | undefined;
  /** OpenPGP threads per firm's client (EcaClientOptions.cryptoThreads). */
  cryptoThreads?: number;
  timeoutMs?: number;
  /** A call whose budget slot is further away is put off (runtime/call-budget.ts). */
  callWaitMaxMs?: number;
  ssoAllowInsecureLoopback?: boolean;
  /** Where the firms' call budgets are kept. */
  database: Database;
  /**
   * The transport of every brokerage call (tests); by default {@link brokerageFetch}, which connects only to
   * addresses a brokerage may have and never follows a redirect.
   */
  fetch?: typeof fetch;
  /** How the default transport resolves names (tests); the system's resolver unless given. */
  resolve?: Resolver;
  /** Told of every Web API call as it ends (the worker's metrics). */
  onWebApiCall?: WebApiClientOptions['onCall'];
  /**
   * Wraps each firm's XML client as it is built (the worker's metrics): every call through these brokerages,
   * the dispatcher's and the port's, is counted once.
   */
  instrumentEca?: (eca: EcaClient) => EcaClient;
}

/**
 * A firm's settings whose brokerage URL is refused (a row written before the rules, runtime/firm-settings.ts):
 * its client is not built, and nothing is sent; the error names the setting.
 */
function refuseStoredUrls(csid: string, settings: FirmSettings, fields: readonly string[]): void {
  const refused = refusedBrokerageUrl(settings, fields);
  if (refused) {
    throw new FirmNotConfiguredError(
      csid,
      `its setting ${refused.field} is refused (${refused.problem}): change it (eca firms update ${csid}, or PATCH /v1/firms/${csid})`,
    );
  }
}

export class FirmBrokerages {
  private readonly clients = new Map<string, { version: string; eca: EcaClient }>();
  private readonly webApiClients = new Map<string, { version: string; client: WebApiClient }>();
  /** Every brokerage call's transport, on both protocols. */
  private readonly fetch: typeof fetch;
  /** What this worker keeps of the Web API firms' accounts between the status sweep's slots. */
  private readonly webApiSweeps = new WebApiSweepReads();

  constructor(
    readonly registry: FirmRegistry,
    private readonly options: FirmBrokerageOptions,
  ) {
    this.fetch =
      options.fetch ??
      (options.resolve ? checkedFetch({ resolve: options.resolve, what: 'a brokerage' }) : brokerageFetch);
  }

  /** The firm's client; FirmNotConfiguredError or FirmDisabledError when it may not call. */
  async clientFor(csid: string): Promise<EcaClient> {
    const firm = await this.registry.active(csid);
    const built = this.clients.get(csid);
    if (built?.version === firm.version) return built.eca;
    const eca = this.build(firm);
    this.clients.set(csid, { version: firm.version, eca });
    return eca;
  }

  /**
   * Each firm on the protocol its settings name (activities/protocol-router.ts): its protocol, its Web API
   * client, its brokerage on its protocol (`brokerageFor`).
   */
  protocols(): {
    protocolOf: (csid: string) => Promise<Protocol>;
    clientFor: (csid: string) => Promise<WebApiClient>;
    brokerageFor: (csid: string) => Promise<Brokerage>;
  } {
    return {
      protocolOf: (csid) => this.protocolOf(csid),
      clientFor: (csid) => this.webApiClientFor(csid),
      brokerageFor: (csid) => this.brokerageFor(csid),
    };
  }

  /** The protocol the firm is on (its settings' `protocol`). */
  async protocolOf(csid: string): Promise<Protocol> {
    return (await this.registry.require(csid)).settings.protocol;
  }

  /**
   * The firm's Web API client; FirmNotConfiguredError when its settings name none or its keys hold no Web API
   * private key (nothing is sent then), FirmDisabledError when it may not call.
   */
  async webApiClientFor(csid: string): Promise<WebApiClient> {
    const firm = await this.registry.active(csid);
    const built = this.webApiClients.get(csid);
    if (built?.version === firm.version) return built.client;
    const { webApi } = firm.record.settings;
    if (!webApi) throw new FirmNotConfiguredError(csid, 'its settings name no Web API client (webApi)');
    refuseStoredUrls(csid, firm.record.settings, ['webApi.baseUrl']);
    if (!firm.keys.webApiPrivateKey) {
      throw new FirmNotConfiguredError(csid, 'its keys hold no Web API private key (webApiPrivateKey)');
    }
    const pace = this.paceOf(firm);
    const client = new WebApiClient({
      baseUrl: webApi.baseUrl,
      clientId: webApi.clientId,
      keyId: webApi.keyId,
      privateKey: firm.keys.webApiPrivateKey,
      ...(webApi.assertionAudience !== undefined && { assertionAudience: webApi.assertionAudience }),
      ...(webApi.scopes !== undefined && { scopes: webApi.scopes }),
      ...(this.options.timeoutMs !== undefined && { timeoutMs: this.options.timeoutMs }),
      ...(pace && { pace: (operation: string) => webApiPaced(pace, operation) }),
      ...(this.options.onWebApiCall && { onCall: this.options.onWebApiCall }),
      fetch: this.fetch,
    });
    this.webApiClients.set(csid, { version: firm.version, client });
    return client;
  }

  /**
   * The firm's brokerage on the protocol its settings name (brokerage/port.ts): the one place a protocol is
   * picked for it. FirmNotConfiguredError or FirmDisabledError when it may not call.
   */
  async brokerageFor(csid: string): Promise<Brokerage> {
    const { settings } = await this.registry.require(csid);
    const adapters: Record<Protocol, () => Promise<Brokerage>> = {
      xml: async () => xmlBrokerage(await this.clientFor(csid), csid),
      webapi: async () =>
        webApiBrokerage(await this.webApiClientFor(csid), csid, settings.environment, {
          allowInsecureLoopback: this.options.ssoAllowInsecureLoopback,
          sweeps: this.webApiSweeps,
        }),
    };
    return adapters[settings.protocol]();
  }

  /** The firm's call budget's pacing, shared by its clients of both protocols; undefined when nothing is capped. */
  private paceOf({ record }: ActiveFirm): ((operation: EcaOperation) => Promise<void>) | undefined {
    const { settings } = record;
    const budget = callBudgetOf({
      callsPerSecond: settings.callsPerSecond,
      callsPerSecondByOperation: settings.callsPerSecondByOperation,
      callWaitMaxMs: this.options.callWaitMaxMs ?? 20_000,
      maintenanceWindows: settings.maintenanceWindows,
      maintenanceTimeZone: settings.maintenanceTimeZone,
    });
    return pacesCalls(budget) ? createCallBudget(this.options.database, record.csid, budget).pace : undefined;
  }

  private build(firm: ActiveFirm): EcaClient {
    const { record, keys } = firm;
    const { settings } = record;
    if (!holdsOpenPgpKeys(keys)) {
      // Refused before anything is built or sent: the firm reaches the brokerage through the Web API alone.
      throw new FirmNotConfiguredError(
        record.csid,
        'it holds no OpenPGP keys (a firm on the Web API alone): the XML service cannot be called for it',
      );
    }
    refuseStoredUrls(record.csid, settings, ['baseUrl', 'preferenceUrl']);
    const pace = this.paceOf(firm);
    const eca = createEcaClient({
      environment: settings.environment,
      baseUrl: settings.baseUrl,
      preferenceUrl: settings.preferenceUrl,
      csid: record.csid,
      firmPrivateKey: keys.firmPrivateKey,
      passphrase: keys.passphrase,
      brokeragePublicKey: keys.brokeragePublicKey,
      timeoutMs: this.options.timeoutMs,
      sso: { allowInsecureLoopback: this.options.ssoAllowInsecureLoopback },
      signal: this.options.signal,
      cryptoThreads: this.options.cryptoThreads,
      ...(pace && { pace }),
      fetch: this.fetch,
    });
    return this.options.instrumentEca ? this.options.instrumentEca(eca) : eca;
  }

  /** One client for every firm: each call on the client of the firm its request's `CSID` names. */
  dispatcher(): EcaClient {
    const forward =
      <K extends keyof EcaClient>(operation: K) =>
      async (request?: { CSID?: string }): Promise<Awaited<ReturnType<EcaClient[K]>>> => {
        const csid = request?.CSID;
        if (!csid) {
          throw new FirmInputError('CSID', `${operation}: a call for many firms must name its firm`);
        }
        let eca: EcaClient;
        try {
          eca = await this.clientFor(csid);
        } catch (error) {
          // Nothing was sent: a firm that may not call says so by its own error, any other failure is one to
          // read the firm (activities/write-attempt.ts counts both as proof that no write went out).
          throw isFirmError(error) ? error : new FirmLookupError(csid, error);
        }
        return (eca[operation] as (request: unknown) => Promise<Awaited<ReturnType<EcaClient[K]>>>)(request);
      };
    return {
      getPendingTasks: forward('getPendingTasks'),
      getRegistrationTasks: forward('getRegistrationTasks'),
      getAccountStatus: forward('getAccountStatus'),
      getEnumerations: forward('getEnumerations'),
      getAmRequestStatus: forward('getAmRequestStatus'),
      submitDocuments: forward('submitDocuments'),
      validateXML: forward('validateXML'),
      create: forward('create'),
      ssoCreate: forward('ssoCreate'),
      update: forward('update'),
      preferenceSet: forward('preferenceSet'),
      getResponseFile: forward('getResponseFile'),
      getBatchDetails: forward('getBatchDetails'),
      getFileDetails: forward('getFileDetails'),
    } as EcaClient;
  }
}

/**
 * The firm the single-firm configuration names (ECA_CSID and its key variables), or undefined when it names
 * none. A CSID without both keys is refused by name, as a worker of 1.0 refused it.
 */
export async function environmentFirmOf(config: WorkerConfig['brokerage']): Promise<EnvironmentFirm | undefined> {
  if (!config.csid) return undefined;
  const missing = [
    config.firmPrivateKey ? undefined : 'ECA_FIRM_PRIVATE_KEY',
    config.brokeragePublicKey ? undefined : 'ECA_BROKERAGE_PUBLIC_KEY',
  ].filter((name) => name !== undefined);
  if (missing.length > 0 || !config.firmPrivateKey || !config.brokeragePublicKey) {
    throw new ConfigurationError(`ECA_CSID ${config.csid} needs ${missing.join(', ')}`);
  }
  return {
    csid: config.csid,
    settings: checkFirmSettings({
      environment: config.environment,
      ...(config.baseUrl && { baseUrl: config.baseUrl }),
      ...(config.preferenceUrl && { preferenceUrl: config.preferenceUrl }),
      ...(config.callsPerSecond !== undefined && { callsPerSecond: config.callsPerSecond }),
      ...(config.callsPerSecondByOperation && { callsPerSecondByOperation: config.callsPerSecondByOperation }),
      ...(config.maintenanceWindows && { maintenanceWindows: config.maintenanceWindows }),
      maintenanceTimeZone: config.maintenanceTimeZone,
    }),
    // Read, not checked: a key that does not open fails the calls as a configuration error, as in 1.0.
    keys: {
      firmPrivateKey: await keyText('ECA_FIRM_PRIVATE_KEY', config.firmPrivateKey, 'private'),
      ...(config.passphrase ? { passphrase: config.passphrase } : {}),
      brokeragePublicKey: await keyText('ECA_BROKERAGE_PUBLIC_KEY', config.brokeragePublicKey, 'public'),
    },
  };
}

export type { EcaClientOptions };

/** The XML operation whose budget a Web API call takes: the same work on the other protocol. */
const BUDGET_OPERATION: Record<string, EcaOperation> = {
  createAccount: 'create',
  manageAccounts: 'update',
  applicationByExternalId: 'getResponseFile',
  accountStatus: 'getAccountStatus',
  accountStatuses: 'getAccountStatus',
  pendingTasks: 'getPendingTasks',
  requestDetails: 'getAmRequestStatus',
  createBrowserSession: 'ssoCreate',
  submitAgreements: 'submitDocuments',
  enumerations: 'getEnumerations',
};

/** A Web API call waits for its slot in the firm's budget under the XML operation of the same work. */
function webApiPaced(pace: (operation: EcaOperation) => Promise<void>, operation: string): Promise<void> {
  const budgeted = BUDGET_OPERATION[operation];
  return budgeted ? pace(budgeted) : Promise.resolve();
}

/** A key variable's armored text (it holds the key or a path to one); a file that cannot be read is named. */
async function keyText(variable: string, value: string, kind: 'private' | 'public'): Promise<string> {
  try {
    return await armoredKeyText(value, kind);
  } catch (error) {
    throw new ConfigurationError(`${variable}: ${(error as Error).message}`);
  }
}
