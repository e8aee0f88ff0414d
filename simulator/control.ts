/**
 * The simulator's own controls, used in-process (`startSimulator().control`) or over HTTP under
 * `/_sim/`: scenarios, the clock, faults, call counts, extra firms, seeding for load tests, reset.
 */
import { randomBytes } from 'node:crypto';
import { durationMs, type DurationParts } from './clock.js';
import type { CallCounts, FaultInput, FaultRule, Faults } from './faults.js';
import { parseListingLag } from './listing-lag.js';
import type { ListingLagSettings } from './listing-lag.js';
import { FAULT_KINDS } from './faults.js';
import { generateFirmKeys } from './keys.js';
import { close, completeOnlineTask } from './lifecycle.js';
import { REPEATED_EXTERNAL_ID_ANSWERS } from './model.js';
import type { AccountRecord, FirmType, RepeatedExternalId } from './model.js';
import { isScenarioName, scenarioDefinitions, type ScenarioName } from './scenarios.js';
import type { SsoSessions } from './sso-sessions.js';
import type { Store } from './store.js';
import { recordsOf, type RecordsFilter, type SimulatorRecords } from './records.js';
import { isUnpromised, UNPROMISED_NAMES, type Unpromised } from './unpromised.js';

export interface ClockView {
  /** Simulated time, ISO 8601. */
  now: string;
  epochMs: number;
  timeScale: number;
}

export interface RegisteredFirm {
  csid: string;
  name: string;
  masterAccount: string;
  firmType: FirmType;
  /** Armored keys of the new firm; the simulator keeps only the public one. */
  keys: { firmPrivateKey: string; firmPublicKey: string };
}

export class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class SimulatorControl {
  constructor(
    private readonly store: Store,
    private readonly faultRules: Faults,
    /** Calls per operation, and per second with the rate cap (`callCounts.rates`). */
    readonly callCounts: CallCounts,
    private readonly sessions: SsoSessions,
    private readonly flushState: () => Promise<void>,
  ) {}

  scenarios(): { name: ScenarioName; summary: string }[] {
    return scenarioDefinitions().map(({ name, summary }) => ({ name, summary }));
  }

  /** The scenario for applications created later with this external id. */
  setScenario(externalId: string, scenario: string): void {
    if (!isScenarioName(scenario)) throw new ControlError(400, `unknown scenario ${scenario}`);
    this.store.scenarioAssignments.set(externalId, scenario);
    this.store.changed();
  }

  setDefaultScenario(scenario: string): void {
    if (!isScenarioName(scenario)) throw new ControlError(400, `unknown scenario ${scenario}`);
    this.store.defaultScenario = scenario;
  }

  /** What create answers for an external id it already made an account for (see RepeatedExternalId). */
  setRepeatedExternalId(answer: string): void {
    if (!(REPEATED_EXTERNAL_ID_ANSWERS as readonly string[]).includes(answer)) {
      throw new ControlError(400, `repeatedExternalId must be one of ${REPEATED_EXTERNAL_ID_ANSWERS.join(', ')}`);
    }
    this.store.repeatedExternalId = answer as RepeatedExternalId;
  }

  repeatedExternalId(): RepeatedExternalId {
    return this.store.repeatedExternalId;
  }

  /** Turns readings the spec does not promise on (`true`) or off (`false`); answers the settings on. */
  setUnpromised(changes: Record<string, boolean>): Unpromised[] {
    const unknown = Object.keys(changes).find((name) => !isUnpromised(name));
    if (unknown !== undefined)
      throw new ControlError(400, `unpromised: ${unknown} is not one of ${UNPROMISED_NAMES.join(', ')}`);
    for (const [name, on] of Object.entries(changes)) this.store.unpromised[on ? 'add' : 'delete'](name as Unpromised);
    return this.unpromised();
  }

  unpromised(): Unpromised[] {
    return UNPROMISED_NAMES.filter((name) => this.store.unpromised.has(name));
  }

  scenarioOf(externalId: string): ScenarioName {
    return this.store.scenarioFor(externalId);
  }

  clock(): ClockView {
    const epochMs = this.store.clock.now();
    return { now: new Date(epochMs).toISOString(), epochMs, timeScale: this.store.clock.timeScale };
  }

  advanceClock(parts: DurationParts): ClockView {
    const ms = durationMs(parts, this.store.clock.now());
    if (!Number.isFinite(ms) || ms < 0) throw new ControlError(400, 'the clock only moves forward, to 9999-12-31');
    this.store.clock.advance(ms);
    this.store.changed();
    return this.clock();
  }

  setTimeScale(timeScale: number): ClockView {
    try {
      this.store.clock.setTimeScale(timeScale);
    } catch (error) {
      throw new ControlError(400, (error as Error).message);
    }
    this.store.changed();
    return this.clock();
  }

  addFault(input: FaultInput): FaultRule {
    if (!(FAULT_KINDS as readonly string[]).includes(input.kind)) {
      throw new ControlError(400, `kind must be one of ${FAULT_KINDS.join(', ')}`);
    }
    if (typeof input.operation !== 'string' || input.operation === '') {
      throw new ControlError(400, 'operation is required (an operation name or *)');
    }
    if (input.rate !== undefined && !(input.rate >= 0 && input.rate <= 1)) {
      throw new ControlError(400, 'rate must be between 0 and 1');
    }
    return this.faultRules.add(input);
  }

  faults(): FaultRule[] {
    return this.faultRules.list();
  }

  removeFault(id: number): boolean {
    return this.faultRules.remove(id);
  }

