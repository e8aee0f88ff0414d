/**
 * The protocol each application started on, kept in the engine's database: a firm moved from the XML
 * service to the Web API (its settings' `protocol`) leaves its running applications on the protocol they
 * started with, until they end; only applications that start after the move take the new one. An
 * application is known by its external id until it has an account, then by its account's id too.
 *
 * A pin is written once (the first writer wins: workers racing on one application agree) and never
 * changes, so a process keeps the pins it read.
 */
import type { Database } from './database/index.js';
import type { Protocol } from './firm-settings.js';

/** Pins a process keeps in memory before it forgets them all (they are read again from the database). */
const KEPT_PINS = 100_000;

export type ApplicationKey = { externalId: string } | { accountId: string };

function keyOf(key: ApplicationKey): string {
  return 'externalId' in key ? `x:${key.externalId}` : `a:${key.accountId}`;
}

export class ApplicationProtocols {
  private readonly kept = new Map<string, Protocol>();

  constructor(private readonly db: Database) {}

  /**
   * The protocol the application is on: its pin, or, when it has none, `current` (the firm's protocol now),
   * pinned from then on.
   */
  async of(csid: string, key: ApplicationKey, current: () => Promise<Protocol>): Promise<Protocol> {
    const id = `${csid}\u0000${keyOf(key)}`;
    const kept = this.kept.get(id);
    if (kept) return kept;
    const found = await this.read(csid, keyOf(key));
    return this.keep(id, found ?? (await this.pin(csid, key, await current())));
  }

  /** Pins the application's account to the protocol its external id is on (once it has an account). */
  async pin(csid: string, key: ApplicationKey, protocol: Protocol): Promise<Protocol> {
    await this.db.query(
      'INSERT INTO application_protocols (csid, key, protocol) VALUES ($1, $2, $3) ON CONFLICT (csid, key) DO NOTHING',
      [csid, keyOf(key), protocol],
    );
    // Another worker may have pinned it first: its pin holds.
    return (await this.read(csid, keyOf(key))) ?? protocol;
  }

  private async read(csid: string, key: string): Promise<Protocol | undefined> {
    const rows = await this.db.query<{ protocol: Protocol }>(
      'SELECT protocol FROM application_protocols WHERE csid = $1 AND key = $2',
      [csid, key],
    );
    return rows[0]?.protocol;
  }

  private keep(id: string, protocol: Protocol): Protocol {
    if (this.kept.size >= KEPT_PINS) this.kept.clear();
    this.kept.set(id, protocol);
    return protocol;
  }
}
