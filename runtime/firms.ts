/**
 * The firms one deployment serves, in the engine's database: each its CSID, its brokerage settings and its
 * OpenPGP keys. Every worker takes a firm's brokerage client from here (runtime/firm-brokerages.ts), and the
 * API its SSO links and language preferences; `eca firms` and the API's admin routes manage them.
 *
 * - **Keys at rest**: the firm's private key and its passphrase are sealed with the payload codec's keyring
 *   (runtime/sealing.ts, bound to the CSID); the brokerage's public key is kept as it is. No read of a firm
 *   (`list`, `get`, the API) returns a key: only its version and when it was last rotated.
 * - **One firm configured by the environment**: a process with `ECA_CSID` and its key variables (the
 *   single-firm configuration of 1.0) seeds that firm at start, and its settings and keys follow the
 *   variables at each start (`managedBy: 'environment'`). Without codec keys its keys are not written to the
 *   database at all: the processes that hold the variables use them from memory.
 * - **Serving**: `active(csid)` answers from a cache of `cacheMs`, so a rotation or a disable reaches every
 *   process within that time without a restart; a disabled or unknown firm is a typed error
 *   (FirmDisabledError, FirmNotConfiguredError).
 */
import type { CodecKeyring } from '../codec/keyring.js';
import { FirmDisabledError, FirmInputError, FirmNotConfiguredError } from './firm-errors.js';
import {
  checkCsid,
  checkFirmKeys,
  checkFirmSettings,
  storedFirmSettings,
  checkName,
  holdsOpenPgpKeys,
  requireKeysFor,
} from './firm-settings.js';
import type { FirmKeys, FirmSettings } from './firm-settings.js';
import type { Database, Queryable } from './database/index.js';
import { FirmKeysDigest } from './firm-keys-digest.js';
import { SealedBox } from './sealing.js';

export type { FirmKeys, FirmSettings };

/** A firm as every read shows it: never its keys. */
export interface FirmRecord {
  csid: string;
  name: string;
  settings: FirmSettings;
  /** `environment`: seeded from ECA_CSID and its variables at each start; `database`: managed with `eca firms`. */
  managedBy: 'environment' | 'database';
  keys: {
    /** 1 when added, one more at each rotation. */
    version: number;
    rotatedAt: Date;
    /** Whether the keys are sealed in the database (else only the environment of some processes holds them). */
    stored: boolean;
    /** Whether they hold OpenPGP keys (the XML service's); a firm on the Web API alone has none. */
    openPgp: boolean;
  };
  disabled?: { at: Date; reason: string };
  createdAt: Date;
  updatedAt: Date;
}

/** A firm that may work, with its keys: what a brokerage client is built from. */
export interface ActiveFirm {
  record: FirmRecord;
  keys: FirmKeys;
  /** Changes whenever the settings or the keys do: a client built for another version is rebuilt. */
  version: string;
}

/** The firm of the single-firm configuration (ECA_CSID and its variables). */
export interface EnvironmentFirm {
  csid: string;
  settings: FirmSettings;
  keys: FirmKeys;
}

