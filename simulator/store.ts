/**
 * All state of the simulated brokerage, indexed for the queries the service answers: accounts by
 * id and per firm, response files by external id, update requests by id and per account.
 */
import type { SimClock } from './clock.js';
import { isoDate, reportFileName, requestFileName } from './formats/wire-text.js';
import { settle, startApplication } from './lifecycle.js';
import { ListingLag } from './listing-lag.js';
import type {
  AccountRecord,
  ArchivedForm,
  Counters,
  FirmRecord,
  FirmType,
  RepeatedExternalId,
  ResponseFileRecord,
  Snapshot,
  UpdateRequestRecord,
} from './model.js';
import { scenarioFromExternalId, signedAgreement, type ScenarioName, type Timings } from './scenarios.js';
import type { Unpromised } from './unpromised.js';

export interface NewAccountInput {
  csid: string;
  externalId: string;
  customerType: string;
  /** Preferred user name; derived from the external id when absent or taken. */
  userName?: string;
  batchId: number;
  sequence: number;
  /** The digest of the password assigned at creation, when one is (the response file then gives it). */
  temporaryPasswordDigest?: string;
}

export class Store {
  readonly firms = new Map<string, FirmRecord>();
  readonly accounts = new Map<string, AccountRecord>();
  /** Account ids per CSID, in creation order: the "all sub-accounts" query. */
  readonly accountsByFirm = new Map<string, string[]>();
  /**
   * Response files per `${csid}\u0000${externalId}`, oldest first (a repeated external id makes another
   * account and another file), and, for cross-firm checks, externalId alone → owning CSID.
   */
  readonly responseFiles = new Map<string, ResponseFileRecord[]>();
  readonly externalIdOwner = new Map<string, string>();
  readonly requests = new Map<string, UpdateRequestRecord>();
  readonly requestsByAccount = new Map<string, string[]>();
  /** The archived originals, one per file of a form (a Document holds one or more): keyed by {@link archivedFileKey}. */
  readonly forms = new Map<string, ArchivedForm>();
  readonly userNames = new Map<string, string>();
  scenarioAssignments = new Map<string, ScenarioName>();
  /** The Web API's registered clients, kept like the firms' keys (a reset keeps them). */
  webapiClients: NonNullable<Snapshot['webapiClients']> = [];
  /** How late look-ups list a write (a setting, not state; listing-lag.ts). */
  readonly listing = new ListingLag({}, () => this.clock.wallNow());
  /** What create does with an external id it already made an account for (a setting, not state). */
  repeatedExternalId: RepeatedExternalId = 'second-account';
  /** Which readings the spec does not promise the simulator breaks (a setting, not state; unpromised.ts). */
  unpromised = new Set<Unpromised>();
  counters: Counters = { account: 0, batch: 0, request: 0, fileSequence: 0, master: 0 };

  constructor(
    readonly clock: SimClock,
    readonly timings: Timings,
    public defaultScenario: ScenarioName,
    private readonly onChange: () => void,
  ) {}

  changed(): void {
    this.onChange();
  }

  now(): number {
    return this.clock.now();
  }

  addFirm(input: {
    csid: string;
    name: string;
    firmType: FirmType;
    publicKey: string;
    masterAccount?: string;
  }): FirmRecord {
    const firm: FirmRecord = {
      csid: input.csid,
      name: input.name,
      firmType: input.firmType,
      publicKey: input.publicKey,
      masterAccount: input.masterAccount ?? `F${String(1_000_000 + ++this.counters.master).padStart(7, '0')}`,
      qaWhitelist: ['127.0.0.1', '::1', '::ffff:127.0.0.1'],
    };
    this.firms.set(firm.csid, firm);
    if (!this.accountsByFirm.has(firm.csid)) this.accountsByFirm.set(firm.csid, []);
    this.changed();
    return firm;
  }

  /** The account, settled to now. */
  account(accountId: string): AccountRecord | undefined {
    const account = this.accounts.get(accountId);
    if (account) settle(account, this.clock.now(), this.timings);
    return account;
  }

  /** The account when it belongs to `csid`, settled to now. */
  ownAccount(csid: string, accountId: string): AccountRecord | undefined {
    const account = this.accounts.get(accountId);
    if (!account || account.csid !== csid) return undefined;
    settle(account, this.clock.now(), this.timings);
    return account;
  }

  firmAccounts(csid: string): AccountRecord[] {
    const now = this.clock.now();
    const ids = this.accountsByFirm.get(csid) ?? [];
    const out: AccountRecord[] = [];
    for (const id of ids) {
      const account = this.accounts.get(id);
      if (!account) continue;
      settle(account, now, this.timings);
      out.push(account);
    }
    return out;
  }

  scenarioFor(externalId: string): ScenarioName {
    return this.scenarioAssignments.get(externalId) ?? scenarioFromExternalId(externalId) ?? this.defaultScenario;
  }

  nextBatchId(): number {
    this.counters.batch += 1;
    return this.counters.batch;
  }

  nextFileSequence(): number {
    this.counters.fileSequence += 1;
    return this.counters.fileSequence;
  }

  nextRequestId(): string {
    this.counters.request += 1;
    return String(700_000_000 + this.counters.request);
  }

