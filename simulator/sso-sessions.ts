/** Live SSO URLs: each bound to one user, one IP and 60 seconds of wall-clock time. Kept in memory only. */
import { randomBytes } from 'node:crypto';
import type { SimClock } from './clock.js';

export const SSO_VALIDITY_MS = 60_000;

export interface SsoSession {
  sid: string;
  csid: string;
  accountId: string;
  ip: string;
  expiresAt: number;
  /** The user gave user name and password in this session (asked on withdrawal pages in production). */
  credentialsConfirmed?: boolean;
}

export class SsoSessions {
  readonly #sessions = new Map<string, SsoSession>();

  constructor(private readonly clock: SimClock) {}

  create(input: Omit<SsoSession, 'sid' | 'expiresAt'>): SsoSession {
    this.#prune();
    const session: SsoSession = {
      ...input,
      sid: randomBytes(16).toString('hex').toUpperCase(),
      expiresAt: this.clock.wallNow() + SSO_VALIDITY_MS,
    };
    this.#sessions.set(session.sid, session);
    return session;
  }

  get(sid: string): SsoSession | undefined {
    return this.#sessions.get(sid);
  }

  isExpired(session: SsoSession): boolean {
    return this.clock.wallNow() > session.expiresAt;
  }

  clear(): void {
    this.#sessions.clear();
  }

  #prune(): void {
    const now = this.clock.wallNow();
    for (const [sid, session] of this.#sessions) {
      // Expired URLs are kept a while so that opening one late says "expired" rather than "unknown".
      if (session.expiresAt + 10 * SSO_VALIDITY_MS < now) this.#sessions.delete(sid);
    }
  }
}