interface FirmRow {
  csid: string;
  name: string;
  settings: FirmSettings;
  managed_by: 'environment' | 'database';
  sealed_keys: Uint8Array | null;
  brokerage_public_key: string | null;
  keys_digest: string | null;
  keys_version: number;
  keys_rotated_at: Date;
  disabled_at: Date | null;
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

function toRecord(row: FirmRow): FirmRecord {
  return {
    csid: row.csid,
    name: row.name,
    settings: storedFirmSettings(row.settings),
    managedBy: row.managed_by,
    keys: {
      version: row.keys_version,
      rotatedAt: row.keys_rotated_at,
      stored: row.sealed_keys !== null,
      // The OpenPGP keys' public half is kept in the clear: a firm without it holds none.
      openPgp: row.brokerage_public_key !== null,
    },
    ...(row.disabled_at && { disabled: { at: row.disabled_at, reason: row.disabled_reason ?? '' } }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** JSON with every object's keys sorted: the database's jsonb keeps its own order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const entries = Object.entries(value).filter(([, entry]) => entry !== undefined);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonical(entry)}`).join(',')}}`;
}

const LABEL = 'eca-firm-keys-v1';
const MAGIC = 'ECA-FRK1';

/** How long a process answers a firm from memory: a rotation or a disable reaches it within this (default). */
export const DEFAULT_FIRM_CACHE_MS = 5_000;

export interface FirmRegistryOptions {
  /** The codec keys that seal the firms' private keys (ECA_CODEC_KEYS). */
  keyring?: CodecKeyring;
  /** The firm this process's environment configures (ECA_CSID and its variables). */
  environmentFirm?: EnvironmentFirm;
  cacheMs?: number;
  now?: () => number;
}

export class FirmRegistry {
  private readonly box: SealedBox;
  private readonly digests: FirmKeysDigest;
  private readonly cache = new Map<string, { at: number; row: Promise<FirmRow | undefined> }>();
  private readonly cacheMs: number;
  private readonly now: () => number;

  constructor(
    private readonly db: Database,
    private readonly options: FirmRegistryOptions = {},
  ) {
    this.box = new SealedBox(options.keyring, LABEL, MAGIC);
    this.digests = new FirmKeysDigest(options.keyring);
    this.cacheMs = options.cacheMs ?? DEFAULT_FIRM_CACHE_MS;
    this.now = options.now ?? Date.now;
  }

  /** The CSID of the firm this process's environment configures, if any. */
  get environmentCsid(): string | undefined {
    return this.options.environmentFirm?.csid;
  }

  private sealKeys(csid: string, keys: FirmKeys): Buffer | undefined {
    const { firmPrivateKey, passphrase, webApiPrivateKey } = keys;
    return this.box.seal(Buffer.from(JSON.stringify({ firmPrivateKey, passphrase, webApiPrivateKey })), csid);
  }

  /**
   * Seeds (or brings up to date) the firm of the environment: its settings and keys follow the
   * variables. A firm of that CSID managed with `eca firms` is left as it is: 'managed-elsewhere'.
   */
  async seedEnvironment({ addOnly = false }: { addOnly?: boolean } = {}): Promise<
    'added' | 'updated' | 'unchanged' | 'managed-elsewhere' | undefined
  > {
    const firm = this.options.environmentFirm;
    if (!firm) return undefined;
    const sealed = this.sealKeys(firm.csid, firm.keys) ?? null;
    const digest = this.digests.of(firm.csid, firm.keys);
    return this.db.transaction(async (tx) => {
      // Workers starting together each seed: the first inserts, the others find its row and compare.
      const inserted = await tx.query(
        `INSERT INTO firms (csid, name, settings, managed_by, sealed_keys, brokerage_public_key, keys_digest)
         VALUES ($1, $1, $2::jsonb, 'environment', $3, $4, $5) ON CONFLICT (csid) DO NOTHING RETURNING csid`,
        [firm.csid, JSON.stringify(firm.settings), sealed, firm.keys.brokeragePublicKey, digest],
      );
      // The API adds the firm if no worker has yet, and otherwise leaves it to the workers' variables.
      if (inserted.length > 0) return 'added';
      if (addOnly) return 'unchanged';
      const [row] = await tx.query<FirmRow>('SELECT * FROM firms WHERE csid = $1 FOR UPDATE', [firm.csid]);
      if (!row) return 'unchanged';
      if (row.managed_by !== 'environment') return 'managed-elsewhere';
      const compared = this.digests.compare(row.keys_digest, firm.csid, firm.keys);
      const keysChanged = compared === 'changed';
      const settingsChanged = canonical(row.settings) !== canonical(firm.settings);
      // A keyring configured since: the keys are sealed now (the digest alone is unchanged). A process
      // without one never unseals what others sealed: it keeps the row's keys, and uses its own from memory.
      const sealingChanged = row.sealed_keys === null && sealed !== null;
      const writesKeys = sealed !== null && (keysChanged || sealingChanged);
      // The same keys under an older codec key's digest, or none: rewritten, no new version.
      const rewritesDigest = digest !== null && (compared === 'stale' || compared === 'absent');
      if (!writesKeys && !settingsChanged) {
        if (rewritesDigest) await tx.query('UPDATE firms SET keys_digest = $2 WHERE csid = $1', [firm.csid, digest]);
        return 'unchanged';
      }
      await tx.query(
        `UPDATE firms SET settings = $2::jsonb, updated_at = now(),
           sealed_keys = CASE WHEN $7 THEN $3 ELSE sealed_keys END,
           brokerage_public_key = CASE WHEN $7 THEN $4 ELSE brokerage_public_key END,
           keys_digest = CASE WHEN $7 OR $8 THEN $5 ELSE keys_digest END,
           keys_version = keys_version + $6, keys_rotated_at = CASE WHEN $6 = 1 THEN now() ELSE keys_rotated_at END
         WHERE csid = $1`,
        [
          firm.csid,
          JSON.stringify(firm.settings),
          sealed,
          firm.keys.brokeragePublicKey,
          digest,
          writesKeys && keysChanged ? 1 : 0,
          writesKeys,
          rewritesDigest,
        ],
      );
      return 'updated';
    });
  }

  /** A new firm, its keys checked and sealed. */
  async add(input: { csid: string; name: string; settings?: unknown; keys: FirmKeys }): Promise<FirmRecord> {
    const csid = checkCsid(input.csid);
    const name = checkName(input.name);
    const settings = checkFirmSettings(input.settings ?? {});
    const keys = await checkFirmKeys(input.keys);
    requireKeysFor(settings.protocol, holdsOpenPgpKeys(keys));
    const sealed = this.requireSealed(csid, keys);
    const rows = await this.db.query<FirmRow>(
      `INSERT INTO firms (csid, name, settings, managed_by, sealed_keys, brokerage_public_key, keys_digest)
       VALUES ($1, $2, $3::jsonb, 'database', $4, $5, $6)
       ON CONFLICT (csid) DO NOTHING RETURNING *`,
      [csid, name, JSON.stringify(settings), sealed, keys.brokeragePublicKey, this.digests.of(csid, keys)],
    );
    if (!rows[0]) throw new FirmInputError('csid', `firm ${csid} exists already (eca firms show ${csid})`);
    return toRecord(rows[0]);
  }

  private requireSealed(csid: string, keys: FirmKeys): Buffer {
    const sealed = this.sealKeys(csid, keys);
    if (!sealed) {
      throw new FirmInputError(
        'keys',
        "a firm's private key is stored sealed with the codec keys: configure ECA_CODEC_KEYS (`npm run codec-server -- --generate-key` prints one)",
      );
    }
    return sealed;
  }

  async list(): Promise<FirmRecord[]> {
    return (await this.db.query<FirmRow>('SELECT * FROM firms ORDER BY csid')).map(toRecord);
  }

  async get(csid: string): Promise<FirmRecord | undefined> {
    const [row] = await this.db.query<FirmRow>('SELECT * FROM firms WHERE csid = $1', [csid]);
    return row && toRecord(row);
  }

  /** The row of a firm managed here, locked; a firm of the environment or none is refused by name. */
  private async managedRow(tx: Queryable, csid: string, what: string): Promise<FirmRow> {
    const [row] = await tx.query<FirmRow>('SELECT * FROM firms WHERE csid = $1 FOR UPDATE', [csid]);
    if (!row) throw new FirmNotConfiguredError(csid);
    if (row.managed_by === 'environment' && what !== 'disable' && what !== 'enable') {
      throw new FirmInputError(
        'csid',
        `firm ${csid} is configured by the environment of its workers (ECA_CSID and its variables): change them there`,
      );
    }
    return row;
  }

  /** The name or settings changed: settings given replace those fields, the others stay. */
  async update(csid: string, changes: { name?: string; settings?: Record<string, unknown> }): Promise<FirmRecord> {
    return this.db.transaction(async (tx) => {
      const row = await this.managedRow(tx, csid, 'update');
      const name = changes.name === undefined ? row.name : checkName(changes.name);
      const settings = checkFirmSettings({ ...row.settings, ...changes.settings });
      // The OpenPGP keys' public half is kept in the clear: a firm without it holds none.
      requireKeysFor(settings.protocol, row.brokerage_public_key !== null);
      const [updated] = await tx.query<FirmRow>(
        'UPDATE firms SET name = $2, settings = $3::jsonb, updated_at = now() WHERE csid = $1 RETURNING *',
        [csid, name, JSON.stringify(settings)],
      );
      this.cache.delete(csid);
      return toRecord(updated!);
    });
  }

  /**
   * New keys for the firm: every process uses them within its cache time, no restart. Keys without OpenPGP keys
   * drop the firm's only when asked (`dropOpenPgpKeys`): applications still on the XML service need them.
   */
  async rotateKeys(csid: string, input: FirmKeys, options: { dropOpenPgpKeys?: boolean } = {}): Promise<FirmRecord> {
    const keys = await checkFirmKeys(input);
    const sealed = this.requireSealed(csid, keys);
    return this.db.transaction(async (tx) => {
      const row = await this.managedRow(tx, csid, 'rotate-keys');
      requireKeysFor(storedFirmSettings(row.settings).protocol, holdsOpenPgpKeys(keys));
      if (row.brokerage_public_key !== null && !holdsOpenPgpKeys(keys) && options.dropOpenPgpKeys !== true) {
        throw new FirmInputError(
          'keys',
          "these keys hold no OpenPGP keys and would drop the firm's, which its applications still on the XML service need: give firmPrivateKey and brokeragePublicKey to keep them, or drop them (dropOpenPgpKeys) once its last application there has ended",
        );
      }
      const [updated] = await tx.query<FirmRow>(
        `UPDATE firms SET sealed_keys = $2, brokerage_public_key = $3, keys_digest = $4,
           keys_version = keys_version + 1, keys_rotated_at = now(), updated_at = now()
         WHERE csid = $1 RETURNING *`,
        [csid, sealed, keys.brokeragePublicKey, this.digests.of(csid, keys)],
      );
      this.cache.delete(csid);
      return toRecord(updated!);
    });
  }

  /** The firm takes no new work, and its running applications stop in `blocked` with `reason`. */
  async disable(csid: string, reason: string): Promise<FirmRecord> {
    const why = reason.trim();
    if (why.length === 0 || why.length > 500) throw new FirmInputError('reason', 'give 1 to 500 characters');
    return this.setDisabled(csid, why);
  }

  async enable(csid: string): Promise<FirmRecord> {
    return this.setDisabled(csid, undefined);
  }

  private async setDisabled(csid: string, reason: string | undefined): Promise<FirmRecord> {
    return this.db.transaction(async (tx) => {
      await this.managedRow(tx, csid, reason === undefined ? 'enable' : 'disable');
      const [updated] = await tx.query<FirmRow>(
        `UPDATE firms SET disabled_at = CASE WHEN $2::text IS NULL THEN NULL ELSE now() END,
           disabled_reason = $2, updated_at = now() WHERE csid = $1 RETURNING *`,
        [csid, reason ?? null],
      );
      this.cache.delete(csid);
      return toRecord(updated!);
    });
  }

  /** The firm's row, from the cache when it is fresh: a rotation or a disable is seen within `cacheMs`. */
  private row(csid: string): Promise<FirmRow | undefined> {
    const now = this.now();
    const cached = this.cache.get(csid);
    if (cached && now - cached.at < this.cacheMs) return cached.row;
    const row = this.db.query<FirmRow>('SELECT * FROM firms WHERE csid = $1', [csid]).then((rows) => rows[0]);
    this.cache.set(csid, { at: now, row });
    // A failed read (the database away) is not kept: the next call asks again.
    row.catch(() => this.cache.delete(csid));
    return row;
  }

  /** The firm, if it may take work; FirmNotConfiguredError or FirmDisabledError otherwise (no keys needed). */
  async require(csid: string): Promise<FirmRecord> {
    const row = await this.row(csid);
    if (!row) throw new FirmNotConfiguredError(csid);
    if (row.disabled_at) throw new FirmDisabledError(csid, row.disabled_reason ?? 'no reason given');
    return toRecord(row);
  }

  /** The firm with its keys, if it may work; FirmNotConfiguredError or FirmDisabledError otherwise. */
  async active(csid: string): Promise<ActiveFirm> {
    const record = await this.require(csid);
    const row = (await this.row(csid))!;
    const version = `${row.keys_version}:${row.updated_at.getTime()}`;
    const environment = this.options.environmentFirm;
    // Without codec keys a process cannot open sealed keys: it uses its own variables' for their firm.
    if (row.sealed_keys === null || !this.box.encrypts) {
      if (environment?.csid === csid) return { record, keys: environment.keys, version };
      throw new FirmNotConfiguredError(
        csid,
        row.sealed_keys === null
          ? 'its keys are held only by the environment of the processes that set ECA_CSID to it (configure ECA_CODEC_KEYS there to seal them in the database)'
          : 'its keys are sealed with the codec keys, which this process does not have (ECA_CODEC_KEYS)',
      );
    }
    const opened = this.box.open(row.sealed_keys, csid);
    if (!Buffer.isBuffer(opened)) {
      throw new FirmNotConfiguredError(
        csid,
        opened.kind === 'unknown-key'
          ? `its keys are sealed with codec key id "${opened.keyId}", which this process does not have (ECA_CODEC_KEYS)`
          : `its sealed keys do not authenticate under codec key id "${opened.keyId}"`,
      );
    }
    const secret = JSON.parse(opened.toString('utf8')) as {
      firmPrivateKey?: string;
      passphrase?: string;
      webApiPrivateKey?: string;
    };
    return {
      record,
      keys: {
        // A firm on the Web API alone holds no OpenPGP keys.
        ...(secret.firmPrivateKey && row.brokerage_public_key
          ? { firmPrivateKey: secret.firmPrivateKey, brokeragePublicKey: row.brokerage_public_key }
          : {}),
        ...(secret.passphrase ? { passphrase: secret.passphrase } : {}),
        ...(secret.webApiPrivateKey ? { webApiPrivateKey: secret.webApiPrivateKey } : {}),
      },
      version,
    };
  }
}