  /** Opens a new application; the caller makes sure the external id is new. */
  createAccount(input: NewAccountInput): AccountRecord {
    const firm = this.firms.get(input.csid);
    if (!firm) throw new Error(`unknown CSID`);
    const now = this.clock.now();
    this.counters.account += 1;
    const accountId = `U${String(1_000_000 + this.counters.account).padStart(7, '0')}`;
    const account: AccountRecord = {
      accountId,
      csid: input.csid,
      externalId: input.externalId,
      scenario: this.scenarioFor(input.externalId),
      customerType: input.customerType,
      userName: this.uniqueUserName(input.userName ?? input.externalId, accountId),
      createdAt: now,
      batchId: input.batchId,
      requestFileName: requestFileName(firm.name, now, input.batchId, input.sequence),
      responseFileName: reportFileName(firm.name, now, input.batchId, input.sequence),
      phase: 'new',
      phaseSince: now,
      status: 'N',
      resets: 0,
      tasks: [signedAgreement(now)],
      // Pending only when a password was assigned at creation (a create's response file holds one).
      temporaryPasswordPending: input.temporaryPasswordDigest !== undefined,
      ...(input.temporaryPasswordDigest !== undefined && { temporaryPasswordDigest: input.temporaryPasswordDigest }),
    };
    startApplication(account, now, this.timings);
    this.accounts.set(accountId, account);
    this.userNames.set(account.userName, accountId);
    let list = this.accountsByFirm.get(input.csid);
    if (!list) {
      list = [];
      this.accountsByFirm.set(input.csid, list);
    }
    list.push(accountId);
    this.externalIdOwner.set(input.externalId, input.csid);
    this.listing.written('account', accountId);
    this.changed();
    return account;
  }

  /** Every response file of a firm's external id, oldest first. */
  responseFilesOf(csid: string, externalId: string): readonly ResponseFileRecord[] {
    return this.responseFiles.get(responseKey(csid, externalId)) ?? [];
  }

  addResponseFile(record: ResponseFileRecord): void {
    this.keepResponseFile(record);
    this.listing.written('responseFile', record.name);
    this.externalIdOwner.set(record.externalId, record.csid);
    this.changed();
  }

  private keepResponseFile(record: ResponseFileRecord): void {
    const key = responseKey(record.csid, record.externalId);
    const list = this.responseFiles.get(key) ?? [];
    list.push(record);
    this.responseFiles.set(key, list);
  }

  addRequest(record: UpdateRequestRecord): void {
    this.requests.set(record.requestId, record);
    this.listing.written('request', record.requestId);
    if (record.accountId !== undefined) {
      const list = this.requestsByAccount.get(record.accountId) ?? [];
      list.push(record.requestId);
      this.requestsByAccount.set(record.accountId, list);
    }
    this.changed();
  }

  /** Creation day (simulated) of an account, `yyyy-mm-dd`. */
  createdDay(account: AccountRecord): string {
    return isoDate(account.createdAt);
  }

  /** Forgets accounts, requests, files and assignments; firms and keys stay. */
  clearActivity(): void {
    this.accounts.clear();
    for (const list of this.accountsByFirm.values()) list.length = 0;
    this.responseFiles.clear();
    this.listing.clear();
    this.externalIdOwner.clear();
    this.requests.clear();
    this.requestsByAccount.clear();
    this.forms.clear();
    this.userNames.clear();
    this.scenarioAssignments.clear();
    for (const firm of this.firms.values()) {
      delete firm.documentSubmissions;
    }
    this.changed();
  }

  snapshot(): Snapshot {
    return {
      version: 1,
      clock: this.clock.snapshot(),
      counters: { ...this.counters },
      firms: [...this.firms.values()],
      accounts: [...this.accounts.values()],
      responseFiles: [...this.responseFiles.values()].flat(),
      requests: [...this.requests.values()],
      forms: [...this.forms.values()],
      scenarioAssignments: Object.fromEntries(this.scenarioAssignments),
      webapiClients: this.webapiClients,
    };
  }

  /** Loads a snapshot into this (empty) store; the clock is restored by the caller. */
  load(snapshot: Snapshot): void {
    this.counters = { ...snapshot.counters };
    for (const firm of snapshot.firms) {
      this.firms.set(firm.csid, firm);
      this.accountsByFirm.set(firm.csid, []);
    }
    for (const account of snapshot.accounts) {
      this.accounts.set(account.accountId, account);
      this.userNames.set(account.userName, account.accountId);
      this.externalIdOwner.set(account.externalId, account.csid);
      const list = this.accountsByFirm.get(account.csid) ?? [];
      list.push(account.accountId);
      this.accountsByFirm.set(account.csid, list);
    }
    for (const file of snapshot.responseFiles) this.keepResponseFile(file);
    for (const request of snapshot.requests) {
      this.requests.set(request.requestId, request);
      if (request.accountId !== undefined) {
        const list = this.requestsByAccount.get(request.accountId) ?? [];
        list.push(request.requestId);
        this.requestsByAccount.set(request.accountId, list);
      }
    }
    for (const form of snapshot.forms) this.forms.set(archivedFileKey(form), form);
    this.scenarioAssignments = new Map(Object.entries(snapshot.scenarioAssignments) as [string, ScenarioName][]);
    this.webapiClients = [...(snapshot.webapiClients ?? [])];
  }

  private uniqueUserName(preferred: string, accountId: string): string {
    const base =
      preferred
        .toLowerCase()
        .replace(/[^a-z0-9]/g, '')
        .slice(0, 12) || 'user';
    if (!this.userNames.has(base)) return base;
    for (let n = 1; ; n += 1) {
      const candidate = `${base.slice(0, 8)}${accountId.slice(-4)}${n > 1 ? n : ''}`;
      if (!this.userNames.has(candidate)) return candidate;
    }
  }
}

function responseKey(csid: string, externalId: string): string {
  return `${csid}\u0000${externalId}`;
}

/** The archive's key of one file of a form: the form number and the file's name (rule 8: the name in the XML). */
export function archivedFileKey(file: { formNumber: string; fileName: string }): string {
  return `${file.formNumber}\u0000${file.fileName}`;
}