  clearFaults(): void {
    this.faultRules.clear();
  }

  /** Calls per operation since start or the last reset, faulted calls included. */
  calls(): Record<string, number> {
    return this.callCounts.get();
  }

  resetCalls(): void {
    this.callCounts.reset();
  }

  /** Back to a fresh brokerage with the same firms and keys: no accounts, faults, counts or sessions. */
  reset(): void {
    this.store.clearActivity();
    this.faultRules.clear();
    this.callCounts.reset();
    this.sessions.clear();
  }

  async registerFirm(input: { name: string; firmType?: FirmType; csid?: string }): Promise<RegisteredFirm> {
    if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,39}$/.test(input.name)) {
      throw new ControlError(400, 'name must be letters, digits and dashes (it is used in file names)');
    }
    const firmType = input.firmType ?? 'advisor';
    if (!['advisor', 'fully-disclosed', 'non-disclosed'].includes(firmType)) {
      throw new ControlError(400, 'firmType must be advisor, fully-disclosed or non-disclosed');
    }
    const csid = input.csid ?? newCsid();
    if (this.store.firms.has(csid)) throw new ControlError(409, `CSID ${csid} is already registered`);
    const keys = await generateFirmKeys(input.name);
    const firm = this.store.addFirm({ csid, name: input.name, firmType, publicKey: keys.publicKey });
    return {
      csid,
      name: firm.name,
      masterAccount: firm.masterAccount,
      firmType,
      keys: { firmPrivateKey: keys.privateKey, firmPublicKey: keys.publicKey },
    };
  }

  /**
   * The public key the brokerage holds for the firm, replaced (a key rotated on one side only): payloads
   * signed with the firm's other key no longer verify. Answers the key held before, to put it back.
   */
  setFirmPublicKey(csid: string, publicKey: string): { previous: string } {
    const firm = this.store.firms.get(csid);
    if (!firm) throw new ControlError(404, 'unknown CSID');
    if (!publicKey.includes('BEGIN PGP PUBLIC KEY BLOCK'))
      throw new ControlError(400, 'publicKey: an armored OpenPGP public key');
    const previous = firm.publicKey;
    firm.publicKey = publicKey;
    this.store.changed();
    return { previous };
  }

  /** How late look-ups list writes from now on (listing-lag.ts). */
  setListingLag(settings: unknown): ListingLagSettings {
    let parsed: ListingLagSettings;
    try {
      parsed = parseListingLag(settings);
    } catch (error) {
      throw new ControlError(400, (error as Error).message);
    }
    this.store.listing.set(parsed);
    return parsed;
  }

  listingLag(): ListingLagSettings {
    return this.store.listing.current;
  }

  /** IPs from which the firm's SSO URLs may be opened in QA. */
  setWhitelist(csid: string, ips: string[]): void {
    const firm = this.store.firms.get(csid);
    if (!firm) throw new ControlError(404, 'unknown CSID');
    firm.qaWhitelist = [...ips];
    this.store.changed();
  }

  /** The full internal record, settled to now (a copy). */
  account(accountId: string): AccountRecord | undefined {
    const account = this.store.account(accountId);
    return account ? structuredClone<AccountRecord>(account) : undefined;
  }

  accountByExternalId(externalId: string): AccountRecord | undefined {
    for (const account of this.store.accounts.values()) {
      if (account.externalId === externalId) return this.account(account.accountId);
    }
    return undefined;
  }

  /** Completes a `to complete` task as the master would in the portal. */
  completeTask(accountId: string, formNumber?: string): boolean {
    const account = this.store.account(accountId);
    if (!account) throw new ControlError(404, 'unknown account');
    const done = completeOnlineTask(account, formNumber, this.store.now(), this.store.timings);
    if (done) this.store.changed();
    return done;
  }

  closeAccount(accountId: string): void {
    const account = this.store.account(accountId);
    if (!account) throw new ControlError(404, 'unknown account');
    if (account.status !== 'O') throw new ControlError(409, 'only open accounts can be closed');
    close(account, this.store.now());
    this.store.changed();
  }

  /**
   * Creates accounts directly, without files or crypto, for load tests. External ids are
   * `<prefix><n>`; the scenario is chosen as for create.
   */
  seedAccounts(input: { count: number; csid: string; prefix?: string }): string[] {
    if (!this.store.firms.has(input.csid)) throw new ControlError(404, 'unknown CSID');
    if (!Number.isInteger(input.count) || input.count < 1 || input.count > 1_000_000) {
      throw new ControlError(400, 'count must be an integer between 1 and 1000000');
    }
    const prefix = input.prefix ?? `seed-${randomBytes(3).toString('hex')}-`;
    const batchId = this.store.nextBatchId();
    const ids: string[] = [];
    for (let n = 1; n <= input.count; n += 1) {
      const account = this.store.createAccount({
        csid: input.csid,
        externalId: `${prefix}${n}`,
        customerType: 'INDIVIDUAL',
        batchId,
        sequence: n,
      });
      ids.push(account.accountId);
    }
    return ids;
  }

  /** What the simulator has made and received, from its own records (records.ts). */
  records(filter: RecordsFilter = {}): SimulatorRecords {
    return recordsOf(this.store, filter);
  }

  /** Writes the data dir's state file now (a no-op without a data dir). */
  flush(): Promise<void> {
    return this.flushState();
  }
}

function newCsid(): string {
  return `CSID-${randomBytes(6).toString('hex').toUpperCase()}`;
}
